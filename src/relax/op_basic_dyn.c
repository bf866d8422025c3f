/* Relax ops between shape values and tensors, for shapes known only at run time (TVM's
 * names and struct info):
 *   R.shape_of(x)         → R.Shape(x's dims), R.Shape(ndim=k) when only the rank is known
 *   R.tensor_to_shape(t)  → R.Shape(ndim=k) from a 1-d integer tensor of static length k
 *   R.shape_to_tensor(s)  → R.Tensor((k,), "int64")
 * The dims of a shape value computed at run time become symbolic variables through
 * R.match_cast(s, R.Shape([n0, n1])), after which the program is symbolic again.
 *
 * Legalization: shape_of of a tensor whose dims are known is the ShapeExpr of those dims;
 * otherwise each op becomes R.call_pure_packed of the VM builtin of the same name
 * (vm.builtin.shape_of / vm.builtin.tensor_to_shape / vm.builtin.shape_to_tensor).
 */
#include <string.h>

#include "op_basic_internal.h"

RLX_MUST_USE rlx_status_t* ob_infer_shape_of(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  *out = rlx_sinfo_shape(ctx, x->ndim, x->shape);
  return NULL;
}

/* R.call_pure_packed(builtin, args..., sinfo_args=(the call's struct info,)). */
static RLX_MUST_USE rlx_status_t* to_builtin(rlx_bb_t* bb, const rlx_relax_call_t* call, const char* builtin,
                                             rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  rlx_sinfo_t* s = call->hdr.sinfo;
  *out = rlx_relax_call_pure_packed(ctx, builtin, call->n_args, call->args, 1, &s);
  return NULL;
}

RLX_MUST_USE rlx_status_t* ob_legalize_shape_of(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_sinfo_shape_t* s = (rlx_sinfo_shape_t*)call->hdr.sinfo;
  if (s && s->hdr.kind == RLX_SINFO_SHAPE && s->values) {
    *out = rlx_relax_shape_expr(rlx_bb_get(bb)->ctx, s->ndim, s->values);
    return NULL;
  }
  return to_builtin(bb, call, "vm.builtin.shape_of", out);
}

RLX_MUST_USE rlx_status_t* ob_infer_tensor_to_shape(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* t;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &t));
  int64_t k = -1;
  if (t->ndim != 1 || !t->shape || !rlx_expr_is_const_int(t->shape[0], &k))
    return ob_error(call, "needs a 1-d tensor of static length, got %s", rlx_sinfo_str(ctx, &t->hdr));
  if (!rlx_dtype_is_void(t->dtype) && t->dtype.code != RLX_DT_INT && t->dtype.code != RLX_DT_UINT)
    return ob_error(call, "needs an integer tensor, got %s", ob_dtype_str(ctx, t->dtype));
  *out = rlx_sinfo_shape(ctx, (int)k, NULL);
  return NULL;
}

RLX_MUST_USE rlx_status_t* ob_legalize_tensor_to_shape(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  return to_builtin(bb, call, "vm.builtin.tensor_to_shape", out);
}

RLX_MUST_USE rlx_status_t* ob_infer_shape_to_tensor(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  int n = 0;
  rlx_expr_t** vals = NULL;
  RLX_RETURN_IF_ERROR(ob_shape_arg(call, 0, &n, &vals));
  if (n < 0) {
    *out = rlx_sinfo_tensor(ctx, 1, NULL, rlx_dt_int64());
    return NULL;
  }
  int64_t dim = n;
  *out = rlx_sinfo_tensor_const(ctx, 1, &dim, rlx_dt_int64());
  return NULL;
}

RLX_MUST_USE rlx_status_t* ob_legalize_shape_to_tensor(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  return to_builtin(bb, call, "vm.builtin.shape_to_tensor", out);
}
