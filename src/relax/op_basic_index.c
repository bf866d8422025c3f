/* Relax index ops of the basic family (TVM's names, args and attrs):
 *   R.tile(x, repeats=[..])          R.flip(x, axis=k)
 *   R.cumsum(x, axis=None, dtype=None, exclusive=False)   (axis None: over x flattened)
 *   R.gather_elements(x, indices, axis=0)
 */
#include <string.h>

#include "op_basic_internal.h"

typedef struct {
  ob_te_base_t base;
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
  RLX_RETURN_IF_ERROR(ob_check_attrs(call, "repeats:ints"));
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

static rlx_te_tensor_t* te_tile(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user) {
  ix_user_t* u = user;
  return rlx_topi_tile(ctx, in[0], u->n, u->v, &u->base.st);
}

rlx_status_t* ob_legalize_tile(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {{NULL, call, ctx}, 0, NULL, 0, false, false, {0}};
  if (!ob_attr_ints(ctx, call, "repeats", &u.n, &u.v)) return ob_error(call, "needs the repeats attribute");
  return ob_call_te(bb, te_tile, &u.base, 1, call->args, "tile", out);
}

/* ------------------------------------------------------------------ flip */
rlx_status_t* ob_infer_flip(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call, "axis:int"));
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

static rlx_te_tensor_t* te_flip(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user) {
  ix_user_t* u = user;
  return rlx_topi_flip(ctx, in[0], u->axis, &u->base.st);
}

rlx_status_t* ob_legalize_flip(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {{NULL, call, ctx}, 0, NULL, 0, false, false, {0}};
  if (!ob_attr_int(call, "axis", &u.axis)) return ob_error(call, "needs the axis attribute");
  return ob_call_te(bb, te_flip, &u.base, 1, call->args, "flip", out);
}

/* ------------------------------------------------------------------ cumsum */
rlx_status_t* ob_infer_cumsum(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call, "axis:int,dtype:dtype,exclusive:bool"));
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

static rlx_te_tensor_t* te_cumsum(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user) {
  ix_user_t* u = user;
  rlx_te_tensor_t* x = in[0];
  if (!u->has_axis) {
    rlx_expr_t* p = rlx_ir_i64(ctx, 1);
    for (int d = 0; d < x->buffer->ndim; d++)
      p = rlx_ir_mul(ctx, p, rlx_ir_cast(ctx, rlx_dt_int64(), x->buffer->shape[d]));
    p = rlx_topi_simplify_dim(ctx, p);
    x = rlx_topi_reshape(ctx, x, 1, &p, &u->base.st);
    if (!x) return NULL;
  }
  return rlx_topi_cumsum(ctx, x, u->has_axis ? u->axis : 0, u->dtype, u->flag, &u->base.st);
}

rlx_status_t* ob_legalize_cumsum(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {{NULL, call, ctx}, 0, NULL, 0, false, false, ((rlx_sinfo_tensor_t*)call->args[0]->sinfo)->dtype};
  u.has_axis = ob_attr_int(call, "axis", &u.axis);
  u.flag = ob_attr_bool(call, "exclusive", false);
  ob_attr_dtype(call, "dtype", &u.dtype);
  return ob_call_te(bb, te_cumsum, &u.base, 1, call->args, "cumsum", out);
}

/* ------------------------------------------------------------------ gather_elements */
rlx_status_t* ob_infer_gather_elements(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call, "axis:int"));
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

static rlx_te_tensor_t* te_gather(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user) {
  ix_user_t* u = user;
  return rlx_topi_gather_elements(ctx, in[0], in[1], u->axis, &u->base.st);
}

rlx_status_t* ob_legalize_gather_elements(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  ix_user_t u = {{NULL, call, ctx}, 0, NULL, 0, false, false, {0}};
  ob_attr_int(call, "axis", &u.axis);
  return ob_call_te(bb, te_gather, &u.base, 2, call->args, "gather_elements", out);
}
