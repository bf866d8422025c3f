/* ONNX converters, family "nn", part 2 (see ops_nn.c): MaxPool, AveragePool, LpPool and the
 * global pools over 1 to 3 spatial dims, and MaxUnpool.
 *
 * Window pools map onto relax.nn.max_pool<k>d / avg_pool<k>d (MaxPool's Indices output is one
 * emit_te over the input and the pooled max). ONNX's ceil_mode follows
 * PyTorch: the output rounds up, but a last window that would start past the input and its
 * begin padding is dropped. Relax's ceil_mode only rounds up, so where that rule removes a
 * window the pooled result is sliced to drop it. */
#include <string.h>

#include "ops_nn_internal.h"

typedef struct {
  int nsp;
  int64_t kernel[NN_MAX_SP], strides[NN_MAX_SP], dilations[NN_MAX_SP], pads[2 * NN_MAX_SP];
  bool ceil_mode;
} pool_attrs_t;

static RLX_MUST_USE rlx_status_t* pool_attrs(const rlx_onnx_node_t* node, rlx_sinfo_tensor_t* x, bool has_dilations,
                                pool_attrs_t* a) {
  int nsp = a->nsp = x->ndim - 2;
  if (nsp < 1 || nsp > NN_MAX_SP) return nn_unsupported(node, "input of rank %d (only 1-D to 3-D pools)", x->ndim);
  const int64_t* ks;
  int nk = rlx_onnx_attr_ints(node, "kernel_shape", &ks);
  if (nk < 0) return rlx_onnx_error(node, "the kernel_shape attribute is required");
  if (nk != nsp) return rlx_onnx_error(node, "kernel_shape has %d values, expected %d", nk, nsp);
  RLX_RETURN_IF_ERROR(nn_attr_ints(node, "strides", nsp, 1, a->strides));
  RLX_RETURN_IF_ERROR(nn_attr_ints(node, "dilations", nsp, 1, a->dilations));
  if (!has_dilations)
    for (int i = 0; i < nsp; i++) a->dilations[i] = 1;
  for (int i = 0; i < nsp; i++) {
    a->kernel[i] = ks[i];
    if (ks[i] < 1 || a->strides[i] < 1 || a->dilations[i] < 1)
      return rlx_onnx_error(node, "kernel_shape, strides and dilations must be >= 1");
  }
  RLX_RETURN_IF_ERROR(nn_window_pads(node, x, nsp, a->kernel, a->strides, a->dilations, a->pads));
  int64_t cm = rlx_onnx_attr_int(node, "ceil_mode", 0);
  if (cm != 0 && cm != 1) return rlx_onnx_error(node, "ceil_mode must be 0 or 1, got %lld", (long long)cm);
  a->ceil_mode = cm == 1;
  return NULL;
}

/* The windows ONNX's ceil_mode drops: per listed axis, the output keeps [0, end). */
typedef struct {
  int n;
  int64_t axes[NN_MAX_SP], begin[NN_MAX_SP], end[NN_MAX_SP];
} pool_drop_t;

/* Finds the dims where ONNX's ceil_mode drops the last window (see the file comment); the
 * pool then runs with Relax's ceil_mode and drop_windows slices those windows off. */
