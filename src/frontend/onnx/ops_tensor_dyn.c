/* ONNX converters, family "tensor": the paths taken when a shape-deciding input is not a
 * constant (it arrives at run time), and the ops whose output size depends on values.
 *
 * Shape values known at run time become symbolic dims through rlx_onnx_runtime_dims (a
 * small kernel computes them, R.tensor_to_shape + R.match_cast bind them); the op is then
 * emitted over those dims, reading any other run-time parameter (Range's start, OneHot's
 * values) from its tensor inside the kernel.
 *
 * Data-dependent output sizes (NonZero, Compress) are computed by a VM builtin that counts,
 * allocates and fills (vm.builtin.nonzero, called through R.call_pure_packed with struct info
 * R.Tensor(ndim=2)); R.match_cast then binds the count to a fresh symbolic var, so what
 * follows (Gather, Transpose ...) is compiled once for every count.
 */
#include <string.h>

#include "ops_tensor_internal.h"

static rlx_expr_t* i64(rlx_ctx_t* ctx, int64_t v) { return rlx_ir_i64(ctx, v); }
static rlx_expr_t* as_i64(rlx_ctx_t* ctx, rlx_expr_t* e) { return rlx_ir_cast(ctx, rlx_dt_int64(), e); }

/* The static length of a 1-d input (a 0-d one counts as 1); error naming the node. */
static rlx_status_t* static_len(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i, int64_t* out) {
  rlx_sinfo_tensor_t* t;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, i, true, &t));
  if (t->ndim == 0) {
    *out = 1;
    return NULL;
  }
  if (t->ndim != 1 || !rlx_expr_is_const_int(t->shape[0], out))
    return rlx_onnx_error(node, "input %d ('%s') must be a 1-d tensor of static length", i, node->inputs[i]);
  return NULL;
}

/* Value j of the only integer input. */
static rlx_expr_t* value_of_in0(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  (void)user;
  return rlx_onnx_load_int(ctx, ins[0], j);
}

/* ------------------------------------------------------------------ Reshape, Expand */
/* Dim j of Reshape's target at run time: ins = (x, shape); 0 copies x's dim (unless
 * allowzero), -1 is what is left of x's element count. */
static rlx_expr_t* reshape_dim_at(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, bool allowzero) {
  const rlx_tir_buffer_t* x = ins[0]->buffer;
  rlx_expr_t* v = rlx_onnx_load_int(ctx, ins[1], j);
  if (allowzero) return v;
  rlx_expr_t* xd = j < x->ndim ? rlx_ir_cast(ctx, rlx_dt_int64(), x->shape[j]) : rlx_ir_i64(ctx, 0);
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, v, rlx_ir_i64(ctx, 0)), xd, v);
}

typedef struct {
  bool allowzero;
  int n;
} reshape_user_t;

static rlx_expr_t* reshape_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  reshape_user_t* u = user;
  const rlx_tir_buffer_t* x = ins[0]->buffer;
  rlx_expr_t* rest = rlx_ir_i64(ctx, 1);
  for (int i = 0; i < u->n; i++)
    if (i != j) rest = rlx_ir_mul(ctx, rest, reshape_dim_at(ctx, ins, i, u->allowzero));
  rlx_expr_t* v = rlx_onnx_load_int(ctx, ins[1], j);
  rlx_expr_t* inferred = rlx_ir_floordiv(ctx, ot_prod(ctx, x->ndim, x->shape), rlx_ir_max(ctx, rest, rlx_ir_i64(ctx, 1)));
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, v, rlx_ir_i64(ctx, -1)), inferred,
                       reshape_dim_at(ctx, ins, j, u->allowzero));
}

/* Reshape to a shape known at run time: the dims become symbolic vars; their product is
 * checked against x's element count when the model runs. */
OT_CONVERTER(ot_reshape_runtime) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t n = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &n));
  reshape_user_t u = {rlx_onnx_attr_int(node, "allowzero", 0) != 0, (int)n};
  rlx_expr_t** dims = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, reshape_dim, &u, 2, inputs, (int)n, &dims));
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_check(im, ot_prod(ctx, (int)n, dims), ot_prod(ctx, x->ndim, x->shape)));
  return ot_reshape(im, inputs[0], (int)n, dims, &outputs[0]);
}

