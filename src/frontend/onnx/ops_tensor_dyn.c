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
static RLX_MUST_USE rlx_status_t* static_len(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i, int64_t* out) {
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
  rlx_sinfo_tensor_t* st;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &st));
  if (st->ndim != 1) /* expand_dim reads its length (a 0-d shape crashed the importer: fuzz finding) */
    return rlx_onnx_error(node, "input 1 ('%s') must be a 1-d tensor of static length", node->inputs[1]);
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
  return ot_op(im, RLX_OP_BROADCAST_TO, 2, args, (rlx_attrs_t){0}, &outputs[0]);
}

/* Value j of the integer input 1 (args: x, ints). */
static rlx_expr_t* value_of_in1(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  (void)user;
  return rlx_onnx_load_int(ctx, ins[1], j);
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
  return ot_op(im, RLX_OP_FULL, 2, args, (rlx_attrs_t){0}, out);
}

/* ------------------------------------------------------------------ NonZero, Compress */
/* builtin(args...) returning a 2-d int64 tensor whose dim count_at is known only after the
 * call (the other is `other`); that dim is bound by match_cast to a fresh var y_count. */
static RLX_MUST_USE rlx_status_t* call_counted(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, const char* builtin,
                                  int n_args, rlx_relax_expr_t* const* args, int count_at, int64_t other,
                                  rlx_relax_expr_t** out, rlx_expr_t** out_count) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_t* any = rlx_sinfo_tensor(ctx, 2, NULL, rlx_dt_int64());
  rlx_relax_var_t* v = NULL;
  RLX_RETURN_IF_ERROR(
      rlx_bb_emit(rlx_onnx_bb(im), rlx_relax_call_pure_packed(ctx, builtin, n_args, args, 1, &any), NULL, &v));
  rlx_expr_t* count = rlx_onnx_fresh_dim(im, node, "count");
  rlx_expr_t* dims[2] = {i64(ctx, other), i64(ctx, other)};
  dims[count_at] = count;
  rlx_relax_var_t* m = NULL;
  RLX_RETURN_IF_ERROR(
      rlx_bb_match_cast(rlx_onnx_bb(im), &v->hdr, rlx_sinfo_tensor(ctx, 2, dims, rlx_dt_int64()), NULL, &m));
  *out = &m->hdr;
  if (out_count) *out_count = count;
  return NULL;
}

/* vm.builtin.nonzero(x): (rank, count). */
static RLX_MUST_USE rlx_status_t* nonzero(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* x, int rank,
                             rlx_relax_expr_t** out, rlx_expr_t** out_count) {
  return call_counted(im, node, "vm.builtin.nonzero", 1, &x, 1, rank, out, out_count);
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
  return ot_op(im, RLX_OP_TAKE, 2, args, attrs, out);
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

static RLX_MUST_USE rlx_status_t* te_range(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  (void)n;
  range_user_t* u = user;
  u->ins = in;
  return *out = rlx_te_compute(ctx, 1, &u->n, range_body, u, "T_range", "injective"), NULL;
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
  range_user_t u = {n[0], NULL};
  return rlx_onnx_emit_te(im, te_range, &u, 3, inputs, "range", &outputs[0]);
}

/* ------------------------------------------------------------------ OneHot */
typedef struct {
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

static RLX_MUST_USE rlx_status_t* te_onehot(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  (void)n;
  onehot_user_t* u = user;
  u->ins = in;
  int r = in[0]->buffer->ndim;
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r + 1);
  for (int d = 0, k = 0; d <= r; d++) s[d] = d == u->axis ? u->depth : in[0]->buffer->shape[k++];
  return *out = rlx_te_compute(ctx, r + 1, s, onehot_body, u, "T_one_hot", "injective"), NULL;
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
  onehot_user_t u = {(int)axis, NULL, NULL};
  if (rlx_onnx_const(im, inputs[1], &k)) {
    if (ot_numel(&k) != 1) return rlx_onnx_error(node, "depth must hold one value");
    u.depth = i64(rlx_onnx_ctx(im), ot_elem_i64(&k, 0));
  } else {
    rlx_expr_t** d = NULL;
    RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, onehot_depth, NULL, 2, inputs, 1, &d));
    u.depth = d[0];
  }
  rlx_relax_expr_t* args[3] = {inputs[0], inputs[1], inputs[2]};
  return rlx_onnx_emit_te(im, te_onehot, &u, 3, args, "one_hot", &outputs[0]);
}

