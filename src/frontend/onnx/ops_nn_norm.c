/* ONNX converters, family "nn", part 3 (see ops_nn.c): BatchNormalization,
 * InstanceNormalization, LayerNormalization, GroupNormalization, MeanVarianceNormalization,
 * LpNormalization and LRN.
 *
 * BatchNormalization runs in inference form unless the node asks for training (opset < 7:
 * is_test = 0; opsets 7-13: more than one output requested; opset >= 14: training_mode = 1);
 * training uses relax.nn.batch_norm(training=True), whose moving-statistics update weighs the
 * batch by `momentum` where ONNX weighs the running value by it, hence 1 - momentum.
 * saved_mean / saved_var (opsets < 14) and spatial = 0 (opsets < 9) are not supported.
 * LRN has no Relax op: it is one emit_te of two computes (the windowed square sum, then the
 * scaling). */
#include <math.h>
#include <string.h>

#include "../../topi/topi.h"
#include "ops_nn_internal.h"

static RLX_MUST_USE rlx_status_t* annotate(const rlx_onnx_node_t* node, rlx_status_t* st) {
  return rlx_status_annotate(st, "node '%s' (%s)", node->name, node->op_type);
}

/* ---------------------------------------------------------------- BatchNormalization */
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_batch_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                     rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int opset = rlx_onnx_opset(im);
  rlx_sinfo_tensor_t* t[5];
  for (int i = 0; i < 5; i++) RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, i, &t[i]));
  if (t[0]->ndim < 2) return rlx_onnx_error(node, "X must have rank >= 2 (N, C, ...), got %d", t[0]->ndim);
  if (opset < 9 && rlx_onnx_attr_int(node, "spatial", 1) == 0)
    return nn_unsupported(node, "spatial=0 (per-activation statistics) is not supported");
  bool training;
  if (opset < 7) training = rlx_onnx_attr_int(node, "is_test", 0) == 0;
  else if (opset < 14) training = nn_wants_output(node, 1) || nn_wants_output(node, 2);
  else training = rlx_onnx_attr_int(node, "training_mode", 0) != 0;
  for (int i = 3; i < 5; i++)
    if (nn_wants_output(node, i)) return nn_unsupported(node, "output %d (saved mean / variance) is not supported", i);
  if (!training && (nn_wants_output(node, 1) || nn_wants_output(node, 2)))
    return nn_unsupported(node, "running mean / variance outputs are only produced in training mode");
  double eps = rlx_onnx_attr_float(node, "epsilon", 1e-5), momentum = rlx_onnx_attr_float(node, "momentum", 0.9);
  rlx_attrs_t at = {0};
  at = rlx_attrs_set(ctx, at, "axis", rlx_attr_int(1));
  at = rlx_attrs_set(ctx, at, "epsilon", rlx_attr_float(eps));
  if (training) {
    at = rlx_attrs_set(ctx, at, "momentum", rlx_attr_float(1.0 - momentum));
    at = rlx_attrs_set(ctx, at, "training", rlx_attr_bool(true));
  }
  rlx_relax_expr_t* bn;
  RLX_RETURN_IF_ERROR(annotate(node, nn_call(im, RLX_OP_BATCH_NORM, 5, inputs, at, &bn)));
  for (int i = 0; i < 3 && i < node->n_outputs; i++)
    if (i == 0 || nn_wants_output(node, i))
      RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_tuple_get_item(ctx, bn, i), &outputs[i]));
  return NULL;
}

/* ---------------------------------------------------------------- InstanceNormalization */
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_instance_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                        rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *s, *b;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &s));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 2, &b));
  if (x->ndim < 3 || x->ndim > 18) return rlx_onnx_error(node, "X must have rank 3 to 18 (N, C, D...), got %d", x->ndim);
  int64_t axes[16];
  for (int i = 2; i < x->ndim; i++) axes[i - 2] = i;
  rlx_attrs_t at = {0};
  at = rlx_attrs_set(ctx, at, "channel_axis", rlx_attr_int(1));
  at = rlx_attrs_set(ctx, at, "axes", rlx_attr_ints(x->ndim - 2, axes));
  at = rlx_attrs_set(ctx, at, "epsilon", rlx_attr_float(rlx_onnx_attr_float(node, "epsilon", 1e-5)));
  return annotate(node, nn_call(im, RLX_OP_INSTANCE_NORM, 3, inputs, at, &outputs[0]));
}