/* Dim j of Expand's result at run time: ins = (x, shape), the numpy broadcast of both. */
static rlx_expr_t* expand_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  int on = *(int*)user;
  const rlx_tir_buffer_t* x = ins[0]->buffer;
  int sn = (int)((rlx_int_imm_t*)ins[1]->buffer->shape[0])->value;
  int xj = j - (on - x->ndim), sj = j - (on - sn);
  rlx_expr_t* xd = xj >= 0 ? rlx_ir_cast(ctx, rlx_dt_int64(), x->shape[xj]) : rlx_ir_i64(ctx, 1);
  if (sj < 0) return xd;
  rlx_expr_t* sd = rlx_onnx_load_int(ctx, ins[1], sj);
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, sd, rlx_ir_i64(ctx, 1)), xd, sd);
}

/* Expand to a shape known at run time: the result's dims become symbolic vars; each dim of
 * x other than 1 is checked against its result dim when the model runs. */
OT_CONVERTER(ot_expand_runtime) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t n = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &n));
  int on = x->ndim > (int)n ? x->ndim : (int)n;
  rlx_expr_t** dims = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, expand_dim, &on, 2, inputs, on, &dims));
  for (int j = 0; j < x->ndim; j++) {
    int64_t c;
    if (rlx_expr_is_const_int(x->shape[j], &c) && c == 1) continue;
    RLX_RETURN_IF_ERROR(rlx_onnx_runtime_check(im, dims[j + on - x->ndim], x->shape[j]));
    dims[j + on - x->ndim] = x->shape[j]; /* equal, checked: keeps the broadcast provable */
  }
  rlx_relax_expr_t* args[2] = {inputs[0], rlx_relax_shape_expr(ctx, on, dims)};
  return ot_op(im, "relax.broadcast_to", 2, args, (rlx_attrs_t){0}, &outputs[0]);
}

/* ------------------------------------------------------------------ ConstantOfShape */
rlx_status_t* ot_constant_of_shape_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                           rlx_relax_expr_t* const* inputs, rlx_relax_expr_t* fill,
                                           rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int64_t n = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 0, &n));
  rlx_expr_t** dims = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, value_of_in0, NULL, 1, inputs, (int)n, &dims));
  rlx_relax_expr_t* args[2] = {rlx_relax_shape_expr(ctx, (int)n, dims), fill};
  return ot_op(im, "relax.full", 2, args, (rlx_attrs_t){0}, out);
}

/* ------------------------------------------------------------------ NonZero, Compress */
/* vm.builtin.nonzero(x), its count bound to a fresh symbolic var: (rank, count) int64. */
static rlx_status_t* nonzero(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* x, int rank,
                             rlx_relax_expr_t** out, rlx_expr_t** out_count) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_t* any = rlx_sinfo_tensor(ctx, 2, NULL, rlx_dt_int64());
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(
      rlx_bb_emit(rlx_onnx_bb(im), rlx_relax_call_pure_packed(ctx, "vm.builtin.nonzero", 1, &x, 1, &any), NULL, &v));
  rlx_expr_t* count = rlx_onnx_fresh_dim(im, node, "count");
  rlx_expr_t* dims[2] = {i64(ctx, rank), count};
  rlx_relax_var_t* m = NULL;
  RLX_RETURN_IF_ERROR(
      rlx_bb_match_cast(rlx_onnx_bb(im), &v->hdr, rlx_sinfo_tensor(ctx, 2, dims, rlx_dt_int64()), NULL, &m));
  *out = &m->hdr;
  if (out_count) *out_count = count;
  return NULL;
}

rlx_status_t* ot_non_zero_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                  rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  if (x->ndim < 0) return rlx_onnx_error(node, "input 0 needs a known rank");
  return nonzero(im, node, inputs[0], x->ndim, &outputs[0], NULL);
}

