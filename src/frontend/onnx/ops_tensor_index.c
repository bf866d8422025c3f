/* ONNX converters, family "tensor": index and value-producing ops (see ops_tensor_internal.h).
 *
 * Gather, GatherElements, OneHot, Trilu, Range, ConstantOfShape and Compress map onto Relax
 * ops (take, gather_elements, one_hot, tril/triu, arange, full); GatherND, ScatterElements,
 * ScatterND, EyeLike, Size, TopK and ReverseSequence are TE functions emitted with emit_te.
 * NonZero has a data-dependent shape: it is folded when its input is a constant and
 * unsupported otherwise.
 *
 * Index safety: indices read at run time are wrapped (negative counts from the end) and
 * clamped into range before a load, so bad indices give wrong values, never a crash.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../topi/basic.h"
#include "ops_tensor_internal.h"

static bool is_index_dtype(rlx_dtype_t t) { return t.code == RLX_DT_INT && (t.bits == 32 || t.bits == 64); }

static rlx_expr_t* i64(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_i64(ctx, v); }
static rlx_expr_t* as_i64(rlx_ctx_t* ctx, rlx_expr_t* e) { return rlx_ir_cast(ctx, rlx_dt_int64(), e); }

/* k (int64) wrapped (negative + ext) and clamped into [0, ext). */
static rlx_expr_t* wrap_clamp(rlx_ctx_t* ctx, rlx_expr_t* k, rlx_expr_t* ext) {
  ext = as_i64(ctx, ext);
  k = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, k, i64(ctx, 0)), rlx_ir_add(ctx, k, ext), k);
  k = rlx_ir_min(ctx, k, rlx_ir_sub(ctx, ext, i64(ctx, 1)));
  return rlx_ir_max(ctx, k, i64(ctx, 0));
}

static rlx_expr_t** idx_exprs(rlx_ctx_t* ctx, int n, rlx_var_t* const* idx) {
  rlx_expr_t** e = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) e[d] = &idx[d]->hdr;
  return e;
}

static RLX_MUST_USE rlx_status_t* need_index_dtype(const rlx_onnx_node_t* node, int i, const rlx_sinfo_tensor_t* t) {
  if (is_index_dtype(t->dtype)) return NULL;
  char b[32];
  return rlx_onnx_error(node, "input %d (%s) must be int32 or int64, got %s", i, node->inputs[i],
                        rlx_dtype_str(t->dtype, b));
}

/* Indices for an op that reads (or writes) along an axis of extent `ext` without a range check
 * of its own: constant indices are checked now; run-time ones are clipped into [-ext, ext)
 * so that a bad index gives a wrong value, never an access outside the tensor. */
static RLX_MUST_USE rlx_status_t* safe_indices(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* ind,
                                  rlx_expr_t* ext_e, rlx_relax_expr_t** out) {
  *out = ind;
  int64_t ext;
  if (!ext_e || !rlx_expr_is_const_int(ext_e, &ext)) return NULL;
  rlx_onnx_tensor_t c;
  if (rlx_onnx_const(im, ind, &c)) {
    for (int64_t k = 0, n = ot_numel(&c); k < n; k++) {
      int64_t v = ot_elem_i64(&c, k);
      if (v < -ext || v >= ext)
        return rlx_onnx_error(node, "index %lld is out of range for an axis of extent %lld", (long long)v, (long long)ext);
    }
    return NULL;
  }
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "min", rlx_attr_float((double)-ext));
  attrs = ot_attr(ctx, attrs, "max", rlx_attr_float((double)(ext - 1)));
  return ot_op(im, RLX_OP_CLIP, 1, &ind, attrs, out);
}

/* ------------------------------------------------------------------ Gather */
OT_CONVERTER(ot_gather) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *ind;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, false, &ind));
  RLX_RETURN_IF_ERROR(need_index_dtype(node, 1, ind));
  if (x->ndim < 0) return rlx_onnx_error(node, "input 0 needs a known rank");
  int64_t axis;
  RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis));
  rlx_relax_expr_t* indices = inputs[1];
  const char* mode = "wrap";
  rlx_onnx_tensor_t c;
  int64_t ext;
  if (rlx_onnx_const(im, inputs[1], &c) && x->shape && rlx_expr_is_const_int(x->shape[axis], &ext)) {
    /* constant indices: checked and normalized now, gathered without wrapping */
    int64_t n = ot_numel(&c);
    int64_t* v = RLX_NEW_ARRAY(ctx, int64_t, n);
    for (int64_t k = 0; k < n; k++) {
      v[k] = ot_elem_i64(&c, k);
      if (v[k] < -ext || v[k] >= ext)
        return rlx_onnx_error(node, "index %lld is out of range for axis %lld of extent %lld", (long long)v[k],
                              (long long)axis, (long long)ext);
      if (v[k] < 0) v[k] += ext;
    }
    indices = rlx_onnx_make_const(im, rlx_dt_int64(), c.ndim, c.shape, v);
    mode = "fast";
  }
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis));
  attrs = ot_attr(ctx, attrs, "mode", rlx_attr_str(mode));
  rlx_relax_expr_t* args[2] = {inputs[0], indices};
  return ot_op(im, RLX_OP_TAKE, 2, args, attrs, &outputs[0]);
}

/* ------------------------------------------------------------------ GatherElements */
OT_CONVERTER(ot_gather_elements) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *ind;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, false, &ind));
  RLX_RETURN_IF_ERROR(need_index_dtype(node, 1, ind));
  if (x->ndim < 0) return rlx_onnx_error(node, "input 0 needs a known rank");
  int64_t axis;
  RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis));
  rlx_relax_expr_t* args[2] = {inputs[0], NULL};
  RLX_RETURN_IF_ERROR(safe_indices(im, node, inputs[1], x->shape ? x->shape[axis] : NULL, &args[1]));
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis));
  return ot_op(im, RLX_OP_GATHER_ELEMENTS, 2, args, attrs, &outputs[0]);
}