/* ---------------------------------------------------------------- LayerNormalization */
/* p broadcast to the normalized shape of x (dims axis..) when its shape differs (ONNX lets
 * Scale and B broadcast to it). */
static RLX_MUST_USE rlx_status_t* to_norm_shape(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_sinfo_tensor_t* x,
                                   int axis, rlx_relax_expr_t* p, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* pt = nn_sinfo(p);
  int n = x->ndim - axis;
  bool same = pt && pt->ndim == n && pt->shape && x->shape;
  for (int i = 0; same && i < n; i++) {
    int64_t a, b;
    same = rlx_expr_is_const_int(pt->shape[i], &a) && rlx_expr_is_const_int(x->shape[axis + i], &b) ? a == b
                                                                                                   : pt->shape[i] == x->shape[axis + i];
  }
  if (same || !x->shape) return *out = p, NULL;
  rlx_relax_expr_t* shape = rlx_relax_shape_expr(ctx, n, x->shape + axis);
  return annotate(node, nn_call(im, RLX_OP_BROADCAST_TO, 2, (rlx_relax_expr_t*[]){p, shape}, (rlx_attrs_t){0}, out));
}

RLX_MUST_USE rlx_status_t* rlx_onnx_nn_layer_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                     rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *s;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &s));
  if (!rlx_dtype_is_float(x->dtype)) return rlx_onnx_error(node, "X must be a float tensor");
  int r = x->ndim;
  int64_t axis = rlx_onnx_attr_int(node, "axis", -1);
  if (axis < -r || axis >= r) return rlx_onnx_error(node, "axis %lld is out of range for rank %d", (long long)axis, r);
  if (axis < 0) axis += r;
  if (r - axis > 16) return nn_unsupported(node, "more than 16 normalized dims");
  int64_t axes[16];
  for (int i = (int)axis; i < r; i++) axes[i - axis] = i;
  double eps = rlx_onnx_attr_float(node, "epsilon", 1e-5);
  int64_t stash = rlx_onnx_attr_int(node, "stash_type", 1);
  if (stash != 1 && stash != -1) return nn_unsupported(node, "stash_type %lld (only 1: float32)", (long long)stash);
  /* stash_type 1: narrower floats are normalized in float32 (Mean / InvStdDev are float32) */
  bool widen = stash == 1 && x->dtype.bits < 32;
  rlx_dtype_t f32 = rlx_dt_float32();
  rlx_relax_expr_t *xin = inputs[0], *scale, *bias = NULL;
  RLX_RETURN_IF_ERROR(to_norm_shape(im, node, x, (int)axis, inputs[1], &scale));
  if (node->n_inputs > 2 && inputs[2]) RLX_RETURN_IF_ERROR(to_norm_shape(im, node, x, (int)axis, inputs[2], &bias));
  if (widen) {
    rlx_attrs_t cat = rlx_attrs_set(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(f32));
    RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_ASTYPE, 1, &xin, cat, &xin));
    RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_ASTYPE, 1, &scale, cat, &scale));
    if (bias) RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_ASTYPE, 1, &bias, cat, &bias));
  }
  rlx_attrs_t at = {0};
  at = rlx_attrs_set(ctx, at, "axes", rlx_attr_ints(r - (int)axis, axes));
  at = rlx_attrs_set(ctx, at, "epsilon", rlx_attr_float(eps));
  /* without B, scale stands in for beta and center is off */
  if (!bias) at = rlx_attrs_set(ctx, at, "center", rlx_attr_bool(false));
  RLX_RETURN_IF_ERROR(annotate(node, nn_call(im, RLX_OP_LAYER_NORM, 3,
                                              (rlx_relax_expr_t*[]){xin, scale, bias ? bias : scale}, at,
                                              &outputs[0])));
  if (widen)
    RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_ASTYPE, 1, &outputs[0],
                                rlx_attrs_set(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(x->dtype)), &outputs[0]));
  if (!nn_wants_output(node, 1) && !nn_wants_output(node, 2)) return NULL;
  rlx_attrs_t rat = rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_ints(r - (int)axis, axes));
  rat = rlx_attrs_set(ctx, rat, "keepdims", rlx_attr_bool(true));
  if (nn_wants_output(node, 1)) RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_MEAN, 1, &xin, rat, &outputs[1]));
  if (nn_wants_output(node, 2)) {
    rlx_relax_expr_t *v, *e;
    RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_VARIANCE, 1, &xin, rat, &v));
    RLX_RETURN_IF_ERROR(nn_scalar(im, node, widen ? f32 : x->dtype, eps, &e));
    RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_ADD, 2, (rlx_relax_expr_t*[]){v, e}, (rlx_attrs_t){0}, &v));
    RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_RSQRT, 1, &v, (rlx_attrs_t){0}, &outputs[2]));
  }
  return NULL;
}