/* ------------------------------------------------------------------ Tile */
typedef struct {
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

static RLX_MUST_USE rlx_status_t* te_tile(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  (void)n;
  tile_user_t* u = user;
  u->x = in[0];
  return *out = rlx_te_compute(ctx, u->n, u->dims, tile_body, u, "T_tile", "injective"), NULL;
}

rlx_status_t* ot_tile_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t n = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &n));
  if (n != x->ndim) return rlx_onnx_error(node, "repeats has %lld values for an input of rank %d", (long long)n, x->ndim);
  tile_user_t u = {x->ndim, NULL, NULL};
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, tile_dim, NULL, 2, inputs, (int)n, &u.dims));
  return rlx_onnx_emit_te(im, te_tile, &u, 1, inputs, "tile", &outputs[0]);
}

/* ------------------------------------------------------------------ Squeeze, Unsqueeze */
/* axes[i] (ins[1]) normalized for rank r. */
static rlx_expr_t* axis_at(rlx_ctx_t* ctx, rlx_te_tensor_t* axes, int i, int r) {
  rlx_expr_t* a = rlx_onnx_load_int(ctx, axes, i);
  return rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, a, i64(ctx, 0)), rlx_ir_add(ctx, a, i64(ctx, r)), a);
}

typedef struct {
  int k;      /* number of axes */
  bool unsq; /* Unsqueeze (else Squeeze) */
} sq_user_t;

/* Output dim j: Unsqueeze inserts 1 at each axis of the result; Squeeze keeps the dims of
 * x that no axis names, in order (x's dim m lands at m - #axes below m). */
static rlx_expr_t* squeeze_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  sq_user_t* u = user;
  const rlx_tir_buffer_t* x = ins[0]->buffer;
  int r = u->unsq ? x->ndim + u->k : x->ndim;
  if (u->unsq) {
    rlx_expr_t *is_axis = rlx_ir_bool(ctx, false), *below = i64(ctx, 0);
    for (int i = 0; i < u->k; i++) {
      rlx_expr_t* a = axis_at(ctx, ins[1], i, r);
      is_axis = rlx_ir_or(ctx, is_axis, rlx_ir_cmp(ctx, RLX_EXPR_EQ, a, i64(ctx, j)));
      below = rlx_ir_add(ctx, below, rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, a, i64(ctx, j)), i64(ctx, 1), i64(ctx, 0)));
    }
    rlx_expr_t* src = rlx_ir_sub(ctx, i64(ctx, j), below), *v = i64(ctx, 1);
    for (int m = 0; m < x->ndim; m++)
      v = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, src, i64(ctx, m)), as_i64(ctx, x->shape[m]), v);
    return rlx_ir_select(ctx, is_axis, i64(ctx, 1), v);
  }
  rlx_expr_t* v = i64(ctx, 0);
  for (int m = 0; m < x->ndim; m++) {
    rlx_expr_t *named = rlx_ir_bool(ctx, false), *below = i64(ctx, 0);
    for (int i = 0; i < u->k; i++) {
      rlx_expr_t* a = axis_at(ctx, ins[1], i, r);
      named = rlx_ir_or(ctx, named, rlx_ir_cmp(ctx, RLX_EXPR_EQ, a, i64(ctx, m)));
      below = rlx_ir_add(ctx, below, rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, a, i64(ctx, m)), i64(ctx, 1), i64(ctx, 0)));
    }
    rlx_expr_t* here = rlx_ir_and(ctx, rlx_ir_not(ctx, named), rlx_ir_cmp(ctx, RLX_EXPR_EQ, rlx_ir_sub(ctx, i64(ctx, m), below), i64(ctx, j)));
    v = rlx_ir_select(ctx, here, as_i64(ctx, x->shape[m]), v);
  }
  return v;
}

