/* Relax index ops of the basic family (TVM's names, args and attrs):
 *   R.tile(x, repeats=[..])          R.flip(x, axis=k)
 *   R.cumsum(x, axis=None, dtype=None, exclusive=False)   (axis None: over x flattened)
 *   R.gather_elements(x, indices, axis=0)
 *   R.arange(start, end, step, dtype=..)   (args R.prim_value; 1 arg = end, 2 = start, end)
 *   R.tril(x, k) / R.triu(x, k)            (k an R.prim_value arg, or attr k; default 0)
 *   R.one_hot(indices, on_value, off_value, depth=d, axis=-1)   (values: R.prim_value)
 *   R.scatter_elements(x, indices, updates, axis=0, reduction="update")
 */
#include <math.h>
#include <string.h>

#include "op_basic_internal.h"

typedef struct {
  const rlx_relax_call_t* call;
  int n;
  int64_t* v;
  int64_t axis;
  bool has_axis;
  bool flag;
  rlx_dtype_t dtype;
} ix_user_t;

static rlx_sinfo_t* tensor_like(rlx_ctx_t* ctx, int ndim, rlx_expr_t* const* shape, rlx_dtype_t t) {
  return rlx_sinfo_tensor(ctx, ndim, shape ? ob_simplify_shape(ctx, ndim, shape) : NULL, t);
}