static RLX_MUST_USE rlx_status_t* ceil_drops(const rlx_onnx_node_t* node, rlx_sinfo_tensor_t* x, const pool_attrs_t* a,
                                pool_drop_t* d) {
  d->n = 0;
  if (!a->ceil_mode) return NULL;
  int nsp = a->nsp;
  for (int i = 0; i < nsp; i++) {
    int64_t in, ek = (a->dilations[i] * (a->kernel[i] - 1)) + 1;
    if (!x->shape || !rlx_expr_is_const_int(x->shape[2 + i], &in)) {
      /* the last window can start in the end padding only when stride > ek - 1 - pad_end */
      if (a->strides[i] >= ek + 1 - a->pads[nsp + i])
        return nn_unsupported(node, "ceil_mode with a symbolic size of spatial dim %d (stride %lld, window %lld)", i,
                              (long long)a->strides[i], (long long)ek);
      continue;
    }
    int64_t span = in + a->pads[i] + a->pads[nsp + i] - ek;
    if (span < 0) continue; /* the op reports the window not fitting */
    int64_t fl = span / a->strides[i] + 1, ce = (span + a->strides[i] - 1) / a->strides[i] + 1;
    if (ce > fl && (ce - 1) * a->strides[i] >= in + a->pads[i]) {
      d->axes[d->n] = 2 + i;
      d->begin[d->n] = 0;
      d->end[d->n++] = ce - 1;
    }
  }
  return NULL;
}

static RLX_MUST_USE rlx_status_t* drop_windows(rlx_onnx_importer_t* im, const pool_drop_t* d, rlx_relax_expr_t* y,
                                  rlx_relax_expr_t** out) {
  if (!d->n) return *out = y, NULL;
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_attrs_t at = rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axes", rlx_attr_ints(d->n, (int64_t*)d->axes));
  at = rlx_attrs_set(ctx, at, "begin", rlx_attr_ints(d->n, (int64_t*)d->begin));
  at = rlx_attrs_set(ctx, at, "end", rlx_attr_ints(d->n, (int64_t*)d->end));
  return nn_call(im, RLX_OP_STRIDED_SLICE, 1, &y, at, out);
}

static rlx_attrs_t relax_pool_attrs(rlx_ctx_t* ctx, const pool_attrs_t* a) {
  int nsp = a->nsp;
  rlx_attrs_t at = {0};
  at = rlx_attrs_set(ctx, at, "pool_size", rlx_attr_ints(nsp, (int64_t*)a->kernel));
  at = rlx_attrs_set(ctx, at, "strides", rlx_attr_ints(nsp, (int64_t*)a->strides));
  at = rlx_attrs_set(ctx, at, "dilation", rlx_attr_ints(nsp, (int64_t*)a->dilations));
  at = rlx_attrs_set(ctx, at, "padding", rlx_attr_ints(2 * nsp, (int64_t*)a->pads));
  at = rlx_attrs_set(ctx, at, "ceil_mode", rlx_attr_bool(a->ceil_mode));
  return at;
}

/* Unsigned max reductions are widened to a signed type (and cast back): the TIR simplifier
 * currently rewrites max(a, b) of two unsigned values to a (it bounds a - b in the unsigned
 * dtype, so the difference looks >= 0), which would make every max the accumulator's
 * initial 0. *out = x itself for other dtypes. */