rlx_status_t* ot_compress_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                  rlx_relax_expr_t* data, int64_t axis, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* c;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &c));
  if (c->ndim != 1) return rlx_onnx_error(node, "condition must be 1-D, got rank %d", c->ndim);
  rlx_relax_expr_t* nz = NULL;
  rlx_expr_t* count = NULL;
  RLX_RETURN_IF_ERROR(nonzero(im, node, inputs[1], 1, &nz, &count));
  rlx_relax_expr_t* idx = NULL;
  RLX_RETURN_IF_ERROR(ot_reshape(im, nz, 1, &count, &idx));
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis));
  attrs = ot_attr(ctx, attrs, "mode", rlx_attr_str("clip"));
  rlx_relax_expr_t* args[2] = {data, idx};
  return ot_op(im, "relax.take", 2, args, attrs, out);
}

/* ------------------------------------------------------------------ Range */
/* max(ceil((limit - start) / delta), 0), in double (ONNX computes it in the input type; the
 * counts the suite uses are exact in double). */
static rlx_expr_t* range_len(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  (void)j;
  (void)user;
  rlx_dtype_t f64 = rlx_dt_float64();
  rlx_expr_t* z = NULL;
  rlx_expr_t* v[3];
  for (int i = 0; i < 3; i++) v[i] = rlx_ir_cast(ctx, f64, rlx_te_load(ctx, ins[i], 0, &z));
  rlx_expr_t* q = rlx_ir_div(ctx, rlx_ir_sub(ctx, v[1], v[0]), v[2]);
  rlx_expr_t* c = rlx_ir_call(ctx, f64, "ceil", 1, &q);
  return rlx_ir_max(ctx, as_i64(ctx, c), i64(ctx, 0));
}

typedef struct {
  ot_te_user_t base;
  rlx_expr_t* n;
  rlx_te_tensor_t* const* ins;
} range_user_t;

static rlx_expr_t* range_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  range_user_t* u = user;
  rlx_dtype_t t = u->ins[0]->buffer->dtype;
  rlx_expr_t* z = NULL;
  rlx_expr_t* start = rlx_te_load(ctx, u->ins[0], 0, &z);
  rlx_expr_t* delta = rlx_te_load(ctx, u->ins[2], 0, &z);
  return rlx_ir_add(ctx, start, rlx_ir_mul(ctx, rlx_ir_cast(ctx, t, &idx[0]->hdr), delta));
}

static rlx_te_tensor_t* te_range(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user) {
  (void)n;
  range_user_t* u = user;
  u->ins = in;
  return rlx_te_compute(ctx, 1, &u->n, range_body, u, "T_range", "injective");
}

rlx_status_t* ot_range_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                               rlx_relax_expr_t** outputs) {
  for (int i = 0; i < 3; i++) {
    rlx_sinfo_tensor_t* t;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, i, true, &t));
    if (t->ndim != 0) return rlx_onnx_error(node, "input %d must be a scalar, got rank %d", i, t->ndim);
  }
  rlx_expr_t** n = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, range_len, NULL, 3, inputs, 1, &n));
  range_user_t u = {{NULL}, n[0], NULL};
  return ot_emit_te(im, te_range, &u.base, 3, inputs, "range", &outputs[0]);
}

/* ------------------------------------------------------------------ OneHot */
typedef struct {
  ot_te_user_t base;
  int axis; /* in the output */
  rlx_expr_t* depth;
  rlx_te_tensor_t* const* ins; /* indices, depth, values */
} onehot_user_t;

static rlx_expr_t* onehot_depth(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  (void)j;
  (void)user;
  rlx_expr_t* z = i64(ctx, 0);
  rlx_te_tensor_t* d = ins[1];
  return as_i64(ctx, rlx_te_load(ctx, d, d->buffer->ndim, d->buffer->ndim ? &z : NULL));
}