/* ------------------------------------------------------------------ tile */
rlx_status_t* ob_infer_tile(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int nr = 0;
  int64_t* reps = NULL;
  if (!ob_attr_ints(ctx, call, "repeats", &nr, &reps)) return ob_error(call, "needs the repeats attribute");
  for (int i = 0; i < nr; i++)
    if (reps[i] < 0) return ob_error(call, "negative repeat count %lld", (long long)reps[i]);
  if (x->ndim < 0) {
    *out = rlx_sinfo_tensor(ctx, -1, NULL, x->dtype);
    return NULL;
  }
  int on = x->ndim > nr ? x->ndim : nr;
  if (!x->shape) {
    *out = rlx_sinfo_tensor(ctx, on, NULL, x->dtype);
    return NULL;
  }
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, on);
  for (int d = 0; d < on; d++) {
    int xd = d - (on - x->ndim), rd = d - (on - nr);
    rlx_expr_t* dim = xd >= 0 ? x->shape[xd] : rlx_ir_i64(ctx, 1);
    s[d] = rlx_ir_mul(ctx, rlx_ir_cast(ctx, rlx_dt_int64(), dim), rlx_ir_i64(ctx, rd >= 0 ? reps[rd] : 1));
  }
  *out = tensor_like(ctx, on, s, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_tile(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  ix_user_t* u = user;
  return rlx_topi_tile(ctx, in[0], u->n, u->v, out);
}

rlx_status_t* ob_legalize_tile(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {call, 0, NULL, 0, false, false, {0}};
  if (!ob_attr_ints(ctx, call, "repeats", &u.n, &u.v)) return ob_error(call, "needs the repeats attribute");
  return rlx_bb_call_te(bb, te_tile, &u, 1, call->args, "tile", out);
}

/* ------------------------------------------------------------------ flip */
rlx_status_t* ob_infer_flip(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int64_t axis = 0;
  if (!ob_attr_int(call, "axis", &axis)) return ob_error(call, "needs the axis attribute");
  if (x->ndim >= 0 && (axis < -x->ndim || axis >= x->ndim))
    return ob_error(call, "axis %lld is out of range for rank %d", (long long)axis, x->ndim);
  *out = rlx_sinfo_tensor(ctx, x->ndim, x->shape, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_flip(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                          rlx_te_tensor_t** out) {
  ix_user_t* u = user;
  return rlx_topi_flip(ctx, in[0], u->axis, out);
}

rlx_status_t* ob_legalize_flip(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {call, 0, NULL, 0, false, false, {0}};
  if (!ob_attr_int(call, "axis", &u.axis)) return ob_error(call, "needs the axis attribute");
  return rlx_bb_call_te(bb, te_flip, &u, 1, call->args, "flip", out);
}

/* ------------------------------------------------------------------ cumsum */
rlx_status_t* ob_infer_cumsum(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  rlx_dtype_t t = x->dtype;
  ob_attr_dtype(call, "dtype", &t);
  if (rlx_dtype_is_bool(t) || t.code == RLX_DT_HANDLE) return ob_error(call, "needs a numeric dtype");
  int64_t axis = 0;
  if (!ob_attr_int(call, "axis", &axis)) { /* over x flattened */
    rlx_expr_t* p = rlx_ir_i64(ctx, 1);
    for (int d = 0; x->shape && d < x->ndim; d++) p = rlx_ir_mul(ctx, p, x->shape[d]);
    *out = tensor_like(ctx, 1, x->shape ? &p : NULL, t);
    return NULL;
  }
  if (x->ndim >= 0 && (axis < -x->ndim || axis >= x->ndim))
    return ob_error(call, "axis %lld is out of range for rank %d", (long long)axis, x->ndim);
  *out = rlx_sinfo_tensor(ctx, x->ndim, x->shape, t);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_cumsum(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  ix_user_t* u = user;
  rlx_te_tensor_t* x = in[0];
  if (!u->has_axis) {
    rlx_expr_t* p = rlx_ir_i64(ctx, 1);
    for (int d = 0; d < x->buffer->ndim; d++)
      p = rlx_ir_mul(ctx, p, rlx_ir_cast(ctx, rlx_dt_int64(), x->buffer->shape[d]));
    p = rlx_topi_simplify_dim(ctx, p);
    RLX_RETURN_IF_ERROR(rlx_topi_reshape(ctx, x, 1, &p, &x));
  }
  return rlx_topi_cumsum(ctx, x, u->has_axis ? u->axis : 0, u->dtype, u->flag, out);
}

rlx_status_t* ob_legalize_cumsum(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {call, 0, NULL, 0, false, false, ((rlx_sinfo_tensor_t*)call->args[0]->sinfo)->dtype};
  u.has_axis = ob_attr_int(call, "axis", &u.axis);
  u.flag = ob_attr_bool(call, "exclusive", false);
  ob_attr_dtype(call, "dtype", &u.dtype);
  return rlx_bb_call_te(bb, te_cumsum, &u, 1, call->args, "cumsum", out);
}

/* ------------------------------------------------------------------ gather_elements */
rlx_status_t* ob_infer_gather_elements(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 2, 2));
  rlx_sinfo_tensor_t *x, *ind;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 1, &ind));
  if (!rlx_dtype_is_void(ind->dtype) &&
      (ind->dtype.code != RLX_DT_INT || (ind->dtype.bits != 32 && ind->dtype.bits != 64)))
    return ob_error(call, "indices must be int32 or int64, got %s", ob_dtype_str(ctx, ind->dtype));
  if (x->ndim >= 0 && ind->ndim >= 0 && x->ndim != ind->ndim)
    return ob_error(call, "indices have rank %d, data has rank %d", ind->ndim, x->ndim);
  int64_t axis = 0;
  ob_attr_int(call, "axis", &axis);
  int n = x->ndim >= 0 ? x->ndim : ind->ndim;
  if (n >= 0 && (axis < -n || axis >= n))
    return ob_error(call, "axis %lld is out of range for rank %d", (long long)axis, n);
  *out = rlx_sinfo_tensor(ctx, n, ind->shape, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_gather(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  ix_user_t* u = user;
  return rlx_topi_gather_elements(ctx, in[0], in[1], u->axis, out);
}

rlx_status_t* ob_legalize_gather_elements(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {call, 0, NULL, 0, false, false, {0}};
  ob_attr_int(call, "axis", &u.axis);
  return rlx_bb_call_te(bb, te_gather, &u, 2, call->args, "gather_elements", out);
}

/* ------------------------------------------------------------------ arange */
/* The value of scalar arg i (a PrimValue or anything of R.Prim struct info with a known
 * value); NULL when unknown. */
static rlx_expr_t* prim_arg(const rlx_relax_call_t* call, int i) {
  const rlx_relax_expr_t* a = call->args[i];
  if (a->kind == RLX_RELAX_PRIM_VALUE) return ((const rlx_relax_prim_value_t*)a)->value;
  if (a->sinfo && a->sinfo->kind == RLX_SINFO_PRIM) return ((const rlx_sinfo_prim_t*)a->sinfo)->value;
  return NULL;
}

static bool const_num(const rlx_expr_t* e, double* out) {
  int64_t v;
  if (rlx_expr_is_const_int(e, &v)) return *out = (double)v, true;
  if (e && e->kind == RLX_EXPR_FLOAT_IMM) return *out = ((const rlx_float_imm_t*)e)->value, true;
  return false;
}

/* start, end, step of R.arange(start, end, step) (1 arg: end; 2: start, end). */
static RLX_MUST_USE rlx_status_t* arange_args(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_expr_t** v) {
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 3));
  rlx_expr_t* got[3] = {NULL, NULL, NULL};
  for (int i = 0; i < call->n_args; i++) {
    if (!call->args[i]->sinfo || call->args[i]->sinfo->kind != RLX_SINFO_PRIM)
      return ob_error(call, "argument %d must be a scalar (R.prim_value), got %s", i,
                      rlx_sinfo_str(ctx, call->args[i]->sinfo));
    got[i] = prim_arg(call, i);
    if (!got[i]) return ob_error(call, "argument %d has no known value", i);
  }
  v[0] = call->n_args == 1 ? rlx_ir_i64(ctx, 0) : got[0];
  v[1] = call->n_args == 1 ? got[0] : got[1];
  v[2] = call->n_args == 3 ? got[2] : rlx_ir_i64(ctx, 1);
  return NULL;
}