rlx_status_t* ot_squeeze_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                 bool unsqueeze, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t k = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &k));
  sq_user_t u = {(int)k, unsqueeze};
  int r = unsqueeze ? x->ndim + (int)k : x->ndim - (int)k;
  if (r < 0) return rlx_onnx_error(node, "%lld axes for an input of rank %d", (long long)k, x->ndim);
  rlx_expr_t** dims = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, squeeze_dim, &u, 2, inputs, r, &dims));
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_check(im, ot_prod(ctx, r, dims), ot_prod(ctx, x->ndim, x->shape)));
  return ot_reshape(im, inputs[0], r, dims, &outputs[0]);
}

/* ------------------------------------------------------------------ Slice */
/* Slice-10+ with any of starts, ends, axes, steps known at run time. Per dim d of x: the
 * entry i whose axis is d gives start, end and step (else 0, the extent, 1), clamped as
 * ONNX says; the lengths become symbolic vars, the kernel recomputes start and step. */
typedef struct {
  int n;            /* entries in starts / ends */
  int axes_arg;     /* argument index of axes (0: axes are 0..n-1) */
  int steps_arg;    /* of steps (0: all 1) */
  rlx_expr_t** len; /* output dims */
  rlx_te_tensor_t* const* ins;
} slice_user_t;

typedef struct {
  rlx_expr_t *start, *step, *len;
} slice_dim_t;

static rlx_expr_t* clamp(rlx_ctx_t* ctx, rlx_expr_t* v, rlx_expr_t* lo, rlx_expr_t* hi) {
  return rlx_ir_max(ctx, rlx_ir_min(ctx, v, hi), lo);
}

static slice_dim_t slice_dim(rlx_ctx_t* ctx, slice_user_t* u, rlx_te_tensor_t* const* ins, int d) {
  const rlx_tir_buffer_t* x = ins[0]->buffer;
  rlx_expr_t* dim = as_i64(ctx, x->shape[d]);
  rlx_expr_t *s = i64(ctx, 0), *e = dim, *st = i64(ctx, 1);
  for (int i = u->n - 1; i >= 0; i--) {
    rlx_expr_t* a = u->axes_arg ? axis_at(ctx, ins[u->axes_arg], i, x->ndim) : i64(ctx, i);
    rlx_expr_t* hit = rlx_ir_cmp(ctx, RLX_EXPR_EQ, a, i64(ctx, d));
    s = rlx_ir_select(ctx, hit, rlx_onnx_load_int(ctx, ins[1], i), s);
    e = rlx_ir_select(ctx, hit, rlx_onnx_load_int(ctx, ins[2], i), e);
    if (u->steps_arg) st = rlx_ir_select(ctx, hit, rlx_onnx_load_int(ctx, ins[u->steps_arg], i), st);
  }
  rlx_expr_t* zero = i64(ctx, 0);
  rlx_expr_t* pos = rlx_ir_cmp(ctx, RLX_EXPR_GT, st, zero);
  s = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, s, zero), rlx_ir_add(ctx, s, dim), s);
  e = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, e, zero), rlx_ir_add(ctx, e, dim), e);
  rlx_expr_t* last = rlx_ir_sub(ctx, dim, i64(ctx, 1));
  s = rlx_ir_select(ctx, pos, clamp(ctx, s, zero, dim), clamp(ctx, s, zero, last));
  e = rlx_ir_select(ctx, pos, clamp(ctx, e, zero, dim), clamp(ctx, e, i64(ctx, -1), last));
  /* ceil(|e - s| / |step|) when moving the step's way, else 0 */
  rlx_expr_t* dist = rlx_ir_select(ctx, pos, rlx_ir_sub(ctx, e, s), rlx_ir_sub(ctx, s, e));
  rlx_expr_t* mag = rlx_ir_select(ctx, pos, st, rlx_ir_sub(ctx, zero, st));
  mag = rlx_ir_max(ctx, mag, i64(ctx, 1)); /* a 0 step is reported by the length check */
  rlx_expr_t* len = rlx_ir_floordiv(ctx, rlx_ir_add(ctx, dist, rlx_ir_sub(ctx, mag, i64(ctx, 1))), mag);
  slice_dim_t r = {s, st, rlx_ir_max(ctx, len, zero)};
  return r;
}

static rlx_expr_t* slice_len(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  return slice_dim(ctx, user, ins, j).len;
}