/* ---------------------------------------------------------------- GroupNormalization */
/* Opset 18 gives scale and bias per group ([num_groups]), opset 21 per channel ([C]);
 * relax.nn.group_norm takes them per channel, so per-group ones are repeated C / G times. */
static RLX_MUST_USE rlx_status_t* per_channel(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* p,
                                 int64_t groups, int64_t c, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int64_t one = 1;
  rlx_relax_expr_t* e;
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_EXPAND_DIMS, 1, &p,
                              rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_ints(1, &one)), &e));
  rlx_expr_t* dims[2] = {rlx_ir_i64(ctx, groups), rlx_ir_i64(ctx, c / groups)};
  RLX_RETURN_IF_ERROR(annotate(node, nn_call(im, RLX_OP_BROADCAST_TO, 2,
                                              (rlx_relax_expr_t*[]){e, rlx_relax_shape_expr(ctx, 2, dims)},
                                              (rlx_attrs_t){0}, &e)));
  rlx_expr_t* flat[1] = {rlx_ir_i64(ctx, c)};
  return nn_call(im, RLX_OP_RESHAPE, 2, (rlx_relax_expr_t*[]){e, rlx_relax_shape_expr(ctx, 1, flat)}, (rlx_attrs_t){0},
                 out);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_nn_group_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                     rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *s, *b;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &s));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 2, &b));
  if (x->ndim < 3 || x->ndim > 18) return rlx_onnx_error(node, "X must have rank 3 to 18 (N, C, D...), got %d", x->ndim);
  if (!rlx_onnx_has_attr(node, "num_groups")) return rlx_onnx_error(node, "the num_groups attribute is required");
  int64_t g = rlx_onnx_attr_int(node, "num_groups", 1), c;
  if (g < 1) return rlx_onnx_error(node, "num_groups must be >= 1, got %lld", (long long)g);
  if (!x->shape || !rlx_expr_is_const_int(x->shape[1], &c))
    return nn_unsupported(node, "the channel count of X must be static");
  if (c % g != 0) return rlx_onnx_error(node, "%lld channels are not divisible into %lld groups", (long long)c, (long long)g);
  rlx_relax_expr_t *scale = inputs[1], *bias = inputs[2];
  int64_t sn;
  if (rlx_onnx_opset(im) < 21 && s->ndim == 1 && s->shape && rlx_expr_is_const_int(s->shape[0], &sn) && sn == g &&
      g != c) {
    RLX_RETURN_IF_ERROR(per_channel(im, node, scale, g, c, &scale));
    RLX_RETURN_IF_ERROR(per_channel(im, node, bias, g, c, &bias));
  }
  int64_t axes[16];
  for (int i = 2; i < x->ndim; i++) axes[i - 2] = i;
  rlx_attrs_t at = {0};
  at = rlx_attrs_set(ctx, at, "num_groups", rlx_attr_int(g));
  at = rlx_attrs_set(ctx, at, "channel_axis", rlx_attr_int(1));
  at = rlx_attrs_set(ctx, at, "axes", rlx_attr_ints(x->ndim - 2, axes));
  at = rlx_attrs_set(ctx, at, "epsilon", rlx_attr_float(rlx_onnx_attr_float(node, "epsilon", 1e-5)));
  return annotate(node,
                  nn_call(im, RLX_OP_GROUP_NORM, 3, (rlx_relax_expr_t*[]){inputs[0], scale, bias}, at, &outputs[0]));
}