static RLX_MUST_USE rlx_status_t* widen_unsigned(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, rlx_dtype_t dt,
                                    rlx_relax_expr_t** out) {
  *out = x;
  if (dt.code != RLX_DT_UINT || dt.bits < 8 || dt.bits > 32) return NULL;
  rlx_dtype_t w = rlx_dtype(RLX_DT_INT, dt.bits * 2, 1);
  return nn_call(im, RLX_OP_ASTYPE, 1, &x, rlx_attrs_set(rlx_onnx_ctx(im), (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(w)),
                 out);
}

/* Casts a widened result y back to dt (no-op when y has dt). */
static RLX_MUST_USE rlx_status_t* narrow_back(rlx_onnx_importer_t* im, rlx_relax_expr_t* y, rlx_dtype_t dt, rlx_relax_expr_t** out) {
  rlx_sinfo_tensor_t* t = nn_sinfo(y);
  if (!t || (t->dtype.code == dt.code && t->dtype.bits == dt.bits)) return *out = y, NULL;
  return nn_call(im, RLX_OP_ASTYPE, 1, &y, rlx_attrs_set(rlx_onnx_ctx(im), (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(dt)),
                 out);
}

/* ---------------------------------------------------------------- MaxPool */
/* The Indices output: for each output position, the smallest flat index (over the whole
 * tensor: row-major, or with the spatial dims column-major for storage_order 1) among the
 * window's input positions holding the max (the first in scan order for row-major). */
typedef struct {
  const pool_attrs_t* a;
  bool column_major;
  rlx_te_tensor_t *x, *y;
} argmax_t;

static rlx_expr_t* argmax_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  argmax_t* am = user;
  const pool_attrs_t* a = am->a;
  int nsp = a->nsp, nd = nsp + 2;
  rlx_dtype_t it = rlx_dt_int64();
  rlx_expr_t* const* xs = am->x->buffer->shape;
  rlx_iter_var_t* r[NN_MAX_SP];
  rlx_expr_t *pos[NN_MAX_SP] = {0}, *xi[NN_MAX_SP + 2] = {0}, *yi[NN_MAX_SP + 2] = {0}, *valid = NULL;
  for (int i = 0; i < nd; i++) yi[i] = rlx_ir_cast(ctx, it, &idx[i]->hdr);
  xi[0] = yi[0];
  xi[1] = yi[1];
  for (int i = 0; i < nsp; i++) {
    r[i] = rlx_te_reduce_axis(ctx, rlx_ir_i64(ctx, 0), rlx_ir_i64(ctx, a->kernel[i]), NULL);
    pos[i] = rlx_ir_add(ctx,
                        rlx_ir_sub(ctx, rlx_ir_mul(ctx, yi[2 + i], rlx_ir_i64(ctx, a->strides[i])),
                                   rlx_ir_i64(ctx, a->pads[i])),
                        rlx_ir_mul(ctx, rlx_ir_cast(ctx, it, &r[i]->var->hdr), rlx_ir_i64(ctx, a->dilations[i])));
    rlx_expr_t* dim = rlx_ir_cast(ctx, it, xs[2 + i]);
    rlx_expr_t* in = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_GE, pos[i], rlx_ir_i64(ctx, 0)),
                                rlx_ir_cmp(ctx, RLX_EXPR_LT, pos[i], dim));
    valid = valid ? rlx_ir_and(ctx, valid, in) : in;
    /* clamped, so the load is in bounds even where the position is padding */
    xi[2 + i] = rlx_ir_max(ctx, rlx_ir_min(ctx, pos[i], rlx_ir_sub(ctx, dim, rlx_ir_i64(ctx, 1))), rlx_ir_i64(ctx, 0));
  }
  rlx_expr_t* flat = rlx_ir_add(ctx, rlx_ir_mul(ctx, xi[0], rlx_ir_cast(ctx, it, xs[1])), xi[1]);
  if (!am->column_major) {
    for (int i = 0; i < nsp; i++) flat = rlx_ir_add(ctx, rlx_ir_mul(ctx, flat, rlx_ir_cast(ctx, it, xs[2 + i])), xi[2 + i]);
  } else {
    rlx_expr_t* sp = xi[1 + nsp];
    for (int i = nsp - 2; i >= 0; i--) sp = rlx_ir_add(ctx, rlx_ir_mul(ctx, sp, rlx_ir_cast(ctx, it, xs[2 + i])), xi[2 + i]);
    for (int i = 0; i < nsp; i++) flat = rlx_ir_mul(ctx, flat, rlx_ir_cast(ctx, it, xs[2 + i]));
    flat = rlx_ir_add(ctx, flat, sp);
  }
  rlx_expr_t* hit = rlx_ir_and(ctx, valid, rlx_ir_cmp(ctx, RLX_EXPR_EQ, rlx_te_load(ctx, am->x, nd, xi),
                                                      rlx_te_load(ctx, am->y, nd, yi)));
  return rlx_te_min(ctx, rlx_ir_select(ctx, hit, flat, rlx_ir_i64(ctx, INT64_MAX)), nsp, r);
}