/* ------------------------------------------------------------------ GatherND */
typedef struct {
  int64_t batch_dims;
  int64_t m; /* indices' last extent */
  rlx_te_tensor_t *data, *ind;
} gnd_user_t;

static rlx_expr_t* gather_nd_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gnd_user_t* u = user;
  int r = u->data->buffer->ndim, q = u->ind->buffer->ndim, b = (int)u->batch_dims, m = (int)u->m;
  rlx_expr_t** di = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  rlx_expr_t** ii = RLX_NEW_ARRAY(ctx, rlx_expr_t*, q);
  for (int d = 0; d < q - 1; d++) ii[d] = &idx[d]->hdr;
  for (int d = 0; d < b; d++) di[d] = &idx[d]->hdr;
  for (int t = 0; t < m; t++) {
    ii[q - 1] = i64(ctx, t);
    rlx_expr_t* k = as_i64(ctx, rlx_te_load(ctx, u->ind, q, ii));
    di[b + t] = wrap_clamp(ctx, k, u->data->buffer->shape[b + t]);
  }
  for (int d = b + m; d < r; d++) di[d] = &idx[q - 1 + d - (b + m)]->hdr;
  return rlx_te_load(ctx, u->data, r, di);
}

static RLX_MUST_USE rlx_status_t* te_gather_nd(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                               rlx_te_tensor_t** out) {
  gnd_user_t* u = user;
  u->data = in[0];
  u->ind = in[1];
  int r = in[0]->buffer->ndim, q = in[1]->buffer->ndim;
  int on = q - 1 + r - (int)(u->batch_dims + u->m);
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  for (int d = 0; d < q - 1; d++) shape[d] = in[1]->buffer->shape[d];
  for (int d = (int)(u->batch_dims + u->m); d < r; d++) shape[q - 1 + d - (int)(u->batch_dims + u->m)] = in[0]->buffer->shape[d];
  return *out = rlx_te_compute(ctx, on, shape, gather_nd_body, u, "T_gather_nd", "injective"), NULL;
}

OT_CONVERTER(ot_gather_nd) {
  rlx_sinfo_tensor_t *x, *ind;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &ind));
  RLX_RETURN_IF_ERROR(need_index_dtype(node, 1, ind));
  gnd_user_t u = {rlx_onnx_attr_int(node, "batch_dims", 0), 0, NULL, NULL};
  int r = x->ndim, q = ind->ndim;
  if (q < 1 || r < 1) return rlx_onnx_error(node, "data and indices need rank >= 1");
  if (!rlx_expr_is_const_int(ind->shape[q - 1], &u.m))
    return rlx_onnx_error(node, "the last dim of indices must be a constant");
  int64_t b = u.batch_dims;
  if (b < 0 || b >= q || b >= r) return rlx_onnx_error(node, "batch_dims %lld is out of range", (long long)b);
  if (u.m < 1 || u.m > r - b)
    return rlx_onnx_error(node, "indices' last dim %lld must be in [1, %lld]", (long long)u.m, (long long)(r - b));
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  for (int d = 0; d < b; d++)
    if (!rlx_ir_prove_equal(ctx, x->shape[d], ind->shape[d]))
      return rlx_onnx_error(node, "batch dim %d differs between data and indices", d);
  return rlx_onnx_emit_te(im, te_gather_nd, &u, 2, inputs, "gather_nd", &outputs[0]);
}

/* ------------------------------------------------------------------ ScatterElements, ScatterND */
typedef enum { SC_NONE, SC_ADD, SC_MUL, SC_MAX, SC_MIN } sc_reduce_t;

static RLX_MUST_USE rlx_status_t* scatter_reduction(const rlx_onnx_node_t* node, sc_reduce_t* out) {
  const char* r = rlx_onnx_attr_string(node, "reduction", "none");
  static const char* const names[] = {"none", "add", "mul", "max", "min"};
  for (int i = 0; i < 5; i++)
    if (strcmp(r, names[i]) == 0) return *out = (sc_reduce_t)i, NULL;
  return rlx_onnx_error(node, "reduction '%s' is not none, add, mul, max or min", r);
}

static rlx_reduce_kind_t sc_combiner(sc_reduce_t r) {
  switch (r) {
    case SC_MUL: return RLX_REDUCE_PROD;
    case SC_MAX: return RLX_REDUCE_MAX;
    case SC_MIN: return RLX_REDUCE_MIN;
    case SC_NONE:
    case SC_ADD: break;
  }
  return RLX_REDUCE_SUM;
}

/* ScatterND: updates[u..., p[k:]] goes to data[indices[u..., :], p[k:]] for every index
 * position u (the reduce axes rv). */
typedef struct {
  int64_t k; /* indices' last extent */
  sc_reduce_t red;
  rlx_te_tensor_t *data, *ind, *upd, *acc;
  rlx_iter_var_t** rv;
  int n_rv;
} sc_user_t;

/* The condition "the update at the reduce position targets output position p"; *out_ui gets
 * the update's indices. */
static rlx_expr_t* sc_match(rlx_ctx_t* ctx, sc_user_t* u, rlx_expr_t* const* p, rlx_expr_t*** out_ui) {
  int r = u->data->buffer->ndim, q = u->ind->buffer->ndim, ur = u->upd->buffer->ndim;
  rlx_expr_t* cond = rlx_ir_bool(ctx, true);
  rlx_expr_t** ii = RLX_NEW_ARRAY(ctx, rlx_expr_t*, q);
  for (int d = 0; d < q - 1; d++) ii[d] = &u->rv[d]->var->hdr;
  for (int t = 0; t < u->k; t++) {
    ii[q - 1] = i64(ctx, t);
    rlx_expr_t* kt = wrap_clamp(ctx, as_i64(ctx, rlx_te_load(ctx, u->ind, q, ii)), u->data->buffer->shape[t]);
    cond = rlx_ir_and(ctx, cond, rlx_ir_cmp(ctx, RLX_EXPR_EQ, kt, p[t]));
  }
  rlx_expr_t** ui = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ur);
  for (int d = 0; d < q - 1; d++) ui[d] = &u->rv[d]->var->hdr;
  for (int d = (int)u->k; d < r; d++) ui[q - 1 + d - (int)u->k] = p[d];
  *out_ui = ui;
  return cond;
}