/* ---------------------------------------------------------------- MeanVarianceNormalization */
/* (X - mean) / (sqrt(population variance) + 1e-9) over axes (default [0, 2, 3]), as ONNX's
 * function body computes it. */
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_mvn(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  if (!rlx_dtype_is_float(x->dtype)) return rlx_onnx_error(node, "X must be a float tensor");
  const int64_t* av;
  int n = rlx_onnx_attr_ints(node, "axes", &av);
  int64_t dflt[3] = {0, 2, 3}, axes[16];
  if (n < 0) {
    if (x->ndim < 4) return rlx_onnx_error(node, "the default axes [0, 2, 3] need rank >= 4, got %d", x->ndim);
    n = 3;
    av = dflt;
  }
  if (n > 16) return nn_unsupported(node, "more than 16 axes");
  for (int i = 0; i < n; i++) {
    if (av[i] < -x->ndim || av[i] >= x->ndim)
      return rlx_onnx_error(node, "axis %lld is out of range for rank %d", (long long)av[i], x->ndim);
    axes[i] = av[i] < 0 ? av[i] + x->ndim : av[i];
  }
  rlx_attrs_t rat = rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_ints(n, axes));
  rat = rlx_attrs_set(ctx, rat, "keepdims", rlx_attr_bool(true));
  rlx_relax_expr_t *mean, *var, *eps, *d;
  RLX_RETURN_IF_ERROR(annotate(node, nn_call(im, RLX_OP_MEAN, 1, inputs, rat, &mean)));
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_VARIANCE, 1, inputs, rat, &var));
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_SQRT, 1, &var, (rlx_attrs_t){0}, &var));
  RLX_RETURN_IF_ERROR(nn_scalar(im, node, x->dtype, 1e-9, &eps));
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_ADD, 2, (rlx_relax_expr_t*[]){var, eps}, (rlx_attrs_t){0}, &var));
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_SUBTRACT, 2, (rlx_relax_expr_t*[]){inputs[0], mean}, (rlx_attrs_t){0}, &d));
  return nn_call(im, RLX_OP_DIVIDE, 2, (rlx_relax_expr_t*[]){d, var}, (rlx_attrs_t){0}, &outputs[0]);
}

/* ---------------------------------------------------------------- LpNormalization */
/* x / ||x||_p along axis (p = 1: sum of |x|; p = 2: sqrt of the sum of squares). */
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_lp_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                  rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  if (!rlx_dtype_is_float(x->dtype)) return rlx_onnx_error(node, "the input must be a float tensor");
  int64_t axis = rlx_onnx_attr_int(node, "axis", -1), p = rlx_onnx_attr_int(node, "p", 2);
  if (x->ndim < 1 || axis < -x->ndim || axis >= x->ndim)
    return rlx_onnx_error(node, "axis %lld is out of range for rank %d", (long long)axis, x->ndim);
  if (p != 1 && p != 2) return rlx_onnx_error(node, "p must be 1 or 2, got %lld", (long long)p);
  if (axis < 0) axis += x->ndim;
  rlx_attrs_t rat = rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_ints(1, &axis));
  rat = rlx_attrs_set(ctx, rat, "keepdims", rlx_attr_bool(true));
  rlx_relax_expr_t* t;
  RLX_RETURN_IF_ERROR(nn_call(im, p == 1 ? RLX_OP_ABS : RLX_OP_SQUARE, 1, inputs, (rlx_attrs_t){0}, &t));
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_SUM, 1, &t, rat, &t));
  if (p == 2) RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_SQRT, 1, &t, (rlx_attrs_t){0}, &t));
  return nn_call(im, RLX_OP_DIVIDE, 2, (rlx_relax_expr_t*[]){inputs[0], t}, (rlx_attrs_t){0}, &outputs[0]);
}

