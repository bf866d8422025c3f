/* topi index ops: tile, flip, cumsum, gather_elements, arange, tril/triu, one_hot,
 * scatter_elements (see basic.h). */
#include <stdint.h>
#include <string.h>

#include "basic.h"

/* ------------------------------------------------------------------ tile */
typedef struct {
  rlx_te_tensor_t* x;
  int ndim; /* output rank */
} tile_user_t;

static rlx_expr_t* tile_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  tile_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    rlx_expr_t* i = &idx[d + u->ndim - n]->hdr;
    ix[d] = rlx_ir_floormod(ctx, i, rlx_ir_cast(ctx, i->dtype, u->x->buffer->shape[d]));
  }
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_tile(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int n_reps, const int64_t* reps,
                                         rlx_te_tensor_t** out) {
  if (!x || n_reps < 0 || (n_reps && !reps))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.tile: NULL input or repeats");
  int n = x->buffer->ndim, on = n > n_reps ? n : n_reps;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  for (int d = 0; d < on; d++) {
    int xd = d - (on - n), rd = d - (on - n_reps);
    int64_t r = rd >= 0 ? reps[rd] : 1;
    if (r < 0) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.tile: negative repeat count %lld", (long long)r);
    rlx_expr_t* dim = xd >= 0 ? x->buffer->shape[xd] : rlx_ir_i64(ctx, 1);
    shape[d] = rlx_topi_simplify_dim(ctx, rlx_ir_mul(ctx, dim, rlx_ir_int(ctx, dim->dtype, r)));
  }
  tile_user_t* u = RLX_NEW(ctx, tile_user_t);
  u->x = x;
  u->ndim = on;
  *out = rlx_te_compute(ctx, on, shape, tile_body, u, "T_tile", "injective");
  return NULL;
}

/* ------------------------------------------------------------------ flip */
typedef struct {
  rlx_te_tensor_t* x;
  int axis;
} flip_user_t;

static rlx_expr_t* flip_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  flip_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) ix[d] = &idx[d]->hdr;
  rlx_expr_t* i = ix[u->axis];
  rlx_expr_t* ext = rlx_ir_cast(ctx, i->dtype, u->x->buffer->shape[u->axis]);
  ix[u->axis] = rlx_ir_sub(ctx, rlx_ir_sub(ctx, ext, rlx_ir_int(ctx, i->dtype, 1)), i);
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_flip(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int64_t axis, rlx_te_tensor_t** out) {
  if (!x) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.flip: NULL input");
  int n = x->buffer->ndim;
  if (axis < -n || axis >= n)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.flip: axis %lld is out of range for rank %d", (long long)axis,
                             n);
  flip_user_t* u = RLX_NEW(ctx, flip_user_t);
  u->x = x;
  u->axis = (int)(axis < 0 ? axis + n : axis);
  *out = rlx_te_compute(ctx, n, x->buffer->shape, flip_body, u, "T_reverse_sequence", "injective");
  return NULL;
}

/* ------------------------------------------------------------------ cumsum */
typedef struct {
  rlx_te_tensor_t* x;
  int axis;
  bool exclusive;
  rlx_dtype_t dtype;
  rlx_iter_var_t* k;
} cumsum_user_t;

/* out[.., i, ..] = sum over k <= i (k < i when exclusive) of x[.., k, ..]: a conditional
 * reduction (quadratic along the axis, simple and schedulable). */
static rlx_expr_t* cumsum_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  cumsum_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) ix[d] = &idx[d]->hdr;
  rlx_expr_t* i = ix[u->axis];
  rlx_expr_t* k = &u->k->var->hdr;
  ix[u->axis] = k;
  rlx_expr_t* v = rlx_ir_cast(ctx, u->dtype, rlx_te_load(ctx, u->x, n, ix));
  rlx_expr_t* cond = rlx_ir_cmp(ctx, u->exclusive ? RLX_EXPR_LT : RLX_EXPR_LE, k, rlx_ir_cast(ctx, k->dtype, i));
  return rlx_te_reduce(ctx, RLX_REDUCE_SUM, v, 1, &u->k, cond);
}