static rlx_expr_t* slice_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  slice_user_t* u = user;
  int r = u->ins[0]->buffer->ndim;
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r > 0 ? r : 1);
  for (int d = 0; d < r; d++) {
    slice_dim_t sd = slice_dim(ctx, u, u->ins, d);
    p[d] = rlx_ir_add(ctx, sd.start, rlx_ir_mul(ctx, as_i64(ctx, &idx[d]->hdr), sd.step));
  }
  return rlx_te_load(ctx, u->ins[0], r, p);
}

static RLX_MUST_USE rlx_status_t* te_slice(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  (void)n;
  slice_user_t* u = user;
  u->ins = in;
  return *out = rlx_te_compute(ctx, in[0]->buffer->ndim, u->len, slice_body, u, "T_slice", "injective"), NULL;
}

OT_CONVERTER(ot_slice_runtime) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t ns = 0, ne = 0, k = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &ns));
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 2, &ne));
  if (ns != ne) return rlx_onnx_error(node, "starts has %lld values, ends %lld", (long long)ns, (long long)ne);
  slice_user_t u = {(int)ns, 0, 0, NULL, NULL};
  rlx_relax_expr_t* args[5] = {inputs[0], inputs[1], inputs[2], NULL, NULL};
  int n_args = 3;
  for (int i = 3; i <= 4; i++) {
    if (!ot_has_input(node, inputs, i)) continue;
    RLX_RETURN_IF_ERROR(static_len(node, inputs, i, &k));
    if (k != ns) return rlx_onnx_error(node, "input %d has %lld values, starts %lld", i, (long long)k, (long long)ns);
    if (i == 3) u.axes_arg = n_args;
    else u.steps_arg = n_args;
    args[n_args++] = inputs[i];
  }
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, slice_len, &u, n_args, args, x->ndim, &u.len));
  return rlx_onnx_emit_te(im, te_slice, &u, n_args, args, "slice", &outputs[0]);
}

/* ------------------------------------------------------------------ Split */
/* Split with the part sizes known at run time: each size is a symbolic var (their sum is
 * checked against the axis extent), part t reads x from the sum of the sizes before it. */
typedef struct {
  int axis, part;
  rlx_expr_t** shape;
  rlx_te_tensor_t* const* ins; /* x, split */
} split_user_t;

static rlx_expr_t* split_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  split_user_t* u = user;
  int r = u->ins[0]->buffer->ndim;
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r);
  for (int d = 0; d < r; d++) p[d] = as_i64(ctx, &idx[d]->hdr);
  for (int t = 0; t < u->part; t++) p[u->axis] = rlx_ir_add(ctx, p[u->axis], rlx_onnx_load_int(ctx, u->ins[1], t));
  return rlx_te_load(ctx, u->ins[0], r, p);
}

static RLX_MUST_USE rlx_status_t* te_split(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  (void)n;
  split_user_t* u = user;
  u->ins = in;
  return *out = rlx_te_compute(ctx, in[0]->buffer->ndim, u->shape, split_body, u, "T_split", "injective"), NULL;
}

rlx_status_t* ot_split_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                               int64_t axis, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t k = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &k));
  if (k != node->n_outputs)
    return rlx_onnx_error(node, "split has %lld sizes for %d outputs", (long long)k, node->n_outputs);
  rlx_expr_t** sizes = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, value_of_in1, NULL, 2, inputs, (int)k, &sizes));
  rlx_expr_t* total = i64(ctx, 0);
  for (int t = 0; t < k; t++) total = rlx_ir_add(ctx, total, sizes[t]);
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_check(im, total, x->shape[axis]));
  for (int t = 0; t < k; t++) {
    split_user_t u = {(int)axis, t, RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim), NULL};
    for (int d = 0; d < x->ndim; d++) u.shape[d] = d == axis ? sizes[t] : x->shape[d];
    RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_split, &u, 2, inputs, "split", &outputs[t]));
  }
  return NULL;
}

/* ------------------------------------------------------------------ Pad */
/* Pad-11+ with pads (and the fill value, axes) known at run time: the padded extents become
 * symbolic vars; the kernel maps each output index back (constant fill outside, edge clamp,
 * reflect, wrap). */
typedef enum { PAD_CONSTANT, PAD_EDGE, PAD_REFLECT, PAD_WRAP } pad_mode_t;