/* acc[p]: for reduction none, -1 - the row-major position of the last matching update (0 when
 * none); else the reduction of the matching updates (the identity when none). */
static rlx_expr_t* sc_acc_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  sc_user_t* u = user;
  int r = u->data->buffer->ndim, q = u->ind->buffer->ndim;
  u->n_rv = q - 1;
  u->rv = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, q - 1);
  for (int d = 0; d < q - 1; d++)
    u->rv[d] = rlx_te_reduce_axis(ctx, i64(ctx, 0), as_i64(ctx, u->ind->buffer->shape[d]), NULL);
  rlx_expr_t** ui;
  rlx_expr_t* cond = sc_match(ctx, u, idx_exprs(ctx, r, idx), &ui);
  if (u->red == SC_NONE) { /* a min-reduction: max's INT64_MIN identity trips UBSan in the simplifier */
    rlx_expr_t* flat = i64(ctx, 0);
    for (int d = 0; d < u->n_rv; d++)
      flat = rlx_ir_add(ctx, rlx_ir_mul(ctx, flat, as_i64(ctx, u->rv[d]->dom.extent)), &u->rv[d]->var->hdr);
    rlx_expr_t* src = rlx_ir_select(ctx, cond, rlx_ir_sub(ctx, i64(ctx, -1), flat), i64(ctx, 0));
    return rlx_te_min(ctx, src, u->n_rv, u->rv);
  }
  return rlx_te_reduce(ctx, sc_combiner(u->red), rlx_te_load(ctx, u->upd, u->upd->buffer->ndim, ui), u->n_rv, u->rv,
                       cond);
}

static rlx_expr_t* sc_out_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  sc_user_t* u = user;
  int r = u->data->buffer->ndim, q = u->ind->buffer->ndim, ur = u->upd->buffer->ndim;
  rlx_expr_t** p = idx_exprs(ctx, r, idx);
  rlx_expr_t* old = rlx_te_load(ctx, u->data, r, p);
  rlx_expr_t* acc = rlx_te_load(ctx, u->acc, r, p);
  if (u->red != SC_NONE) return rlx_te_reduce_combine(ctx, sc_combiner(u->red), old, acc);
  /* decode the position of the last matching update */
  rlx_expr_t* f = rlx_ir_max(ctx, rlx_ir_sub(ctx, i64(ctx, -1), acc), i64(ctx, 0));
  rlx_expr_t** ui = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ur);
  for (int d = q - 2; d >= 0; d--) {
    rlx_expr_t* ext = as_i64(ctx, u->ind->buffer->shape[d]);
    ui[d] = rlx_ir_floormod(ctx, f, ext);
    f = rlx_ir_floordiv(ctx, f, ext);
  }
  for (int d = (int)u->k; d < r; d++) ui[q - 1 + d - (int)u->k] = p[d];
  rlx_expr_t* newv = rlx_te_load(ctx, u->upd, ur, ui);
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, acc, i64(ctx, 0)), newv, old);
}

static RLX_MUST_USE rlx_status_t* te_scatter_nd(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                                rlx_te_tensor_t** out) {
  sc_user_t* u = user;
  u->data = in[0];
  u->ind = in[1];
  u->upd = in[2];
  rlx_tir_buffer_t* b = in[0]->buffer;
  u->acc = rlx_te_compute(ctx, b->ndim, b->shape, sc_acc_body, u, "scatter_acc", "");
  return *out = rlx_te_compute(ctx, b->ndim, b->shape, sc_out_body, u, "T_scatter_nd", "injective"), NULL;
}

/* True when the tensor provably has no elements. */
static bool is_empty(const rlx_sinfo_tensor_t* t) {
  for (int d = 0; t->shape && d < t->ndim; d++) {
    int64_t v;
    if (rlx_expr_is_const_int(t->shape[d], &v) && v == 0) return true;
  }
  return false;
}

OT_CONVERTER(ot_scatter_elements) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *ind, *upd;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, false, &ind));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 2, false, &upd));
  RLX_RETURN_IF_ERROR(need_index_dtype(node, 1, ind));
  if (x->ndim < 0) return rlx_onnx_error(node, "input 0 needs a known rank");
  sc_reduce_t red = SC_NONE;
  RLX_RETURN_IF_ERROR(scatter_reduction(node, &red));
  int64_t axis;
  RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis));
  static const char* const names[] = {"update", "add", "mul", "max", "min"};
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis));
  attrs = ot_attr(ctx, attrs, "reduction", rlx_attr_str(names[red]));
  rlx_relax_expr_t* args[3] = {inputs[0], NULL, inputs[2]};
  RLX_RETURN_IF_ERROR(safe_indices(im, node, inputs[1], x->shape ? x->shape[axis] : NULL, &args[1]));
  return ot_op(im, RLX_OP_SCATTER_ELEMENTS, 3, args, attrs, &outputs[0]);
}