static RLX_MUST_USE rlx_status_t* te_argmax(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  argmax_t* am = user;
  am->x = in[0];
  am->y = in[1];
  *out = rlx_te_compute(ctx, in[1]->buffer->ndim, in[1]->buffer->shape, argmax_body, am, "max_pool_indices", "");
  return NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_nn_max_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                   rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  int64_t so = rlx_onnx_attr_int(node, "storage_order", 0);
  if (so != 0 && so != 1) return rlx_onnx_error(node, "storage_order must be 0 or 1, got %lld", (long long)so);
  pool_attrs_t a;
  RLX_RETURN_IF_ERROR(pool_attrs(node, x, true, &a));
  pool_drop_t drop;
  RLX_RETURN_IF_ERROR(ceil_drops(node, x, &a, &drop));
  rlx_relax_expr_t *xw, *y;
  RLX_RETURN_IF_ERROR(widen_unsigned(im, inputs[0], x->dtype, &xw));
  RLX_RETURN_IF_ERROR(rlx_status_annotate(
      nn_call(im, nn_op_dims(RLX_OP_MAX_POOL1D, a.nsp), 1, &xw, relax_pool_attrs(ctx, &a), &y),
      "node '%s' (%s)", node->name, node->op_type));
  RLX_RETURN_IF_ERROR(drop_windows(im, &drop, y, &y));
  RLX_RETURN_IF_ERROR(narrow_back(im, y, x->dtype, &outputs[0]));
  if (!nn_wants_output(node, 1)) return NULL;
  rlx_sinfo_tensor_t* ys = nn_sinfo(outputs[0]);
  if (!x->shape || !ys || !ys->shape) return nn_unsupported(node, "the Indices output needs known shapes");
  argmax_t am = {.a = &a, .column_major = so == 1};
  return rlx_status_annotate(
      rlx_onnx_emit_te(im, te_argmax, &am, 2, (rlx_relax_expr_t*[]){inputs[0], outputs[0]}, "max_pool_indices",
                       &outputs[1]),
      "node '%s' (%s)", node->name, node->op_type);
}

/* ---------------------------------------------------------------- AveragePool */
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_average_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                       rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  pool_attrs_t a;
  RLX_RETURN_IF_ERROR(pool_attrs(node, x, rlx_onnx_opset(im) >= 19, &a));
  int64_t cip = rlx_onnx_attr_int(node, "count_include_pad", 0);
  if (cip != 0 && cip != 1) return rlx_onnx_error(node, "count_include_pad must be 0 or 1, got %lld", (long long)cip);
  pool_drop_t drop;
  RLX_RETURN_IF_ERROR(ceil_drops(node, x, &a, &drop));
  rlx_attrs_t at = relax_pool_attrs(ctx, &a);
  at = rlx_attrs_set(ctx, at, "count_include_pad", rlx_attr_bool(cip == 1));
  rlx_relax_expr_t* y;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(nn_call(im, nn_op_dims(RLX_OP_AVG_POOL1D, a.nsp), 1, inputs, at, &y),
                                          "node '%s' (%s)", node->name, node->op_type));
  return drop_windows(im, &drop, y, &outputs[0]);
}

/* ---------------------------------------------------------------- LpPool */
/* |x|^p for the Lp pools. */
static RLX_MUST_USE rlx_status_t* abs_pow(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* x,
                             rlx_dtype_t dt, double p, rlx_relax_expr_t** out) {
  rlx_relax_expr_t *ax, *pe;
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_ABS, 1, &x, (rlx_attrs_t){0}, &ax));
  RLX_RETURN_IF_ERROR(nn_scalar(im, node, dt, p, &pe));
  return nn_call(im, RLX_OP_POWER, 2, (rlx_relax_expr_t*[]){ax, pe}, (rlx_attrs_t){0}, out);
}