/* The number of elements of arange(start, end, step): constants give a constant; an int
 * end may be symbolic when start and step are int constants. */
static RLX_MUST_USE rlx_status_t* arange_length(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_expr_t* const* v,
                                   rlx_expr_t** out) {
  double a, b, s;
  if (const_num(v[2], &s) && s == 0) return ob_error(call, "step must not be 0");
  if (const_num(v[0], &a) && const_num(v[1], &b) && const_num(v[2], &s)) {
    double n = ceil((b - a) / s);
    *out = rlx_ir_i64(ctx, n > 0 ? (int64_t)n : 0);
    return NULL;
  }
  int64_t st, s0;
  bool ints = rlx_dtype_is_int(v[0]->dtype) && rlx_dtype_is_int(v[1]->dtype);
  if (!ints || !rlx_expr_is_const_int(v[2], &st) || !rlx_expr_is_const_int(v[0], &s0))
    return ob_error(call, "symbolic bounds need an int end with constant int start and step");
  rlx_expr_t* end = rlx_ir_cast(ctx, rlx_dt_int64(), v[1]);
  rlx_expr_t* num = st > 0 ? rlx_ir_add(ctx, rlx_ir_sub(ctx, end, rlx_ir_i64(ctx, s0)), rlx_ir_i64(ctx, st - 1))
                           : rlx_ir_add(ctx, rlx_ir_sub(ctx, rlx_ir_i64(ctx, s0), end), rlx_ir_i64(ctx, -st - 1));
  rlx_expr_t* len = rlx_ir_floordiv(ctx, num, rlx_ir_i64(ctx, st > 0 ? st : -st));
  *out = rlx_topi_simplify_dim(ctx, rlx_ir_max(ctx, len, rlx_ir_i64(ctx, 0)));
  return NULL;
}

rlx_status_t* ob_infer_arange(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  rlx_expr_t* v[3];
  RLX_RETURN_IF_ERROR(arange_args(ctx, call, v));
  rlx_dtype_t t;
  if (!ob_attr_dtype(call, "dtype", &t) || rlx_dtype_is_void(t))
    t = rlx_dtype_is_float(v[0]->dtype) || rlx_dtype_is_float(v[1]->dtype) || rlx_dtype_is_float(v[2]->dtype)
            ? rlx_dt_float32()
            : rlx_dt_int64();
  if (rlx_dtype_is_bool(t) || t.code == RLX_DT_HANDLE) return ob_error(call, "needs a numeric dtype");
  rlx_expr_t* len = NULL;
  RLX_RETURN_IF_ERROR(arange_length(ctx, call, v, &len));
  *out = rlx_sinfo_tensor(ctx, 1, &len, t);
  return NULL;
}

typedef struct {
  const rlx_relax_call_t* call;
  rlx_expr_t* start;
  rlx_expr_t* step;
  rlx_expr_t* length;
  rlx_dtype_t dtype;
} ar_user_t;