OT_CONVERTER(ot_scatter_nd) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *ind, *upd;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &ind));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 2, true, &upd));
  RLX_RETURN_IF_ERROR(need_index_dtype(node, 1, ind));
  sc_user_t u;
  memset(&u, 0, sizeof(u));
  RLX_RETURN_IF_ERROR(scatter_reduction(node, &u.red));
  int r = x->ndim, q = ind->ndim;
  if (q < 1 || !rlx_expr_is_const_int(ind->shape[q - 1], &u.k) || u.k < 1 || u.k > r)
    return rlx_onnx_error(node, "indices need a constant last dim in [1, %d]", r);
  if (!rlx_dtype_eq(x->dtype, upd->dtype)) return rlx_onnx_error(node, "data and updates have different dtypes");
  if (upd->ndim != q - 1 + r - u.k)
    return rlx_onnx_error(node, "updates have rank %d, expected %lld", upd->ndim, (long long)(q - 1 + r - u.k));
  for (int d = 0; d < upd->ndim; d++) {
    rlx_expr_t* want = d < q - 1 ? ind->shape[d] : x->shape[d - (q - 1) + u.k];
    if (!rlx_ir_prove_equal(ctx, upd->shape[d], want))
      return rlx_onnx_error(node, "updates' dim %d does not match indices and data", d);
  }
  if (q == 1) return rlx_onnx_error(node, "1-D indices (a single update) are not supported");
  if (is_empty(upd)) {
    outputs[0] = inputs[0];
    return NULL;
  }
  return rlx_onnx_emit_te(im, te_scatter_nd, &u, 3, inputs, "scatter_nd", &outputs[0]);
}

/* ------------------------------------------------------------------ OneHot */
OT_CONVERTER(ot_one_hot) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* ind;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &ind));
  rlx_onnx_tensor_t kd, kv;
  if (ot_has_input(node, inputs, 1) && ot_has_input(node, inputs, 2) &&
      (!rlx_onnx_const(im, inputs[1], &kd) || !rlx_onnx_const(im, inputs[2], &kv)))
    return ot_one_hot_runtime(im, node, inputs, outputs);
  double depth;
  RLX_RETURN_IF_ERROR(ot_const_scalar(im, node, 1, ot_has_input(node, inputs, 1) ? inputs[1] : NULL, &depth));
  if (!(depth >= 0) || depth > (double)(1 << 30)) return rlx_onnx_error(node, "depth %g is not a valid extent", depth);
  rlx_onnx_tensor_t vals;
  if (!ot_has_input(node, inputs, 2) || !rlx_onnx_const(im, inputs[2], &vals) || ot_numel(&vals) != 2)
    return rlx_onnx_error(node, "input 2 (values) must be a constant [off_value, on_value]");
  rlx_relax_expr_t* indices = inputs[0];
  if (!is_index_dtype(ind->dtype)) {
    rlx_attrs_t a = ot_attr(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(rlx_dt_int64()));
    RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_ASTYPE, 1, &indices, a, &indices));
  }
  rlx_relax_expr_t* args[3] = {indices, rlx_relax_prim_value(ctx, ot_scalar_expr(ctx, vals.dtype, ot_elem_f64(&vals, 1))),
                               rlx_relax_prim_value(ctx, ot_scalar_expr(ctx, vals.dtype, ot_elem_f64(&vals, 0)))};
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "depth", rlx_attr_int((int64_t)depth));
  attrs = ot_attr(ctx, attrs, "axis", rlx_attr_int(rlx_onnx_attr_int(node, "axis", -1)));
  return ot_op(im, RLX_OP_ONE_HOT, 3, args, attrs, &outputs[0]);
}

/* ------------------------------------------------------------------ Trilu */
/* With k known at run time only: keep where (j - i <= k) for tril, (j - i >= k) for triu. */
typedef struct {
  bool upper;
  rlx_te_tensor_t *x, *k;
} trilu_user_t;

static rlx_expr_t* trilu_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  trilu_user_t* u = user;
  int r = u->x->buffer->ndim;
  rlx_expr_t** p = idx_exprs(ctx, r, idx);
  rlx_expr_t** z = RLX_NEW_ARRAY(ctx, rlx_expr_t*, u->k->buffer->ndim);
  for (int d = 0; d < u->k->buffer->ndim; d++) z[d] = i64(ctx, 0);
  rlx_expr_t* k = as_i64(ctx, rlx_te_load(ctx, u->k, u->k->buffer->ndim, z));
  rlx_expr_t* diff = rlx_ir_sub(ctx, as_i64(ctx, p[r - 1]), as_i64(ctx, p[r - 2]));
  rlx_expr_t* keep = rlx_ir_cmp(ctx, u->upper ? RLX_EXPR_GE : RLX_EXPR_LE, diff, k);
  return rlx_ir_select(ctx, keep, rlx_te_load(ctx, u->x, r, p), ot_scalar_expr(ctx, u->x->buffer->dtype, 0));
}

static RLX_MUST_USE rlx_status_t* te_trilu(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  trilu_user_t* u = user;
  u->x = in[0];
  u->k = in[1];
  *out = rlx_te_compute(ctx, in[0]->buffer->ndim, in[0]->buffer->shape, trilu_body, u, u->upper ? "T_triu" : "T_tril",
                        "injective");
  return NULL;
}

OT_CONVERTER(ot_trilu) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  if (x->ndim >= 0 && x->ndim < 2) return rlx_onnx_error(node, "needs an input of rank >= 2, got %d", x->ndim);
  bool upper = rlx_onnx_attr_int(node, "upper", 1) != 0;
  double k = 0;
  rlx_onnx_tensor_t kc;
  if (ot_has_input(node, inputs, 1) && !rlx_onnx_const(im, inputs[1], &kc)) {
    rlx_sinfo_tensor_t* ks;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &ks));
    RLX_RETURN_IF_ERROR(need_index_dtype(node, 1, ks));
    if (!x->shape) return rlx_onnx_error(node, "input 0 needs a known shape when k is not a constant");
    int64_t n;
    if (!rlx_expr_is_const_int(ot_prod(ctx, ks->ndim, ks->shape), &n) || n != 1)
      return rlx_onnx_error(node, "k must hold one value");
    trilu_user_t u = {upper, NULL, NULL};
    return rlx_onnx_emit_te(im, te_trilu, &u, 2, inputs, upper ? "triu" : "tril", &outputs[0]);
  }
  if (ot_has_input(node, inputs, 1)) RLX_RETURN_IF_ERROR(ot_const_scalar(im, node, 1, inputs[1], &k));
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "k", rlx_attr_int((int64_t)k));
  return ot_op(im, upper ? RLX_OP_TRIU : RLX_OP_TRIL, 1, &inputs[0], attrs, &outputs[0]);
}