static RLX_MUST_USE rlx_status_t* lp_p(const rlx_onnx_node_t* node, rlx_sinfo_tensor_t* x, double* p) {
  if (!rlx_dtype_is_float(x->dtype)) return rlx_onnx_error(node, "the input must be a float tensor");
  /* opset 1 had a float p; later versions an int */
  *p = rlx_onnx_attr_float(node, "p", (double)rlx_onnx_attr_int(node, "p", 2));
  if (!(*p > 0)) return rlx_onnx_error(node, "p must be > 0, got %g", *p);
  return NULL;
}

/* (sum over the window of |x|^p)^(1/p): an average pool counting padding (padding adds 0)
 * times the window size. */
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_lp_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                  rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  double p = 0;
  RLX_RETURN_IF_ERROR(lp_p(node, x, &p));
  pool_attrs_t a;
  RLX_RETURN_IF_ERROR(pool_attrs(node, x, rlx_onnx_opset(im) >= 18, &a));
  pool_drop_t drop;
  RLX_RETURN_IF_ERROR(ceil_drops(node, x, &a, &drop));
  rlx_attrs_t at = relax_pool_attrs(ctx, &a);
  at = rlx_attrs_set(ctx, at, "count_include_pad", rlx_attr_bool(true));
  rlx_relax_expr_t *y, *s;
  RLX_RETURN_IF_ERROR(abs_pow(im, node, inputs[0], x->dtype, p, &y));
  RLX_RETURN_IF_ERROR(rlx_status_annotate(nn_call(im, nn_op_dims(RLX_OP_AVG_POOL1D, a.nsp), 1, &y, at, &y),
                                          "node '%s' (%s)", node->name, node->op_type));
  RLX_RETURN_IF_ERROR(drop_windows(im, &drop, y, &y));
  double k = 1;
  for (int i = 0; i < a.nsp; i++) k *= (double)a.kernel[i];
  RLX_RETURN_IF_ERROR(nn_scalar(im, node, x->dtype, k, &s));
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_MULTIPLY, 2, (rlx_relax_expr_t*[]){y, s}, (rlx_attrs_t){0}, &y));
  RLX_RETURN_IF_ERROR(nn_scalar(im, node, x->dtype, 1.0 / p, &s));
  return nn_call(im, RLX_OP_POWER, 2, (rlx_relax_expr_t*[]){y, s}, (rlx_attrs_t){0}, &outputs[0]);
}

/* ---------------------------------------------------------------- global pools */
/* A reduction op over every axis after the channel axis, keeping dims. */
static RLX_MUST_USE rlx_status_t* reduce_spatial(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_op_id_t op,
                                    rlx_relax_expr_t* x, int ndim, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (ndim < 3) return rlx_onnx_error(node, "the input must have rank >= 3 (N, C, spatial...), got %d", ndim);
  int64_t axes[16];
  if (ndim - 2 > 16) return nn_unsupported(node, "rank %d", ndim);
  for (int i = 2; i < ndim; i++) axes[i - 2] = i;
  rlx_attrs_t at = rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_ints(ndim - 2, axes));
  at = rlx_attrs_set(ctx, at, "keepdims", rlx_attr_bool(true));
  return nn_call(im, op, 1, &x, at, out);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_nn_global_average_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                              rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  if (!rlx_dtype_is_float(x->dtype)) return rlx_onnx_error(node, "the input must be a float tensor");
  return reduce_spatial(im, node, RLX_OP_MEAN, inputs[0], x->ndim, &outputs[0]);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_nn_global_max_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                          rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  rlx_relax_expr_t *xw, *y;
  RLX_RETURN_IF_ERROR(widen_unsigned(im, inputs[0], x->dtype, &xw));
  RLX_RETURN_IF_ERROR(reduce_spatial(im, node, RLX_OP_MAX, xw, x->ndim, &y));
  return narrow_back(im, y, x->dtype, &outputs[0]);
}