static RLX_MUST_USE rlx_status_t* te_arange(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  ar_user_t* u = user;
  return rlx_topi_arange(ctx, u->start, u->step, u->length, u->dtype, out);
}

rlx_status_t* ob_legalize_arange(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  rlx_expr_t* v[3];
  RLX_RETURN_IF_ERROR(arange_args(ctx, call, v));
  double c;
  /* start and step enter the PrimFunc body, which has no params for them */
  if (!const_num(v[0], &c) || !const_num(v[2], &c)) return ob_error(call, "legalization needs constant start and step");
  rlx_sinfo_tensor_t* o = (rlx_sinfo_tensor_t*)call->hdr.sinfo;
  ar_user_t u = {call, v[0], v[2], o->shape[0], o->dtype};
  return rlx_bb_call_te(bb, te_arange, &u, 0, NULL, "arange", out);
}

/* ------------------------------------------------------------------ tril / triu */
/* k: R.prim_value arg 1 (TVM) or attr k; default 0. */
static RLX_MUST_USE rlx_status_t* trilu_k(const rlx_relax_call_t* call, int64_t* k) {
  *k = 0;
  if (call->n_args == 2) {
    rlx_expr_t* v = prim_arg(call, 1);
    if (!v || !rlx_expr_is_const_int(v, k)) return ob_error(call, "k must be a constant int R.prim_value");
    return NULL;
  }
  ob_attr_int(call, "k", k);
  return NULL;
}

rlx_status_t* ob_infer_trilu(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 2));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int64_t k;
  RLX_RETURN_IF_ERROR(trilu_k(call, &k));
  if (x->ndim >= 0 && x->ndim < 2)
    return ob_error(call, "needs a tensor of rank >= 2, got %s", rlx_sinfo_str(ctx, &x->hdr));
  *out = rlx_sinfo_tensor(ctx, x->ndim, x->shape, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_trilu(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                           rlx_te_tensor_t** out) {
  ix_user_t* u = user;
  return rlx_topi_trilu(ctx, in[0], u->axis, u->flag, out);
}

rlx_status_t* ob_legalize_trilu(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {call, 0, NULL, 0, false, false, {0}};
  RLX_RETURN_IF_ERROR(trilu_k(call, &u.axis));
  u.flag = rlx_relax_call_op_id(call) == RLX_OP_TRIU;
  return rlx_bb_call_te(bb, te_trilu, &u, 1, call->args, u.flag ? "triu" : "tril", out);
}

/* ------------------------------------------------------------------ one_hot */
rlx_status_t* ob_infer_one_hot(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 3, 3));
  rlx_sinfo_tensor_t* ind;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &ind));
  if (!rlx_dtype_is_void(ind->dtype) &&
      (ind->dtype.code != RLX_DT_INT || (ind->dtype.bits != 32 && ind->dtype.bits != 64)))
    return ob_error(call, "indices must be int32 or int64, got %s", ob_dtype_str(ctx, ind->dtype));
  rlx_dtype_t t[2];
  for (int i = 1; i < 3; i++) {
    rlx_sinfo_t* s = call->args[i]->sinfo;
    if (!s || s->kind != RLX_SINFO_PRIM)
      return ob_error(call, "%s must be a scalar (R.prim_value), got %s", i == 1 ? "on_value" : "off_value",
                      rlx_sinfo_str(ctx, s));
    t[i - 1] = ((rlx_sinfo_prim_t*)s)->dtype;
  }
  if (!rlx_dtype_eq(t[0], t[1]))
    return ob_error(call, "on_value and off_value dtypes differ: %s and %s", ob_dtype_str(ctx, t[0]),
                    ob_dtype_str(ctx, t[1]));
  int64_t depth = 0, axis = -1;
  if (!ob_attr_int(call, "depth", &depth) || depth < 0) return ob_error(call, "needs a depth attribute >= 0");
  ob_attr_int(call, "axis", &axis);
  if (ind->ndim < 0) {
    *out = rlx_sinfo_tensor(ctx, -1, NULL, t[0]);
    return NULL;
  }
  int n = ind->ndim;
  if (axis < -(n + 1) || axis > n)
    return ob_error(call, "axis %lld is out of range for rank %d", (long long)axis, n + 1);
  if (axis < 0) axis += n + 1;
  if (!ind->shape) {
    *out = rlx_sinfo_tensor(ctx, n + 1, NULL, t[0]);
    return NULL;
  }
  rlx_expr_t** s = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n + 1);
  for (int d = 0, k = 0; d <= n; d++) s[d] = d == axis ? rlx_ir_i64(ctx, depth) : ind->shape[k++];
  *out = tensor_like(ctx, n + 1, s, t[0]);
  return NULL;
}