/* ------------------------------------------------------------------ EyeLike */
typedef struct {
  int64_t k;
  rlx_dtype_t dtype;
} eye_user_t;

static rlx_expr_t* eye_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  eye_user_t* u = user;
  rlx_expr_t* diff = rlx_ir_sub(ctx, as_i64(ctx, &idx[1]->hdr), as_i64(ctx, &idx[0]->hdr));
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, diff, i64(ctx, u->k)), ot_scalar_expr(ctx, u->dtype, 1),
                       ot_scalar_expr(ctx, u->dtype, 0));
}

static RLX_MUST_USE rlx_status_t* te_eye(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  return *out = rlx_te_compute(ctx, 2, in[0]->buffer->shape, eye_body, user, "T_eye_like", "injective"), NULL;
}

OT_CONVERTER(ot_eye_like) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  if (x->ndim != 2) return rlx_onnx_error(node, "needs a 2-D input, got rank %d", x->ndim);
  eye_user_t u = {rlx_onnx_attr_int(node, "k", 0), x->dtype};
  if (rlx_onnx_has_attr(node, "dtype") && (!rlx_onnx_dtype_from_attr(rlx_onnx_attr_int(node, "dtype", 0), &u.dtype) ||
                                            u.dtype.code == RLX_DT_BFLOAT)) /* no bfloat16 eye */
    return rlx_onnx_error(node, "dtype %lld is not supported", (long long)rlx_onnx_attr_int(node, "dtype", 0));
  return rlx_onnx_emit_te(im, te_eye, &u, 1, inputs, "eye_like", &outputs[0]);
}

/* ------------------------------------------------------------------ Range */
OT_CONVERTER(ot_range) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* s;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &s));
  double v[3];
  for (int i = 0; i < 3; i++) {
    rlx_onnx_tensor_t k;
    if (ot_has_input(node, inputs, i) && !rlx_onnx_const(im, inputs[i], &k))
      return ot_range_runtime(im, node, inputs, outputs);
  }
  for (int i = 0; i < 3; i++) {
    if (!ot_has_input(node, inputs, i)) return rlx_onnx_error(node, "input %d is missing", i);
    RLX_RETURN_IF_ERROR(ot_const_scalar(im, node, i, inputs[i], &v[i]));
  }
  if (v[2] == 0) return rlx_onnx_error(node, "delta must not be 0");
  double n = ceil((v[1] - v[0]) / v[2]);
  if (n > (double)(1LL << 40)) return rlx_onnx_error(node, "range of %g elements is too large", n);
  rlx_relax_expr_t* args[3];
  for (int i = 0; i < 3; i++) args[i] = rlx_relax_prim_value(ctx, ot_scalar_expr(ctx, s->dtype, v[i]));
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(s->dtype));
  return ot_op(im, RLX_OP_ARANGE, 3, args, attrs, &outputs[0]);
}

/* ------------------------------------------------------------------ Size */
typedef struct {
  rlx_te_tensor_t* x;
} size_user_t;

static rlx_expr_t* size_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rlx_te_tensor_t* x = ((size_user_t*)user)->x;
  return ot_prod(ctx, x->buffer->ndim, x->buffer->shape);
}

static RLX_MUST_USE rlx_status_t* te_size(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  ((size_user_t*)user)->x = in[0];
  return *out = rlx_te_compute(ctx, 0, NULL, size_body, user, "T_size", "injective"), NULL;
}

OT_CONVERTER(ot_size) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t n;
  if (rlx_expr_is_const_int(ot_prod(ctx, x->ndim, x->shape), &n)) {
    outputs[0] = rlx_onnx_make_const(im, rlx_dt_int64(), 0, NULL, &n);
    return NULL;
  }
  size_user_t u = {NULL};
  return rlx_onnx_emit_te(im, te_size, &u, 1, inputs, "size", &outputs[0]);
}

/* ------------------------------------------------------------------ ConstantOfShape */
OT_CONVERTER(ot_constant_of_shape) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int n = 0;
  int64_t* shape = NULL;
  if (!ot_has_input(node, inputs, 0)) return rlx_onnx_error(node, "input 0 (shape) is missing");
  rlx_relax_expr_t* fill;
  if (rlx_onnx_has_attr(node, "value")) {
    rlx_relax_expr_t* v;
    RLX_RETURN_IF_ERROR(rlx_onnx_attr_tensor(im, node, "value", &v));
    rlx_onnx_tensor_t t;
    if (!rlx_onnx_const(im, v, &t) || ot_numel(&t) != 1)
      return rlx_onnx_error(node, "the value attribute must hold one element");
    fill = rlx_onnx_make_const(im, t.dtype, 0, NULL, t.data);
  } else {
    float zero = 0;
    fill = rlx_onnx_make_const(im, rlx_dt_float32(), 0, NULL, &zero);
  }
  rlx_onnx_tensor_t k;
  if (!rlx_onnx_const(im, inputs[0], &k)) return ot_constant_of_shape_runtime(im, node, inputs, fill, &outputs[0]);
  RLX_RETURN_IF_ERROR(rlx_onnx_const_ints(im, node, 0, inputs[0], &shape, &n));
  for (int i = 0; i < n; i++)
    if (shape[i] < 0) return rlx_onnx_error(node, "shape[%d] = %lld is negative", i, (long long)shape[i]);
  rlx_relax_expr_t* args[2] = {ot_shape_ints(ctx, n, shape), fill};
  return ot_op(im, RLX_OP_FULL, 2, args, (rlx_attrs_t){0}, &outputs[0]);
}