typedef struct {
  pad_mode_t mode;
  int n;         /* axes the pads describe */
  int value_arg; /* argument index of the fill value (0: 0) */
  int axes_arg;  /* of axes (0: 0..n-1) */
  rlx_expr_t** shape;
  rlx_te_tensor_t* const* ins; /* x, pads, ... */
} pad_user_t;

/* The pad before (end false) or after dim d. */
static rlx_expr_t* pad_of(rlx_ctx_t* ctx, pad_user_t* u, rlx_te_tensor_t* const* ins, int d, bool end) {
  int r = ins[0]->buffer->ndim;
  rlx_expr_t* v = i64(ctx, 0);
  for (int i = u->n - 1; i >= 0; i--) {
    rlx_expr_t* a = u->axes_arg ? axis_at(ctx, ins[u->axes_arg], i, r) : i64(ctx, i);
    v = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, a, i64(ctx, d)),
                      rlx_onnx_load_int(ctx, ins[1], end ? i + u->n : i), v);
  }
  return v;
}

static rlx_expr_t* pad_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  rlx_expr_t* x = as_i64(ctx, ins[0]->buffer->shape[j]);
  return rlx_ir_add(ctx, x, rlx_ir_add(ctx, pad_of(ctx, user, ins, j, false), pad_of(ctx, user, ins, j, true)));
}

static rlx_expr_t* pad_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  pad_user_t* u = user;
  rlx_te_tensor_t* x = u->ins[0];
  int r = x->buffer->ndim;
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r > 0 ? r : 1);
  rlx_expr_t* inside = rlx_ir_bool(ctx, true);
  for (int d = 0; d < r; d++) {
    rlx_expr_t* ext = as_i64(ctx, x->buffer->shape[d]);
    rlx_expr_t* last = rlx_ir_sub(ctx, ext, i64(ctx, 1));
    rlx_expr_t* s = rlx_ir_sub(ctx, as_i64(ctx, &idx[d]->hdr), pad_of(ctx, u, u->ins, d, false));
    rlx_expr_t* lo = rlx_ir_cmp(ctx, RLX_EXPR_LT, s, i64(ctx, 0));
    rlx_expr_t* hi = rlx_ir_cmp(ctx, RLX_EXPR_GT, s, last);
    switch (u->mode) {
      case PAD_CONSTANT:
        inside = rlx_ir_and(ctx, inside, rlx_ir_not(ctx, rlx_ir_or(ctx, lo, hi)));
        p[d] = clamp(ctx, s, i64(ctx, 0), last);
        break;
      case PAD_EDGE: p[d] = clamp(ctx, s, i64(ctx, 0), last); break;
      case PAD_REFLECT: /* one reflection: pads shorter than the extent, as ONNX requires */
        s = rlx_ir_select(ctx, lo, rlx_ir_sub(ctx, i64(ctx, 0), s), s);
        s = rlx_ir_select(ctx, hi, rlx_ir_sub(ctx, rlx_ir_mul(ctx, i64(ctx, 2), last), s), s);
        p[d] = clamp(ctx, s, i64(ctx, 0), last);
        break;
      case PAD_WRAP: p[d] = rlx_ir_floormod(ctx, s, rlx_ir_max(ctx, ext, i64(ctx, 1))); break;
    }
  }
  rlx_expr_t* v = rlx_te_load(ctx, x, r, p);
  if (u->mode != PAD_CONSTANT) return v;
  rlx_expr_t* fill = ot_scalar_expr(ctx, x->buffer->dtype, 0);
  if (u->value_arg) {
    rlx_te_tensor_t* f = u->ins[u->value_arg];
    rlx_expr_t* z = i64(ctx, 0);
    fill = rlx_te_load(ctx, f, f->buffer->ndim, f->buffer->ndim ? &z : NULL);
  }
  return rlx_ir_select(ctx, inside, v, fill);
}

static RLX_MUST_USE rlx_status_t* te_pad(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                         rlx_te_tensor_t** out) {
  (void)n;
  pad_user_t* u = user;
  u->ins = in;
  return *out = rlx_te_compute(ctx, in[0]->buffer->ndim, u->shape, pad_body, u, "T_pad", "injective"), NULL;
}