RLX_MUST_USE rlx_status_t* rlx_topi_cumsum(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int64_t axis, rlx_dtype_t dtype,
                                           bool exclusive, rlx_te_tensor_t** out) {
  if (!x) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.cumsum: NULL input");
  int n = x->buffer->ndim;
  if (axis < -n || axis >= n)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.cumsum: axis %lld is out of range for rank %d",
                             (long long)axis, n);
  if (axis < 0) axis += n;
  if (rlx_dtype_is_bool(dtype) || dtype.code == RLX_DT_HANDLE)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.cumsum: needs a numeric dtype");
  cumsum_user_t* u = RLX_NEW(ctx, cumsum_user_t);
  u->x = x;
  u->axis = (int)axis;
  u->exclusive = exclusive;
  u->dtype = dtype;
  rlx_expr_t* ext = x->buffer->shape[axis];
  u->k = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, ext->dtype, 0), ext, "k");
  *out = rlx_te_compute(ctx, n, x->buffer->shape, cumsum_body, u, "T_cumsum", "");
  return NULL;
}

/* ------------------------------------------------------------------ gather_elements */
typedef struct {
  rlx_te_tensor_t* x;
  rlx_te_tensor_t* indices;
  int axis;
} gather_user_t;

static rlx_expr_t* gather_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  gather_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ii = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) ii[d] = ix[d] = &idx[d]->hdr;
  rlx_expr_t* ext = rlx_ir_cast(ctx, rlx_dt_int64(), u->x->buffer->shape[u->axis]);
  /* negative indices count from the end (ONNX GatherElements) */
  rlx_expr_t* k = rlx_ir_cast(ctx, rlx_dt_int64(), rlx_te_load(ctx, u->indices, n, ii));
  k = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, k, rlx_ir_i64(ctx, 0)), rlx_ir_add(ctx, k, ext), k);
  ix[u->axis] = rlx_ir_cast(ctx, u->x->buffer->shape[u->axis]->dtype, k);
  return rlx_te_load(ctx, u->x, n, ix);
}

RLX_MUST_USE rlx_status_t* rlx_topi_gather_elements(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* indices,
                                                    int64_t axis, rlx_te_tensor_t** out) {
  if (!x || !indices) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.gather_elements: NULL input");
  int n = x->buffer->ndim;
  rlx_dtype_t it = indices->buffer->dtype;
  if (it.code != RLX_DT_INT || (it.bits != 32 && it.bits != 64)) {
    char b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.gather_elements: indices must be int32 or int64, got %s",
                             rlx_dtype_str(it, b));
  }
  if (indices->buffer->ndim != n)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.gather_elements: indices have rank %d, data has rank %d",
                             indices->buffer->ndim, n);
  if (axis < -n || axis >= n)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.gather_elements: axis %lld is out of range for rank %d",
                             (long long)axis, n);
  gather_user_t* u = RLX_NEW(ctx, gather_user_t);
  u->x = x;
  u->indices = indices;
  u->axis = (int)(axis < 0 ? axis + n : axis);
  *out = rlx_te_compute(ctx, n, indices->buffer->shape, gather_body, u, "T_gather_elements", "injective");
  return NULL;
}

/* ------------------------------------------------------------------ arange, tril / triu */
typedef struct {
  rlx_expr_t* start;
  rlx_expr_t* step;
  rlx_dtype_t dtype;
} arange_user_t;

static rlx_expr_t* arange_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  arange_user_t* u = user;
  rlx_dtype_t t = u->dtype;
  rlx_expr_t* i = rlx_ir_cast(ctx, t, &idx[0]->hdr);
  return rlx_ir_add(ctx, rlx_ir_cast(ctx, t, u->start), rlx_ir_mul(ctx, i, rlx_ir_cast(ctx, t, u->step)));
}

RLX_MUST_USE rlx_status_t* rlx_topi_arange(rlx_ctx_t* ctx, rlx_expr_t* start, rlx_expr_t* step, rlx_expr_t* length,
                                           rlx_dtype_t dtype, rlx_te_tensor_t** out) {
  if (!start || !step || !length || rlx_dtype_is_bool(dtype) || dtype.code == RLX_DT_HANDLE)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.arange: missing bounds or a non-numeric dtype");
  arange_user_t* u = RLX_NEW(ctx, arange_user_t);
  u->start = start;
  u->step = step;
  u->dtype = dtype;
  rlx_expr_t* len = rlx_ir_cast(ctx, rlx_dt_int64(), length);
  *out = rlx_te_compute(ctx, 1, &len, arange_body, u, "T_arange", "elemwise");
  return NULL;
}