/* ------------------------------------------------------------------ Compress */
OT_CONVERTER(ot_compress) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  rlx_onnx_tensor_t c;
  if (!ot_has_input(node, inputs, 1)) return rlx_onnx_error(node, "input 1 (condition) is missing");
  bool is_const = rlx_onnx_const(im, inputs[1], &c);
  if (is_const && c.ndim != 1) return rlx_onnx_error(node, "condition must be 1-D, got rank %d", c.ndim);
  rlx_relax_expr_t* data = inputs[0];
  int64_t axis = 0;
  bool has_axis = rlx_onnx_has_attr(node, "axis");
  rlx_expr_t* ext_e;
  if (has_axis) {
    RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis));
    ext_e = x->shape[axis];
  } else {
    ext_e = ot_prod(ctx, x->ndim, x->shape);
    RLX_RETURN_IF_ERROR(ot_reshape(im, data, 1, &ext_e, &data));
  }
  if (!is_const) return ot_compress_runtime(im, node, inputs, data, axis, &outputs[0]);
  int64_t ext = -1;
  rlx_expr_is_const_int(ext_e, &ext);
  int64_t n = c.shape[0], k = 0;
  int64_t* sel = RLX_NEW_ARRAY(ctx, int64_t, n);
  for (int64_t i = 0; i < n; i++) {
    if (ot_elem_f64(&c, i) == 0) continue;
    if (ext >= 0 && i >= ext)
      return rlx_onnx_error(node, "condition selects index %lld beyond the extent %lld", (long long)i, (long long)ext);
    sel[k++] = i;
  }
  rlx_relax_expr_t* idx = rlx_onnx_make_const(im, rlx_dt_int64(), 1, &k, sel);
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis));
  attrs = ot_attr(ctx, attrs, "mode", rlx_attr_str("fast"));
  rlx_relax_expr_t* args[2] = {data, idx};
  return ot_op(im, RLX_OP_TAKE, 2, args, attrs, &outputs[0]);
}

/* ------------------------------------------------------------------ NonZero */
OT_CONVERTER(ot_non_zero) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_onnx_tensor_t t;
  if (!ot_has_input(node, inputs, 0)) return rlx_onnx_error(node, "input 0 is missing");
  if (!rlx_onnx_const(im, inputs[0], &t)) return ot_non_zero_runtime(im, node, inputs, outputs);
  int64_t n = ot_numel(&t), nz = 0;
  for (int64_t i = 0; i < n; i++) nz += ot_elem_f64(&t, i) != 0;
  int r = t.ndim;
  int64_t* out = RLX_NEW_ARRAY(ctx, int64_t, (r > 0 ? r : 1) * (nz > 0 ? nz : 1));
  for (int64_t i = 0, k = 0; i < n; i++) {
    if (ot_elem_f64(&t, i) == 0) continue;
    for (int64_t d = r - 1, rest = i; d >= 0; d--) {
      out[d * nz + k] = rest % t.shape[d];
      rest /= t.shape[d];
    }
    k++;
  }
  int64_t shape[2] = {r, nz};
  outputs[0] = rlx_onnx_make_const(im, rlx_dt_int64(), 2, shape, out);
  return NULL;
}

/* ------------------------------------------------------------------ TopK */
/* rank[p] = how many elements of p's slice along axis come before it (larger, or equal at a
 * lower index; smaller for largest=0); indices[o] = the j whose rank is o[axis]; values =
 * x at indices. Quadratic in the axis length: used for large k and int inputs. */
typedef struct {
  int64_t axis, k;
  rlx_expr_t* k_e; /* k when it arrives at run time (a symbolic var), else NULL */
  bool largest, want_indices;
  rlx_te_tensor_t *x, *rank, *ind;
} topk_user_t;

static rlx_expr_t* topk_rank_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  topk_user_t* u = user;
  int r = u->x->buffer->ndim;
  rlx_expr_t** p = idx_exprs(ctx, r, idx);
  rlx_expr_t** q = idx_exprs(ctx, r, idx);
  rlx_iter_var_t* j = rlx_te_reduce_axis(ctx, i64(ctx, 0), as_i64(ctx, u->x->buffer->shape[u->axis]), "j");
  q[u->axis] = &j->var->hdr;
  rlx_expr_t *xi = rlx_te_load(ctx, u->x, r, p), *xj = rlx_te_load(ctx, u->x, r, q);
  rlx_expr_t* better = rlx_ir_cmp(ctx, u->largest ? RLX_EXPR_GT : RLX_EXPR_LT, xj, xi);
  rlx_expr_t* tie = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, xj, xi),
                               rlx_ir_cmp(ctx, RLX_EXPR_LT, &j->var->hdr, as_i64(ctx, p[u->axis])));
  rlx_expr_t* src = rlx_ir_select(ctx, rlx_ir_or(ctx, better, tie), i64(ctx, 1), i64(ctx, 0));
  return rlx_te_sum(ctx, src, 1, &j);
}

static rlx_expr_t* topk_ind_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  topk_user_t* u = user;
  int r = u->x->buffer->ndim;
  rlx_expr_t** q = idx_exprs(ctx, r, idx);
  rlx_iter_var_t* j = rlx_te_reduce_axis(ctx, i64(ctx, 0), as_i64(ctx, u->x->buffer->shape[u->axis]), "j");
  q[u->axis] = &j->var->hdr;
  rlx_expr_t* hit = rlx_ir_cmp(ctx, RLX_EXPR_EQ, rlx_te_load(ctx, u->rank, r, q), as_i64(ctx, &idx[u->axis]->hdr));
  return rlx_te_sum(ctx, rlx_ir_select(ctx, hit, &j->var->hdr, i64(ctx, 0)), 1, &j);
}