OT_CONVERTER(ot_pad_runtime) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  static const char* const modes[] = {"constant", "edge", "reflect", "wrap"};
  const char* mode = rlx_onnx_attr_string(node, "mode", "constant");
  pad_user_t u = {PAD_CONSTANT, x->ndim, 0, 0, NULL, NULL};
  int m = 0;
  while (m < 4 && strcmp(mode, modes[m]) != 0) m++;
  if (m == 4) return rlx_onnx_error(node, "mode '%s' is not supported", mode);
  u.mode = (pad_mode_t)m;
  rlx_relax_expr_t* args[4] = {inputs[0], inputs[1], NULL, NULL};
  int n_args = 2;
  int64_t k = 0;
  if (ot_has_input(node, inputs, 3)) {
    RLX_RETURN_IF_ERROR(static_len(node, inputs, 3, &k));
    u.n = (int)k;
    u.axes_arg = n_args;
    args[n_args++] = inputs[3];
  }
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &k));
  if (k != 2 * u.n) return rlx_onnx_error(node, "pads has %lld values, expected %d", (long long)k, 2 * u.n);
  if (ot_has_input(node, inputs, 2)) {
    u.value_arg = n_args;
    args[n_args++] = inputs[2];
  }
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, pad_dim, &u, n_args, args, x->ndim, &u.shape));
  return rlx_onnx_emit_te(im, te_pad, &u, n_args, args, "pad", &outputs[0]);
}

/* ------------------------------------------------------------------ NonMaxSuppression */
/* vm.builtin.non_max_suppression (see vm_builtins.c): the selected (batch, class, box) rows,
 * their count bound to a fresh var. Omitted inputs: at most 0 boxes per class, IoU
 * threshold 0, no score threshold. */
OT_CONVERTER(ot_non_max_suppression) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *b, *s;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &b));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &s));
  if (!rlx_dtype_eq(b->dtype, rlx_dt_float32()) || !rlx_dtype_eq(s->dtype, rlx_dt_float32()))
    return rlx_onnx_error(node, "needs float32 boxes and scores");
  int64_t zero_i = 0;
  float zero_f = 0;
  rlx_relax_expr_t* args[7] = {inputs[0], inputs[1], NULL, NULL, NULL, NULL, NULL};
  for (int i = 2; i <= 4; i++)
    args[i] = ot_has_input(node, inputs, i) ? inputs[i]
              : i == 2                     ? rlx_onnx_make_const(im, rlx_dt_int64(), 0, NULL, &zero_i)
                                           : rlx_onnx_make_const(im, rlx_dt_float32(), 0, NULL, &zero_f);
  args[5] = rlx_relax_prim_value(ctx, i64(ctx, rlx_onnx_attr_int(node, "center_point_box", 0) != 0));
  args[6] = rlx_relax_prim_value(ctx, i64(ctx, ot_has_input(node, inputs, 4)));
  return call_counted(im, node, "vm.builtin.non_max_suppression", 7, args, 0, 3, &outputs[0], NULL);
}

/* ------------------------------------------------------------------ Unique */
/* vm.builtin.unique returns (y, indices, inverse_indices, counts); the number of distinct
 * values (slices along axis) is bound by match_cast to a fresh var y_count. */