typedef struct {
  rlx_te_tensor_t* x;
  int64_t k;
  bool upper;
} tri_user_t;

static rlx_expr_t* tri_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  tri_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** ix = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) ix[d] = &idx[d]->hdr;
  rlx_expr_t* v = rlx_te_load(ctx, u->x, n, ix);
  rlx_dtype_t it = ix[n - 1]->dtype;
  rlx_expr_t* diff = rlx_ir_sub(ctx, rlx_ir_cast(ctx, it, ix[n - 1]), rlx_ir_cast(ctx, it, ix[n - 2]));
  rlx_expr_t* keep = rlx_ir_cmp(ctx, u->upper ? RLX_EXPR_GE : RLX_EXPR_LE, diff, rlx_ir_int(ctx, it, u->k));
  rlx_dtype_t t = v->dtype;
  rlx_expr_t* zero = rlx_dtype_is_float(t)  ? rlx_ir_float(ctx, t, 0)
                     : rlx_dtype_is_bool(t) ? rlx_ir_bool(ctx, false)
                                            : rlx_ir_int(ctx, t, 0);
  return rlx_ir_select(ctx, keep, v, zero);
}

RLX_MUST_USE rlx_status_t* rlx_topi_trilu(rlx_ctx_t* ctx, rlx_te_tensor_t* x, int64_t k, bool upper,
                                          rlx_te_tensor_t** out) {
  if (!x || x->buffer->ndim < 2)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.%s: needs a tensor of rank >= 2", upper ? "triu" : "tril");
  tri_user_t* u = RLX_NEW(ctx, tri_user_t);
  u->x = x;
  u->k = k;
  u->upper = upper;
  *out = rlx_te_compute(ctx, x->buffer->ndim, x->buffer->shape, tri_body, u, upper ? "T_triu" : "T_tril", "elemwise");
  return NULL;
}

/* ------------------------------------------------------------------ one_hot */
typedef struct {
  rlx_te_tensor_t* indices;
  rlx_expr_t* on;
  rlx_expr_t* off;
  int axis;
  int64_t depth;
} onehot_user_t;

static rlx_expr_t* onehot_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  onehot_user_t* u = user;
  int n = u->indices->buffer->ndim;
  rlx_expr_t** ii = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0, k = 0; d <= n; d++)
    if (d != u->axis) ii[k++] = &idx[d]->hdr;
  rlx_expr_t* v = rlx_ir_cast(ctx, rlx_dt_int64(), rlx_te_load(ctx, u->indices, n, ii));
  /* negative indices count from the end (ONNX OneHot) */
  v = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, v, rlx_ir_i64(ctx, 0)),
                    rlx_ir_add(ctx, v, rlx_ir_i64(ctx, u->depth)), v);
  rlx_expr_t* hit = rlx_ir_cmp(ctx, RLX_EXPR_EQ, v, rlx_ir_cast(ctx, rlx_dt_int64(), &idx[u->axis]->hdr));
  return rlx_ir_select(ctx, hit, u->on, u->off);
}