static rlx_expr_t* topk_val_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  topk_user_t* u = user;
  int r = u->x->buffer->ndim;
  rlx_expr_t** q = idx_exprs(ctx, r, idx);
  q[u->axis] = rlx_te_load(ctx, u->ind, r, idx_exprs(ctx, r, idx));
  return rlx_te_load(ctx, u->x, r, q);
}

static RLX_MUST_USE rlx_status_t* te_topk(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  topk_user_t* u = user;
  u->x = in[0];
  rlx_tir_buffer_t* b = in[0]->buffer;
  u->rank = rlx_te_compute(ctx, b->ndim, b->shape, topk_rank_body, u, "topk_rank", "comm_reduce");
  rlx_expr_t** os = RLX_NEW_ARRAY(ctx, rlx_expr_t*, b->ndim);
  for (int d = 0; d < b->ndim; d++) os[d] = b->shape[d];
  os[u->axis] = u->k_e ? u->k_e : i64(ctx, u->k);
  u->ind = rlx_te_compute(ctx, b->ndim, os, topk_ind_body, u, "T_topk_indices", "comm_reduce");
  if (u->want_indices) return *out = u->ind, NULL;
  return *out = rlx_te_compute(ctx, b->ndim, os, topk_val_body, u, "T_topk_values", "injective"), NULL;
}

/* Small k on floats: k selection rounds, each two reductions over the axis (O(k n) instead of
 * O(n^2)): round t takes the best value among the elements after round t - 1's pick in the
 * (value, index) order, then the lowest index holding it. */
typedef struct {
  topk_user_t* u;
  int t;
  rlx_te_tensor_t **val, **ind;
} topk_round_t;

static rlx_expr_t* topk_after(rlx_ctx_t* ctx, topk_round_t* r, rlx_expr_t* const* p0, rlx_expr_t* xj, rlx_expr_t* j) {
  int n = r->u->x->buffer->ndim;
  rlx_expr_t* pv = rlx_te_load(ctx, r->val[r->t - 1], n, p0);
  rlx_expr_t* pi = rlx_te_load(ctx, r->ind[r->t - 1], n, p0);
  rlx_expr_t* worse = rlx_ir_cmp(ctx, r->u->largest ? RLX_EXPR_LT : RLX_EXPR_GT, xj, pv);
  rlx_expr_t* tie = rlx_ir_and(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, xj, pv), rlx_ir_cmp(ctx, RLX_EXPR_GT, j, pi));
  return rlx_ir_or(ctx, worse, tie);
}

static rlx_expr_t* topk_round_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user, bool index) {
  topk_round_t* r = user;
  topk_user_t* u = r->u;
  int n = u->x->buffer->ndim;
  rlx_expr_t** p0 = idx_exprs(ctx, n, idx);
  rlx_expr_t** q = idx_exprs(ctx, n, idx);
  rlx_iter_var_t* j = rlx_te_reduce_axis(ctx, i64(ctx, 0), as_i64(ctx, u->x->buffer->shape[u->axis]), "j");
  q[u->axis] = &j->var->hdr;
  rlx_expr_t* xj = rlx_te_load(ctx, u->x, n, q);
  rlx_expr_t* cond = r->t > 0 ? topk_after(ctx, r, p0, xj, &j->var->hdr) : rlx_ir_bool(ctx, true);
  if (!index) return rlx_te_reduce(ctx, u->largest ? RLX_REDUCE_MAX : RLX_REDUCE_MIN, xj, 1, &j, cond);
  cond = rlx_ir_and(ctx, cond, rlx_ir_cmp(ctx, RLX_EXPR_EQ, xj, rlx_te_load(ctx, r->val[r->t], n, p0)));
  return rlx_te_reduce(ctx, RLX_REDUCE_MIN, &j->var->hdr, 1, &j, cond);
}

static rlx_expr_t* topk_round_val(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  return topk_round_body(ctx, idx, user, false);
}
static rlx_expr_t* topk_round_ind(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  return topk_round_body(ctx, idx, user, true);
}

/* out[o] = the round o[axis]'s value (or index), as a select chain */
static rlx_expr_t* topk_pick_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  topk_round_t* r = user;
  topk_user_t* u = r->u;
  int n = u->x->buffer->ndim;
  rlx_expr_t** p0 = idx_exprs(ctx, n, idx);
  p0[u->axis] = i64(ctx, 0);
  rlx_te_tensor_t** src = u->want_indices ? r->ind : r->val;
  rlx_expr_t* v = rlx_te_load(ctx, src[u->k - 1], n, p0);
  for (int t = (int)u->k - 2; t >= 0; t--)
    v = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, as_i64(ctx, &idx[u->axis]->hdr), i64(ctx, t)),
                      rlx_te_load(ctx, src[t], n, p0), v);
  return v;
}

static RLX_MUST_USE rlx_status_t* te_topk_small(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                                rlx_te_tensor_t** out) {
  topk_user_t* u = user;
  u->x = in[0];
  rlx_tir_buffer_t* b = in[0]->buffer;
  rlx_expr_t** s1 = RLX_NEW_ARRAY(ctx, rlx_expr_t*, b->ndim);
  rlx_expr_t** os = RLX_NEW_ARRAY(ctx, rlx_expr_t*, b->ndim);
  for (int d = 0; d < b->ndim; d++) s1[d] = os[d] = b->shape[d];
  s1[u->axis] = i64(ctx, 1);
  os[u->axis] = i64(ctx, u->k);
  topk_round_t* r = RLX_NEW(ctx, topk_round_t);
  r->u = u;
  r->val = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, u->k);
  r->ind = RLX_NEW_ARRAY(ctx, rlx_te_tensor_t*, u->k);
  for (int t = 0; t < u->k; t++) {
    topk_round_t* rt = RLX_NEW(ctx, topk_round_t);
    *rt = *r;
    rt->t = t;
    r->val[t] = rlx_te_compute(ctx, b->ndim, s1, topk_round_val, rt, "topk_val", "comm_reduce");
    r->ind[t] = rlx_te_compute(ctx, b->ndim, s1, topk_round_ind, rt, "topk_ind", "comm_reduce");
  }
  *out = rlx_te_compute(ctx, b->ndim, os, topk_pick_body, r, u->want_indices ? "T_topk_indices" : "T_topk_values",
                        "injective");
  return NULL;
}