OT_CONVERTER(ot_unique) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t axis = -1;
  bool has_axis = rlx_onnx_has_attr(node, "axis");
  if (has_axis) RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis));
  rlx_expr_t* m = rlx_onnx_fresh_dim(im, node, "count");
  rlx_expr_t* slices = has_axis ? x->shape[axis] : ot_prod(ctx, x->ndim, x->shape);
  int ny = has_axis ? x->ndim : 1;
  rlx_expr_t** ys = RLX_NEW_ARRAY(ctx, rlx_expr_t*, ny);
  for (int d = 0; d < ny; d++) ys[d] = has_axis && d != axis ? x->shape[d] : m;
  rlx_sinfo_t* i64_any = rlx_sinfo_tensor(ctx, 1, NULL, rlx_dt_int64());
  rlx_sinfo_t* any[4] = {rlx_sinfo_tensor(ctx, ny, NULL, x->dtype), i64_any,
                         rlx_sinfo_tensor(ctx, 1, &slices, rlx_dt_int64()), i64_any};
  rlx_sinfo_t* known[4] = {rlx_sinfo_tensor(ctx, ny, ys, x->dtype), rlx_sinfo_tensor(ctx, 1, &m, rlx_dt_int64()),
                           any[2], rlx_sinfo_tensor(ctx, 1, &m, rlx_dt_int64())};
  rlx_sinfo_t* ret = rlx_sinfo_tuple(ctx, 4, any);
  rlx_relax_expr_t* args[3] = {inputs[0], rlx_relax_prim_value(ctx, i64(ctx, axis)),
                               rlx_relax_prim_value(ctx, i64(ctx, rlx_onnx_attr_int(node, "sorted", 1) != 0))};
  rlx_relax_var_t *v = NULL, *t = NULL;
  RLX_RETURN_IF_ERROR(
      rlx_bb_emit(rlx_onnx_bb(im), rlx_relax_call_pure_packed(ctx, "vm.builtin.unique", 3, args, 1, &ret), NULL, &v));
  RLX_RETURN_IF_ERROR(rlx_bb_match_cast(rlx_onnx_bb(im), &v->hdr, rlx_sinfo_tuple(ctx, 4, known), NULL, &t));
  for (int k = 0; k < node->n_outputs && k < 4; k++)
    RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_tuple_get_item(ctx, &t->hdr, k), &outputs[k]));
  return NULL;
}

/* ------------------------------------------------------------------ ReduceSum */
/* ReduceSum with axes known at run time: a sum with keepdims (dims 1 where an axis names
 * them, as vars) whose every output element runs over all of x and keeps the elements whose
 * non-reduced indices match (the reduced dims are not known when the loops are built:
 * numel(x) steps per output element, fine for the small inputs such models feed here); then
 * a reshape dropping the reduced dims unless keepdims. */
typedef struct {
  int k;
  rlx_expr_t** shape;
  rlx_te_tensor_t* const* ins; /* x, axes */
} rsum_user_t;

static rlx_expr_t* is_axis(rlx_ctx_t* ctx, rlx_te_tensor_t* axes, int k, int d, int r) {
  rlx_expr_t* v = rlx_ir_bool(ctx, false);
  for (int i = 0; i < k; i++) v = rlx_ir_or(ctx, v, rlx_ir_cmp(ctx, RLX_EXPR_EQ, axis_at(ctx, axes, i, r), i64(ctx, d)));
  return v;
}

static rlx_expr_t* rsum_dim(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  rsum_user_t* u = user;
  const rlx_tir_buffer_t* x = ins[0]->buffer;
  return rlx_ir_select(ctx, is_axis(ctx, ins[1], u->k, j, x->ndim), i64(ctx, 1), as_i64(ctx, x->shape[j]));
}

static rlx_expr_t* rsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  rsum_user_t* u = user;
  rlx_te_tensor_t* x = u->ins[0];
  int r = x->buffer->ndim;
  rlx_iter_var_t** ax = RLX_NEW_ARRAY(ctx, rlx_iter_var_t*, r > 0 ? r : 1);
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r > 0 ? r : 1);
  rlx_expr_t* keep = rlx_ir_bool(ctx, true);
  for (int d = 0; d < r; d++) {
    ax[d] = rlx_te_reduce_axis(ctx, i64(ctx, 0), as_i64(ctx, x->buffer->shape[d]), rlx_ctx_sprintf(ctx, "k%d", d));
    rlx_expr_t* rd = &ax[d]->var->hdr;
    p[d] = rd;
    rlx_expr_t* same = rlx_ir_cmp(ctx, RLX_EXPR_EQ, rd, as_i64(ctx, &idx[d]->hdr));
    keep = rlx_ir_and(ctx, keep, rlx_ir_or(ctx, is_axis(ctx, u->ins[1], u->k, d, r), same));
  }
  return rlx_te_reduce(ctx, RLX_REDUCE_SUM, rlx_te_load(ctx, x, r, p), r, ax, keep);
}

static RLX_MUST_USE rlx_status_t* te_rsum(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  (void)n;
  rsum_user_t* u = user;
  u->ins = in;
  return *out = rlx_te_compute(ctx, in[0]->buffer->ndim, u->shape, rsum_body, u, "T_reduce_sum", "comm_reduce"), NULL;
}