RLX_MUST_USE rlx_status_t* rlx_onnx_nn_global_lp_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                         rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  double p = 0;
  RLX_RETURN_IF_ERROR(lp_p(node, x, &p));
  rlx_relax_expr_t *y, *s;
  RLX_RETURN_IF_ERROR(abs_pow(im, node, inputs[0], x->dtype, p, &y));
  RLX_RETURN_IF_ERROR(reduce_spatial(im, node, RLX_OP_SUM, y, x->ndim, &y));
  RLX_RETURN_IF_ERROR(nn_scalar(im, node, x->dtype, 1.0 / p, &s));
  return nn_call(im, RLX_OP_POWER, 2, (rlx_relax_expr_t*[]){y, s}, (rlx_attrs_t){0}, &outputs[0]);
}

/* ---------------------------------------------------------------- MaxUnpool */
/* Dim j of a run-time output_shape (args: X, I, output_shape): its value when it is at least
 * the unpooled size (exactly it for batch and channels), else -1, which the VM reports. */
typedef struct {
  int64_t min[NN_MAX_SP + 2];
  int n_exact;
} unpool_user_t;

static rlx_expr_t* unpool_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  unpool_user_t* u = user;
  rlx_expr_t* v = rlx_onnx_load_int(ctx, ins[2], j);
  rlx_expr_t* ok = rlx_ir_cmp(ctx, j < u->n_exact ? RLX_EXPR_EQ : RLX_EXPR_GE, v, rlx_ir_i64(ctx, u->min[j]));
  return rlx_ir_select(ctx, ok, v, rlx_ir_i64(ctx, -1));
}

static RLX_MUST_USE rlx_status_t* unpool_scatter(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                    const rlx_sinfo_tensor_t* x, const int64_t* in, const int64_t* out, int nd,
                                    rlx_expr_t* const* dims, rlx_relax_expr_t** outputs);

/* Zeros of the output shape with X scattered to the flat indices I (as MaxPool produces
 * them: over the whole output tensor). The output shape is output_shape (an input: a
 * constant, or values read at run time, each checked to be at least the unpooled size) or
 * (in - 1) * stride + kernel - pad_begin - pad_end per spatial dim; X's shape must be static. */
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_max_unpool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                     rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *ix;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &ix));
  int nd = x->ndim, nsp = nd - 2;
  if (nsp < 1 || nsp > NN_MAX_SP) return nn_unsupported(node, "input of rank %d (only 1-D to 3-D)", nd);
  if (ix->ndim != nd) return rlx_onnx_error(node, "I has rank %d, X rank %d", ix->ndim, nd);
  int64_t in[NN_MAX_SP + 2], out[NN_MAX_SP + 2], k[NN_MAX_SP], st[NN_MAX_SP], pads[2 * NN_MAX_SP];
  for (int i = 0; i < nd; i++)
    if (!x->shape || !rlx_expr_is_const_int(x->shape[i], &in[i]))
      return nn_unsupported(node, "X must have a static shape");
  const int64_t* ks;
  if (rlx_onnx_attr_ints(node, "kernel_shape", &ks) != nsp)
    return rlx_onnx_error(node, "kernel_shape must have %d values", nsp);
  RLX_RETURN_IF_ERROR(nn_attr_ints(node, "strides", nsp, 1, st));
  RLX_RETURN_IF_ERROR(nn_attr_ints(node, "pads", 2 * nsp, 0, pads));
  out[0] = in[0];
  out[1] = in[1];
  for (int i = 0; i < nsp; i++) {
    k[i] = ks[i];
    if (k[i] < 1 || st[i] < 1) return rlx_onnx_error(node, "kernel_shape and strides must be >= 1");
    out[2 + i] = (in[2 + i] - 1) * st[i] + k[i] - pads[i] - pads[nsp + i];
  }
  rlx_expr_t* dims[NN_MAX_SP + 2];
  for (int i = 0; i < nd; i++) dims[i] = rlx_ir_i64(ctx, out[i]);
  rlx_onnx_tensor_t osc;
  if (node->n_inputs > 2 && inputs[2] && !rlx_onnx_const(im, inputs[2], &osc)) {
    /* output_shape at run time: its values become the dims, each checked (a -1 fails) */
    rlx_sinfo_tensor_t* os_t;
    RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 2, &os_t));
    int64_t len = 0;
    if (os_t->ndim != 1 || !os_t->shape || !rlx_expr_is_const_int(os_t->shape[0], &len) || len != nd ||
        !rlx_dtype_is_int(os_t->dtype))
      return rlx_onnx_error(node, "output_shape must be a 1-d integer tensor of %d values", nd);
    unpool_user_t u;
    for (int i = 0; i < nd; i++) u.min[i] = out[i];
    u.n_exact = 2;
    rlx_expr_t** rd = NULL;
    RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, unpool_dim, &u, 3, inputs, nd, &rd));
    for (int i = 0; i < nd; i++) dims[i] = i < 2 ? rlx_ir_i64(ctx, in[i]) : rd[i];
    return unpool_scatter(im, node, inputs, x, in, out, nd, dims, outputs);
  }
  if (node->n_inputs > 2 && inputs[2]) {
    int64_t* os;
    int n;
    RLX_RETURN_IF_ERROR(rlx_onnx_const_ints(im, node, 2, inputs[2], &os, &n));
    if (n != nd) return rlx_onnx_error(node, "output_shape has %d values, X has rank %d", n, nd);
    for (int i = 0; i < nd; i++) {
      if (os[i] < (i < 2 ? in[i] : out[i]) || (i < 2 && os[i] != in[i]))
        return rlx_onnx_error(node, "output_shape[%d] = %lld is smaller than the unpooled size %lld", i,
                              (long long)os[i], (long long)(i < 2 ? in[i] : out[i]));
      dims[i] = rlx_ir_i64(ctx, os[i]);
    }
  }
  return unpool_scatter(im, node, inputs, x, in, out, nd, dims, outputs);
}