/* ---------------------------------------------------------------- LRN */
typedef struct {
  rlx_te_tensor_t* x;
  rlx_te_tensor_t* sq;
  int64_t size;
  double alpha, beta, bias;
} lrn_t;

/* sq[n, c, ...] = sum over channels c - floor((size-1)/2) .. c + ceil((size-1)/2) inside
 * [0, C) of x^2. */
static rlx_expr_t* lrn_sq_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  lrn_t* l = user;
  int nd = l->x->buffer->ndim;
  rlx_expr_t* cdim = l->x->buffer->shape[1];
  rlx_dtype_t it = idx[1]->hdr.dtype;
  rlx_iter_var_t* r = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, it, 0), rlx_ir_int(ctx, it, l->size), "rc");
  rlx_expr_t* ch = rlx_ir_add(ctx, rlx_ir_sub(ctx, &idx[1]->hdr, rlx_ir_int(ctx, it, (l->size - 1) / 2)), &r->var->hdr);
  rlx_expr_t* ix[16];
  for (int i = 0; i < nd; i++) ix[i] = &idx[i]->hdr;
  ix[1] = ch;
  rlx_expr_t* v = rlx_te_load(ctx, l->x, nd, ix);
  rlx_expr_t* cond = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, ch, rlx_ir_int(ctx, it, 0)),
                                rlx_ir_cmp(ctx, RLX_EXPR_LT, ch, rlx_ir_cast(ctx, it, cdim)));
  return rlx_te_reduce(ctx, RLX_REDUCE_SUM, rlx_ir_mul(ctx, v, v), 1, &r, cond);
}

/* y = x / (bias + alpha / size * sq) ^ beta */
static rlx_expr_t* lrn_out_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  lrn_t* l = user;
  int nd = l->x->buffer->ndim;
  rlx_dtype_t dt = l->x->buffer->dtype;
  rlx_expr_t* ix[16];
  for (int i = 0; i < nd; i++) ix[i] = &idx[i]->hdr;
  rlx_expr_t* d = rlx_ir_add(ctx, rlx_ir_float(ctx, dt, l->bias),
                             rlx_ir_mul(ctx, rlx_ir_float(ctx, dt, l->alpha / (double)l->size), rlx_te_load(ctx, l->sq, nd, ix)));
  rlx_expr_t* p = rlx_ir_call(ctx, dt, "pow", 2, (rlx_expr_t*[]){d, rlx_ir_float(ctx, dt, l->beta)});
  return rlx_ir_div(ctx, rlx_te_load(ctx, l->x, nd, ix), p);
}

static RLX_MUST_USE rlx_status_t* te_lrn(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  lrn_t* l = user;
  l->x = in[0];
  rlx_tir_buffer_t* b = in[0]->buffer;
  l->sq = rlx_te_compute(ctx, b->ndim, b->shape, lrn_sq_body, l, "lrn_sqsum", "");
  return *out = rlx_te_compute(ctx, b->ndim, b->shape, lrn_out_body, l, "lrn", ""), NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_nn_lrn(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  if (!rlx_dtype_is_float(x->dtype) || rlx_dtype_is_void(x->dtype)) return rlx_onnx_error(node, "X must be a float tensor");
  if (x->ndim < 3 || x->ndim > 16) return rlx_onnx_error(node, "X must have rank 3 to 16 (N, C, D...), got %d", x->ndim);
  if (!x->shape) return nn_unsupported(node, "X must have a known shape");
  if (!rlx_onnx_has_attr(node, "size")) return rlx_onnx_error(node, "the size attribute is required");
  lrn_t l = {0};
  l.size = rlx_onnx_attr_int(node, "size", 1);
  if (l.size < 1) return rlx_onnx_error(node, "size must be >= 1, got %lld", (long long)l.size);
  l.alpha = rlx_onnx_attr_float(node, "alpha", 1e-4);
  l.beta = rlx_onnx_attr_float(node, "beta", 0.75);
  l.bias = rlx_onnx_attr_float(node, "bias", 1.0);
  return annotate(node, rlx_onnx_emit_te(im, te_lrn, &l, 1, inputs, "lrn", &outputs[0]));
}
