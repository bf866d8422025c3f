/* Relax reductions of the basic family: relax.sum / mean / max / min / prod / variance / std
 * (attrs axis: ints, absent = all dims; keepdims: bool, default false) and relax.argmax /
 * argmin (attrs axis: int, absent = all dims flattened; keepdims), as TVM. argmax/argmin give
 * int64; variance/std need floats (population variance, as TVM). */
#include <string.h>

#include "op_basic_internal.h"

/* The reduction kind of a call's op (the index into legal_names), or -1. */
static int reduce_of(const rlx_relax_call_t* call) {
  static const signed char kind[RLX_OP_COUNT] = {
      [RLX_OP_SUM] = 1,    [RLX_OP_MEAN] = 2,   [RLX_OP_MAX] = 3,      [RLX_OP_MIN] = 4, [RLX_OP_PROD] = 5,
      [RLX_OP_ARGMAX] = 6, [RLX_OP_ARGMIN] = 7, [RLX_OP_VARIANCE] = 8, [RLX_OP_STD] = 9};
  rlx_op_id_t id = rlx_relax_call_op_id(call);
  return id < RLX_OP_COUNT ? kind[id] - 1 : -1;
}

enum { VARIANCE = 7, STD = 8 }; /* after the topi reduce kinds */
static const char* const legal_names[] = {"sum", "mean", "max", "min", "prod", "argmax", "argmin", "variance", "std"};

rlx_status_t* ob_infer_reduce(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  int op = reduce_of(call);
  if (op < 0) return ob_error(call, "not a reduction");
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 1, 1));
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  int n_axes = 0;
  int64_t* axes = NULL;
  bool has_axis = ob_attr_ints(ctx, call, "axis", &n_axes, &axes);
  bool keepdims = ob_attr_bool(call, "keepdims", false);
  bool is_arg = op == RLX_TOPI_REDUCE_ARGMAX || op == RLX_TOPI_REDUCE_ARGMIN;
  if (op >= VARIANCE && !rlx_dtype_is_void(x->dtype) && !rlx_dtype_is_float(x->dtype))
    return ob_error(call, "needs a float tensor, got %s", rlx_sinfo_str(ctx, &x->hdr));
  if (is_arg && has_axis && n_axes != 1) return ob_error(call, "axis must be a single int, got %d values", n_axes);
  rlx_dtype_t t = is_arg ? rlx_dt_int64() : x->dtype;
  if (x->ndim < 0) {
    bool scalar = !has_axis && !keepdims; /* rank 0: the (empty) shape is known */
    *out = rlx_sinfo_tensor(ctx, scalar ? 0 : -1, scalar ? RLX_NEW_ARRAY(ctx, rlx_expr_t*, 1) : NULL, t);
    return NULL;
  }
  bool* mask = RLX_NEW_ARRAY(ctx, bool, x->ndim);
  RLX_RETURN_IF_ERROR(rlx_status_annotate(rlx_topi_reduce_axes("axis", x->ndim, n_axes, has_axis ? axes : NULL, mask),
                                          "%s", ob_name(call)));
  int on = 0;
  rlx_expr_t** shape = RLX_NEW_ARRAY(ctx, rlx_expr_t*, x->ndim);
  for (int d = 0; d < x->ndim; d++) {
    if (mask[d] && !keepdims) continue;
    shape[on++] = mask[d] ? rlx_ir_i64(ctx, 1) : x->shape ? x->shape[d] : NULL;
  }
  *out = rlx_sinfo_tensor(ctx, on, x->shape ? shape : NULL, t);
  return NULL;
}

typedef struct {
  const rlx_relax_call_t* call;
  int op;
  int n_axes;
  int64_t* axes;
  bool keepdims;
} red_user_t;

static RLX_MUST_USE rlx_status_t* te_reduce(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  red_user_t* u = user;
  if (u->op >= VARIANCE) return rlx_topi_variance(ctx, in[0], u->n_axes, u->axes, u->keepdims, u->op == STD, out);
  return rlx_topi_reduce(ctx, (rlx_topi_reduce_t)u->op, in[0], u->n_axes, u->axes, u->keepdims, out);
}

rlx_status_t* ob_legalize_reduce(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  red_user_t u = {call, reduce_of(call), 0, NULL, false};
  if (u.op < 0) return ob_error(call, "not a reduction");
  if (!ob_attr_ints(ctx, call, "axis", &u.n_axes, &u.axes)) u.axes = NULL;
  u.keepdims = ob_attr_bool(call, "keepdims", false);
  return rlx_bb_call_te(bb, te_reduce, &u, 1, call->args, legal_names[u.op], out);
}