RLX_MUST_USE rlx_status_t* rlx_topi_one_hot(rlx_ctx_t* ctx, rlx_te_tensor_t* indices, rlx_expr_t* on, rlx_expr_t* off,
                                            int64_t depth, int64_t axis, rlx_te_tensor_t** out) {
  if (!indices || !on || !off || !rlx_dtype_eq(on->dtype, off->dtype))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.one_hot: NULL input or on/off values of different dtypes");
  rlx_dtype_t it = indices->buffer->dtype;
  if (it.code != RLX_DT_INT || (it.bits != 32 && it.bits != 64)) {
    char b[32];
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.one_hot: indices must be int32 or int64, got %s",
                             rlx_dtype_str(it, b));
  }
  int n = indices->buffer->ndim;
  if (axis < -(n + 1) || axis > n)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.one_hot: axis %lld is out of range for rank %d",
                             (long long)axis, n + 1);
  if (depth < 0) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.one_hot: negative depth");
  if (axis < 0) axis += n + 1;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n + 1);
  for (int d = 0, k = 0; d <= n; d++) shape[d] = d == axis ? rlx_ir_i64(ctx, depth) : indices->buffer->shape[k++];
  onehot_user_t* u = RLX_NEW(ctx, onehot_user_t);
  u->indices = indices;
  u->on = on;
  u->off = off;
  u->axis = (int)axis;
  u->depth = depth;
  *out = rlx_te_compute(ctx, n + 1, shape, onehot_body, u, "T_one_hot", "injective");
  return NULL;
}

/* ------------------------------------------------------------------ scatter_elements */
typedef struct {
  rlx_te_tensor_t* x;
  rlx_te_tensor_t* indices;
  rlx_te_tensor_t* updates;
  rlx_te_tensor_t* found; /* stage 1 */
  int axis;
  int red; /* 0 update, 1 add, 2 mul, 3 max, 4 min */
  rlx_iter_var_t* k;
} scatter_user_t;

/* indices/updates position for output position p and index k along the axis; other dims are
 * clamped into the indices' shape (the in-range test is separate, so no load goes out). */
static rlx_expr_t** scatter_q(rlx_ctx_t* ctx, scatter_user_t* u, rlx_var_t* const* p, rlx_expr_t* k) {
  int n = u->x->buffer->ndim;
  rlx_expr_t** q = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) {
    rlx_expr_t* i = &p[d]->hdr;
    rlx_expr_t* last =
        rlx_ir_sub(ctx, rlx_ir_cast(ctx, i->dtype, u->indices->buffer->shape[d]), rlx_ir_int(ctx, i->dtype, 1));
    q[d] = d == u->axis ? rlx_ir_cast(ctx, i->dtype, k) : rlx_ir_min(ctx, i, last);
  }
  return q;
}

/* p's non-axis coordinates lie inside the indices' shape, and indices[q] (negative from the
 * end) points at p's axis coordinate. */
static rlx_expr_t* scatter_match(rlx_ctx_t* ctx, scatter_user_t* u, rlx_var_t* const* p, rlx_expr_t** q) {
  int n = u->x->buffer->ndim;
  rlx_expr_t* cond = NULL;
  for (int d = 0; d < n; d++) {
    if (d == u->axis) continue;
    rlx_expr_t* i = &p[d]->hdr;
    rlx_expr_t* in = rlx_ir_cmp(ctx, RLX_EXPR_LT, i, rlx_ir_cast(ctx, i->dtype, u->indices->buffer->shape[d]));
    cond = cond ? rlx_ir_and(ctx, cond, in) : in;
  }
  rlx_expr_t* ext = rlx_ir_cast(ctx, rlx_dt_int64(), u->x->buffer->shape[u->axis]);
  rlx_expr_t* v = rlx_ir_cast(ctx, rlx_dt_int64(), rlx_te_load(ctx, u->indices, n, q));
  v = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_LT, v, rlx_ir_i64(ctx, 0)), rlx_ir_add(ctx, v, ext), v);
  rlx_expr_t* hit = rlx_ir_cmp(ctx, RLX_EXPR_EQ, v, rlx_ir_cast(ctx, rlx_dt_int64(), &p[u->axis]->hdr));
  return cond ? rlx_ir_and(ctx, cond, hit) : hit;
}

/* Stage 1: update → -(k + 1) for the last k that hits, as a min-reduction (INT64_MAX when
 * none; a max-reduction's INT64_MIN identity trips the simplifier); add/mul/max/min → the
 * combination of the updates that hit. */