/* X (static shape in) scattered to the flat indices I of the output, of shape dims (the
 * unpooled shape out, or output_shape: indices are positions in the output, as PyTorch's
 * max_unpool takes them). */
static RLX_MUST_USE rlx_status_t* unpool_scatter(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                    const rlx_sinfo_tensor_t* x, const int64_t* in, const int64_t* out, int nd,
                                    rlx_expr_t* const* dims, rlx_relax_expr_t** outputs) {
  (void)out;
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int64_t n_in = 1;
  rlx_expr_t* eout = rlx_ir_i64(ctx, 1);
  for (int i = 0; i < nd; i++) {
    n_in *= in[i];
    eout = rlx_ir_mul(ctx, eout, dims[i]);
  }
  eout = rlx_ir_simplify(ctx, eout);
  rlx_expr_t* ein = rlx_ir_i64(ctx, n_in);
  rlx_relax_expr_t *z, *xf, *idf, *y;
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_ZEROS, 1, (rlx_relax_expr_t*[]){rlx_relax_shape_expr(ctx, 1, &eout)},
                              rlx_attrs_set(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(x->dtype)), &z));
  rlx_relax_expr_t* flat = rlx_relax_shape_expr(ctx, 1, &ein);
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_RESHAPE, 2, (rlx_relax_expr_t*[]){inputs[0], flat}, (rlx_attrs_t){0}, &xf));
  RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_RESHAPE, 2, (rlx_relax_expr_t*[]){inputs[1], flat}, (rlx_attrs_t){0}, &idf));
  RLX_RETURN_IF_ERROR(rlx_status_annotate(
      nn_call(im, RLX_OP_SCATTER_ELEMENTS, 3, (rlx_relax_expr_t*[]){z, idf, xf},
              rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(0)), &y),
      "node '%s' (%s)", node->name, node->op_type));
  return nn_call(im, RLX_OP_RESHAPE, 2, (rlx_relax_expr_t*[]){y, rlx_relax_shape_expr(ctx, nd, dims)}, (rlx_attrs_t){0},
                 &outputs[0]);
}