static rlx_expr_t* onehot_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  onehot_user_t* u = user;
  rlx_te_tensor_t* ind = u->ins[0];
  int r = ind->buffer->ndim;
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r > 0 ? r : 1);
  for (int d = 0, k = 0; d <= r; d++)
    if (d != u->axis) p[k++] = &idx[d]->hdr;
  rlx_expr_t* v = as_i64(ctx, rlx_te_load(ctx, ind, r, p));
  rlx_expr_t* depth = as_i64(ctx, u->depth);
  v = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, v, i64(ctx, 0)), rlx_ir_add(ctx, v, depth), v);
  rlx_expr_t *i0 = i64(ctx, 0), *i1 = i64(ctx, 1);
  rlx_expr_t* on = rlx_te_load(ctx, u->ins[2], 1, &i1);
  rlx_expr_t* off = rlx_te_load(ctx, u->ins[2], 1, &i0);
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, v, as_i64(ctx, &idx[u->axis]->hdr)), on, off);
}

static rlx_te_tensor_t* te_onehot(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user) {
  (void)n;
  onehot_user_t* u = user;
  u->ins = in;
  int r = in[0]->buffer->ndim;
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r + 1);
  for (int d = 0, k = 0; d <= r; d++) s[d] = d == u->axis ? u->depth : in[0]->buffer->shape[k++];
  return rlx_te_compute(ctx, r + 1, s, onehot_body, u, "T_one_hot", "injective");
}

rlx_status_t* ot_one_hot_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                 rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t *ind, *vals;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &ind));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 2, true, &vals));
  int64_t nv = 0;
  if (vals->ndim != 1 || !rlx_expr_is_const_int(vals->shape[0], &nv) || nv != 2)
    return rlx_onnx_error(node, "input 2 (values) must be [off_value, on_value]");
  int64_t axis = 0;
  RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", -1), ind->ndim + 1, &axis));
  rlx_onnx_tensor_t k;
  onehot_user_t u = {{NULL}, (int)axis, NULL, NULL};
  if (rlx_onnx_const(im, inputs[1], &k)) {
    if (ot_numel(&k) != 1) return rlx_onnx_error(node, "depth must hold one value");
    u.depth = i64(rlx_onnx_ctx(im), ot_elem_i64(&k, 0));
  } else {
    rlx_expr_t** d = NULL;
    RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, onehot_depth, NULL, 2, inputs, 1, &d));
    u.depth = d[0];
  }
  rlx_relax_expr_t* args[3] = {inputs[0], inputs[1], inputs[2]};
  return ot_emit_te(im, te_onehot, &u.base, 3, args, "one_hot", &outputs[0]);
}

/* ------------------------------------------------------------------ Tile */
typedef struct {
  ot_te_user_t base;
  int n;
  rlx_expr_t** dims;
  rlx_te_tensor_t* x;
} tile_user_t;

static rlx_expr_t* tile_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  (void)user;
  return rlx_ir_mul(ctx, as_i64(ctx, ins[0]->buffer->shape[j]), rlx_onnx_load_int(ctx, ins[1], j));
}

static rlx_expr_t* tile_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  tile_user_t* u = user;
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, u->n > 0 ? u->n : 1);
  for (int d = 0; d < u->n; d++)
    p[d] = rlx_ir_floormod(ctx, as_i64(ctx, &idx[d]->hdr), as_i64(ctx, u->x->buffer->shape[d]));
  return rlx_te_load(ctx, u->x, u->n, p);
}

static rlx_te_tensor_t* te_tile(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user) {
  (void)n;
  tile_user_t* u = user;
  u->x = in[0];
  return rlx_te_compute(ctx, u->n, u->dims, tile_body, u, "T_tile", "injective");
}

rlx_status_t* ot_tile_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t n = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &n));
  if (n != x->ndim) return rlx_onnx_error(node, "repeats has %lld values for an input of rank %d", (long long)n, x->ndim);
  tile_user_t u = {{NULL}, x->ndim, NULL, NULL};
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, tile_dim, NULL, 2, inputs, (int)n, &u.dims));
  return ot_emit_te(im, te_tile, &u.base, 1, inputs, "tile", &outputs[0]);
}