typedef struct {
  const rlx_relax_call_t* call;
  rlx_expr_t* on;
  rlx_expr_t* off;
  int64_t depth, axis;
} oh_user_t;

static RLX_MUST_USE rlx_status_t* te_one_hot(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                             rlx_te_tensor_t** out) {
  oh_user_t* u = user;
  return rlx_topi_one_hot(ctx, in[0], u->on, u->off, u->depth, u->axis, out);
}

rlx_status_t* ob_legalize_one_hot(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  oh_user_t u = {call, prim_arg(call, 1), prim_arg(call, 2), 0, -1};
  double c;
  /* the values enter the PrimFunc body, which has no params for them */
  if (!u.on || !u.off || !const_num(u.on, &c) || !const_num(u.off, &c))
    return ob_error(call, "legalization needs constant on_value and off_value");
  ob_attr_int(call, "depth", &u.depth);
  ob_attr_int(call, "axis", &u.axis);
  return rlx_bb_call_te(bb, te_one_hot, &u, 1, call->args, "one_hot", out);
}

/* ------------------------------------------------------------------ scatter_elements */
rlx_status_t* ob_infer_scatter_elements(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 3, 3));
  rlx_sinfo_tensor_t *x, *ind, *upd;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 1, &ind));
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 2, &upd));
  if (!rlx_dtype_is_void(ind->dtype) &&
      (ind->dtype.code != RLX_DT_INT || (ind->dtype.bits != 32 && ind->dtype.bits != 64)))
    return ob_error(call, "indices must be int32 or int64, got %s", ob_dtype_str(ctx, ind->dtype));
  if (!rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_void(upd->dtype) && !rlx_dtype_eq(x->dtype, upd->dtype))
    return ob_error(call, "data and updates dtypes differ: %s and %s", ob_dtype_str(ctx, x->dtype),
                    ob_dtype_str(ctx, upd->dtype));
  const int ranks[3] = {x->ndim, ind->ndim, upd->ndim};
  for (int i = 1; i < 3; i++)
    if (ranks[i] >= 0 && x->ndim >= 0 && ranks[i] != x->ndim)
      return ob_error(call, "%s have rank %d, data has rank %d", i == 1 ? "indices" : "updates", ranks[i], x->ndim);
  if (ind->shape && upd->shape)
    for (int d = 0; d < ind->ndim; d++)
      if (ind->shape[d] != upd->shape[d] && !rlx_ir_prove_equal(ctx, ind->shape[d], upd->shape[d]))
        return ob_error(call, "indices %s and updates %s differ in shape", ob_shape_str(ctx, ind->ndim, ind->shape),
                        ob_shape_str(ctx, upd->ndim, upd->shape));
  const char* red = ob_attr_str(call, "reduction", "update");
  if (strcmp(red, "update") && strcmp(red, "add") && strcmp(red, "mul") && strcmp(red, "max") && strcmp(red, "min"))
    return ob_error(call, "reduction '%s' is not update, add, mul, max or min", red);
  int64_t axis = 0;
  ob_attr_int(call, "axis", &axis);
  if (x->ndim >= 0 && (axis < -x->ndim || axis >= x->ndim))
    return ob_error(call, "axis %lld is out of range for rank %d", (long long)axis, x->ndim);
  *out = rlx_sinfo_tensor(ctx, x->ndim, x->shape, x->dtype);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* te_scatter(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                             rlx_te_tensor_t** out) {
  ix_user_t* u = user;
  return rlx_topi_scatter_elements(ctx, in[0], in[1], in[2], u->axis, ob_attr_str(u->call, "reduction", "update"), out);
}

rlx_status_t* ob_legalize_scatter_elements(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {call, 0, NULL, 0, false, false, {0}};
  ob_attr_int(call, "axis", &u.axis);
  return rlx_bb_call_te(bb, te_scatter, &u, 3, call->args, "scatter_elements", out);
}