static rlx_expr_t* scatter_stage1(rlx_ctx_t* ctx, rlx_var_t* const* p, void* user) {
  scatter_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t* k = &u->k->var->hdr;
  rlx_expr_t** q = scatter_q(ctx, u, p, k);
  rlx_expr_t* cond = scatter_match(ctx, u, p, q);
  if (u->red == 0) {
    rlx_expr_t* neg = rlx_ir_sub(ctx, rlx_ir_i64(ctx, -1), rlx_ir_cast(ctx, rlx_dt_int64(), k));
    return rlx_te_reduce(ctx, RLX_REDUCE_MIN, neg, 1, &u->k, cond);
  }
  static const rlx_reduce_kind_t comb[5] = {RLX_REDUCE_MAX, RLX_REDUCE_SUM, RLX_REDUCE_PROD, RLX_REDUCE_MAX,
                                            RLX_REDUCE_MIN};
  return rlx_te_reduce(ctx, comb[u->red], rlx_te_load(ctx, u->updates, n, q), 1, &u->k, cond);
}

static rlx_expr_t* scatter_stage2(rlx_ctx_t* ctx, rlx_var_t* const* p, void* user) {
  scatter_user_t* u = user;
  int n = u->x->buffer->ndim;
  rlx_expr_t** pi = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int d = 0; d < n; d++) pi[d] = &p[d]->hdr;
  rlx_expr_t* old = rlx_te_load(ctx, u->x, n, pi);
  rlx_expr_t* f = rlx_te_load(ctx, u->found, n, pi);
  switch (u->red) {
    case 1:
      return rlx_ir_add(ctx, old, f);
    case 2:
      return rlx_ir_mul(ctx, old, f);
    case 3:
      return rlx_ir_max(ctx, old, f);
    case 4:
      return rlx_ir_min(ctx, old, f);
    default:
      break;
  }
  rlx_expr_t* hit = rlx_ir_cmp(ctx, RLX_EXPR_NE, f, rlx_ir_i64(ctx, INT64_MAX));
  rlx_expr_t* last = rlx_ir_sub(ctx, rlx_ir_i64(ctx, -1), f);
  rlx_expr_t* upd = rlx_te_load(ctx, u->updates, n, scatter_q(ctx, u, p, last));
  /* if_then_else: the update is loaded only where some index hit */
  return rlx_ir_call(ctx, old->dtype, "if_then_else", 3, (rlx_expr_t*[]){hit, upd, old});
}

RLX_MUST_USE rlx_status_t* rlx_topi_scatter_elements(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* indices,
                                                     rlx_te_tensor_t* updates, int64_t axis, const char* reduction,
                                                     rlx_te_tensor_t** out) {
  if (!x || !indices || !updates) return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.scatter_elements: NULL input");
  static const char* const reds[5] = {"update", "add", "mul", "max", "min"};
  int red = -1;
  for (int i = 0; i < 5; i++)
    if (strcmp(reduction ? reduction : "update", reds[i]) == 0) red = i;
  if (red < 0)
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "topi.scatter_elements: reduction '%s' is not update, add, mul, max or min", reduction);
  int n = x->buffer->ndim;
  rlx_dtype_t it = indices->buffer->dtype;
  if (it.code != RLX_DT_INT || (it.bits != 32 && it.bits != 64))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.scatter_elements: indices must be int32 or int64");
  if (indices->buffer->ndim != n || updates->buffer->ndim != n ||
      !rlx_dtype_eq(updates->buffer->dtype, x->buffer->dtype))
    return rlx_status_create(RLX_INVALID_ARGUMENT,
                             "topi.scatter_elements: indices and updates need data's rank, updates its "
                             "dtype");
  if (axis < -n || axis >= n)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "topi.scatter_elements: axis %lld is out of range for rank %d",
                             (long long)axis, n);
  scatter_user_t* u = RLX_NEW(ctx, scatter_user_t);
  u->x = x;
  u->indices = indices;
  u->updates = updates;
  u->axis = (int)(axis < 0 ? axis + n : axis);
  u->red = red;
  rlx_expr_t* ext = indices->buffer->shape[u->axis];
  u->k = rlx_te_reduce_axis(ctx, rlx_ir_int(ctx, ext->dtype, 0), ext, "k");
  u->found = rlx_te_compute(ctx, n, x->buffer->shape, scatter_stage1, u, "T_scatter_found", "");
  *out = rlx_te_compute(ctx, n, x->buffer->shape, scatter_stage2, u, "T_scatter_elements", "");
  return NULL;
}