RLX_MUST_USE rlx_status_t* rlx_onnx_reduce_sum_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                          rlx_relax_expr_t* const* inputs, bool keepdims, rlx_relax_expr_t** out) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t k = 0;
  RLX_RETURN_IF_ERROR(static_len(node, inputs, 1, &k));
  if (k > x->ndim) return rlx_onnx_error(node, "%lld axes for an input of rank %d", (long long)k, x->ndim);
  rsum_user_t u = {(int)k, NULL, NULL};
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, rsum_dim, &u, 2, inputs, x->ndim, &u.shape));
  rlx_relax_expr_t* y = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_rsum, &u, 2, inputs, "reduce_sum", &y));
  if (keepdims) {
    *out = y;
    return NULL;
  }
  rlx_relax_expr_t* sq[2] = {y, inputs[1]};
  return ot_squeeze_runtime(im, node, sq, false, out);
}

/* ------------------------------------------------------------------ window functions */
/* HannWindow / HammingWindow / BlackmanWindow(size): w[n] = a0 - a1 cos(2 pi n / N) +
 * a2 cos(4 pi n / N), N = size (periodic) or size - 1 (symmetric), in float64 cast to
 * output_datatype; the size may arrive at run time (a symbolic extent). */
typedef struct {
  double a0, a1, a2;
  bool periodic;
  rlx_dtype_t dtype;
  rlx_expr_t* n;
} window_user_t;

static rlx_expr_t* window_len(rlx_ctx_t* ctx, rlx_te_tensor_t* const* ins, int j, void* user) {
  (void)j;
  (void)user;
  return rlx_ir_max(ctx, rlx_onnx_load_int(ctx, ins[0], 0), i64(ctx, 0));
}

static rlx_expr_t* window_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  window_user_t* u = user;
  rlx_dtype_t f = rlx_dt_float64();
  rlx_expr_t* big_n = rlx_ir_cast(ctx, f, u->periodic ? u->n : rlx_ir_sub(ctx, u->n, i64(ctx, 1)));
  rlx_expr_t* t = rlx_ir_div(ctx, rlx_ir_mul(ctx, rlx_ir_cast(ctx, f, &idx[0]->hdr), rlx_ir_float(ctx, f, 6.283185307179586)), big_n);
  rlx_expr_t* t2 = rlx_ir_mul(ctx, t, rlx_ir_float(ctx, f, 2));
  rlx_expr_t* w = rlx_ir_sub(ctx, rlx_ir_float(ctx, f, u->a0),
                             rlx_ir_mul(ctx, rlx_ir_float(ctx, f, u->a1), rlx_ir_call(ctx, f, "cos", 1, &t)));
  if (u->a2 != 0) w = rlx_ir_add(ctx, w, rlx_ir_mul(ctx, rlx_ir_float(ctx, f, u->a2), rlx_ir_call(ctx, f, "cos", 1, &t2)));
  return rlx_ir_cast(ctx, u->dtype, w);
}

static RLX_MUST_USE rlx_status_t* te_window(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  (void)in;
  (void)n;
  window_user_t* u = user;
  return *out = rlx_te_compute(ctx, 1, &u->n, window_body, u, "T_window", "injective"), NULL;
}

OT_CONVERTER(ot_window) {
  rlx_sinfo_tensor_t* s;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &s));
  window_user_t u = {0.5, 0.5, 0, rlx_onnx_attr_int(node, "periodic", 1) != 0, rlx_dt_float32(), NULL};
  if (strcmp(node->op_type, "HammingWindow") == 0) {
    u.a0 = 25.0 / 46.0;
    u.a1 = 21.0 / 46.0;
  } else if (strcmp(node->op_type, "BlackmanWindow") == 0) {
    u.a0 = 0.42;
    u.a2 = 0.08;
  }
  int64_t dt = rlx_onnx_attr_int(node, "output_datatype", 1);
  if (dt == 11) u.dtype = rlx_dt_float64();
  else if (dt != 1) return rlx_onnx_error(node, "output_datatype %lld is not supported (float or double)", (long long)dt);
  rlx_expr_t** n = NULL;
  RLX_RETURN_IF_ERROR(rlx_onnx_runtime_dims(im, node, window_len, NULL, 1, inputs, 1, &n));
  u.n = n[0];
  return rlx_onnx_emit_te(im, te_window, &u, 1, inputs, "window", &outputs[0]);
}