static rlx_expr_t* topk_k(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  (void)j;
  (void)user;
  return rlx_onnx_load_int(ctx, ins[0], 0);
}

OT_CONVERTER(ot_top_k) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  if (x->ndim < 1) return rlx_onnx_error(node, "needs an input of rank >= 1");
  topk_user_t u;
  memset(&u, 0, sizeof(u));
  RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", -1), x->ndim, &u.axis));
  rlx_onnx_tensor_t kc;
  if (rlx_onnx_opset(im) >= 10 && ot_has_input(node, inputs, 1) && !rlx_onnx_const(im, inputs[1], &kc)) {
    /* k at run time: the quadratic kernel, whose only use of k is the output extent */
    rlx_expr_t** k = NULL;
    RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, topk_k, NULL, 1, &inputs[1], 1, &k));
    u.k_e = k[0];
    u.largest = rlx_onnx_attr_int(node, "largest", 1) != 0;
    RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_topk, &u, 1, inputs, "topk_values", &outputs[0]));
    if (node->n_outputs < 2) return NULL;
    u.want_indices = true;
    return rlx_onnx_emit_te(im, te_topk, &u, 1, inputs, "topk_indices", &outputs[1]);
  }
  if (rlx_onnx_opset(im) < 10) {
    u.k = rlx_onnx_attr_int(node, "k", -1);
  } else {
    double k;
    RLX_RETURN_IF_ERROR(ot_const_scalar(im, node, 1, ot_has_input(node, inputs, 1) ? inputs[1] : NULL, &k));
    u.k = (int64_t)k;
  }
  u.largest = rlx_onnx_attr_int(node, "largest", 1) != 0;
  int64_t ext;
  if (u.k < 0) return rlx_onnx_error(node, "k = %lld is negative", (long long)u.k);
  if (rlx_expr_is_const_int(x->shape[u.axis], &ext) && u.k > ext)
    return rlx_onnx_error(node, "k = %lld exceeds the axis extent %lld", (long long)u.k, (long long)ext);
  /* floats only: a max-reduction's identity for ints (INT64_MIN) trips UBSan in the simplifier */
  rlx_bb_te_fn_t f = u.k >= 1 && u.k <= 8 && rlx_dtype_is_float(x->dtype) ? te_topk_small : te_topk;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, f, &u, 1, inputs, "topk_values", &outputs[0]));
  if (node->n_outputs < 2) return NULL;
  u.want_indices = true;
  return rlx_onnx_emit_te(im, f, &u, 1, inputs, "topk_indices", &outputs[1]);
}

/* ------------------------------------------------------------------ ReverseSequence */
typedef struct {
  int64_t batch_axis, time_axis;
  rlx_te_tensor_t *x, *lens;
} rev_user_t;

static rlx_expr_t* rev_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rev_user_t* u = user;
  int r = u->x->buffer->ndim;
  rlx_expr_t** p = idx_exprs(ctx, r, idx);
  rlx_expr_t* b = p[u->batch_axis];
  rlx_expr_t* len = as_i64(ctx, rlx_te_load(ctx, u->lens, 1, &b));
  rlx_expr_t* t = as_i64(ctx, p[u->time_axis]);
  rlx_expr_t* ext = as_i64(ctx, u->x->buffer->shape[u->time_axis]);
  rlx_expr_t* src = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, t, len), rlx_ir_sub(ctx, rlx_ir_sub(ctx, len, i64(ctx, 1)), t), t);
  p[u->time_axis] = rlx_ir_max(ctx, rlx_ir_min(ctx, src, rlx_ir_sub(ctx, ext, i64(ctx, 1))), i64(ctx, 0));
  return rlx_te_load(ctx, u->x, r, p);
}

static RLX_MUST_USE rlx_status_t* te_reverse_sequence(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                                      rlx_te_tensor_t** out) {
  rev_user_t* u = user;
  u->x = in[0];
  u->lens = in[1];
  *out = rlx_te_compute(ctx, in[0]->buffer->ndim, in[0]->buffer->shape, rev_body, u, "T_reverse_sequence", "injective");
  return NULL;
}

OT_CONVERTER(ot_reverse_sequence) {
  rlx_sinfo_tensor_t *x, *lens;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &lens));
  RLX_RETURN_IF_ERROR(need_index_dtype(node, 1, lens));
  if (x->ndim < 2) return rlx_onnx_error(node, "needs an input of rank >= 2");
  rev_user_t u;
  memset(&u, 0, sizeof(u));
  RLX_RETURN_IF_ERROR(ot_axis(node, "batch_axis", rlx_onnx_attr_int(node, "batch_axis", 1), x->ndim, &u.batch_axis));
  RLX_RETURN_IF_ERROR(ot_axis(node, "time_axis", rlx_onnx_attr_int(node, "time_axis", 0), x->ndim, &u.time_axis));
  if (u.batch_axis == u.time_axis) return rlx_onnx_error(node, "batch_axis and time_axis must differ");
  if (lens->ndim != 1 || !rlx_ir_prove_equal(rlx_onnx_ctx(im), lens->shape[0], x->shape[u.batch_axis]))
    return rlx_onnx_error(node, "sequence_lens must be 1-D with the batch extent");
  return rlx_onnx_emit_te(im, te_reverse_sequence, &u, 2, inputs, "reverse_sequence", &outputs[0]);
}
