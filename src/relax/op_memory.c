/* Relax ops, family "memory" (see op.h): the allocation builtins that call_tir_rewrite and
 * plan_memory introduce, with TVM's argument lists, struct info and purity.
 *
 *   R.builtin.alloc_tensor(shape, dtype, runtime_device_index[, storage_scope]) → R.Tensor(shape, dtype)
 *   R.memory.alloc_storage(R.shape([nbytes]), virtual_device_index, storage_scope, dtype) → R.Object
 *   R.memory.alloc_tensor(storage, offset, shape, dtype) → R.Tensor(shape, dtype)
 *   R.memory.kill_storage(storage), R.memory.kill_tensor(tensor) → R.Tuple() (void)
 *   R.print(values..., format="...") → R.Tuple() (void), impure
 *   R.assert_op(condition, format_args..., format="...") → R.Tuple() (void), impure; the
 *       condition is an R.Prim("bool") or a rank-0 bool tensor
 *
 * Purity follows TVM: allocation is not a visible effect (the alloc ops are pure); the kill
 * ops are impure so that dead-code elimination never drops them. None is legalized. */
#include <string.h>

#include "op.h"

static const char* op_name(const rlx_relax_call_t* call) { return ((const rlx_relax_op_t*)call->op)->name; }

static RLX_MUST_USE rlx_status_t* bad_arg(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int i, const char* what) {
  return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: argument %d must be %s, got %s", op_name(call), i, what,
                           rlx_relax_expr_brief(ctx, call->args[i]));
}

static RLX_MUST_USE rlx_status_t* check_nargs(const rlx_relax_call_t* call, int lo, int hi) {
  if (call->n_args >= lo && call->n_args <= hi) return NULL;
  if (lo == hi)
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected %d arguments, got %d", op_name(call), lo,
                             call->n_args);
  return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected %d to %d arguments, got %d", op_name(call), lo, hi,
                           call->n_args);
}

static bool is_kind(const rlx_relax_expr_t* e, rlx_relax_kind_t k) { return e && e->kind == k; }

/* An integer PrimValue (device index, offset). */
static RLX_MUST_USE rlx_status_t* check_int_prim(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int i, const char* what) {
  const rlx_relax_expr_t* a = call->args[i];
  if (!is_kind(a, RLX_RELAX_PRIM_VALUE) || !rlx_dtype_is_int(((const rlx_relax_prim_value_t*)a)->value->dtype))
    return bad_arg(ctx, call, i, what);
  return NULL;
}

/* Tensor(shape, dtype) from a shape argument (a ShapeExpr, or any value of Shape struct info)
 * and a DataTypeImm argument. */
static RLX_MUST_USE rlx_status_t* tensor_of(rlx_ctx_t* ctx, const rlx_relax_call_t* call, int shape_i, int dtype_i,
                                            rlx_sinfo_t** out) {
  const rlx_relax_expr_t* s = call->args[shape_i];
  const rlx_relax_expr_t* d = call->args[dtype_i];
  if (!is_kind(d, RLX_RELAX_DATA_TYPE_IMM)) return bad_arg(ctx, call, dtype_i, "a DataTypeImm (R.dtype(...))");
  rlx_dtype_t dt = ((const rlx_relax_dtype_imm_t*)d)->value;
  if (is_kind(s, RLX_RELAX_SHAPE_EXPR)) {
    const rlx_relax_shape_expr_t* se = (const rlx_relax_shape_expr_t*)s;
    *out = rlx_sinfo_tensor(ctx, se->ndim, se->values, dt);
    return NULL;
  }
  if (s && s->sinfo && s->sinfo->kind == RLX_SINFO_SHAPE) {
    const rlx_sinfo_shape_t* ss = (const rlx_sinfo_shape_t*)s->sinfo;
    *out = rlx_sinfo_tensor(ctx, ss->ndim, ss->values, dt);
    return NULL;
  }
  return bad_arg(ctx, call, shape_i, "a shape (R.shape([...]))");
}

/* R.builtin.alloc_tensor(shape, dtype, runtime_device_index[, storage_scope]). */
RLX_MUST_USE rlx_status_t* omem_infer_builtin_alloc_tensor(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(check_nargs(call, 3, 4));
  RLX_RETURN_IF_ERROR(check_int_prim(ctx, call, 2, "an integer PrimValue (runtime_device_index)"));
  if (call->n_args == 4 && !is_kind(call->args[3], RLX_RELAX_STRING_IMM))
    return bad_arg(ctx, call, 3, "a StringImm (storage_scope)");
  return tensor_of(ctx, call, 0, 1, out);
}

/* R.memory.alloc_storage(R.shape([nbytes]), virtual_device_index, storage_scope, dtype). */
RLX_MUST_USE rlx_status_t* omem_infer_alloc_storage(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(check_nargs(call, 4, 4));
  const rlx_relax_expr_t* size = call->args[0];
  bool size_ok = is_kind(size, RLX_RELAX_SHAPE_EXPR) ? ((const rlx_relax_shape_expr_t*)size)->ndim == 1
                                                     : (size->sinfo && size->sinfo->kind == RLX_SINFO_SHAPE &&
                                                        ((const rlx_sinfo_shape_t*)size->sinfo)->ndim == 1);
  if (!size_ok) return bad_arg(ctx, call, 0, "a 1-d shape holding the size in bytes (R.shape([nbytes]))");
  RLX_RETURN_IF_ERROR(check_int_prim(ctx, call, 1, "an integer PrimValue (virtual_device_index)"));
  if (!is_kind(call->args[2], RLX_RELAX_STRING_IMM)) return bad_arg(ctx, call, 2, "a StringImm (storage_scope)");
  if (!is_kind(call->args[3], RLX_RELAX_DATA_TYPE_IMM)) return bad_arg(ctx, call, 3, "a DataTypeImm (R.dtype(...))");
  *out = rlx_sinfo_object(ctx);
  return NULL;
}

/* R.memory.alloc_tensor(storage, offset, shape, dtype). */
RLX_MUST_USE rlx_status_t* omem_infer_memory_alloc_tensor(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(check_nargs(call, 4, 4));
  const rlx_sinfo_t* st = call->args[0]->sinfo;
  if (!st || (st->kind != RLX_SINFO_OBJECT))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: argument 0 must be a storage (R.Object), got %s",
                             op_name(call), rlx_sinfo_str(ctx, st));
  RLX_RETURN_IF_ERROR(check_int_prim(ctx, call, 1, "an integer PrimValue (offset)"));
  return tensor_of(ctx, call, 2, 3, out);
}

/* kill_storage / kill_tensor: one argument, void result. */
RLX_MUST_USE rlx_status_t* omem_infer_kill(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(check_nargs(call, 1, 1));
  *out = rlx_sinfo_tuple(ctx, 0, NULL);
  return NULL;
}

RLX_MUST_USE rlx_status_t* omem_infer_print(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  for (int i = 0; i < call->attrs.n; i++)
    if (strcmp(call->attrs.items[i].key, "format") != 0 || call->attrs.items[i].kind != RLX_ATTR_STR)
      return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: unexpected attribute '%s' (expected format=\"...\")",
                               op_name(call), call->attrs.items[i].key);
  *out = rlx_sinfo_tuple(ctx, 0, NULL);
  return NULL;
}

RLX_MUST_USE rlx_status_t* omem_infer_assert(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  if (call->n_args < 1) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: expected a condition", op_name(call));
  const rlx_sinfo_t* c = call->args[0]->sinfo;
  bool ok = c && ((c->kind == RLX_SINFO_PRIM && rlx_dtype_is_bool(((const rlx_sinfo_prim_t*)c)->dtype)) ||
                  (c->kind == RLX_SINFO_TENSOR && ((const rlx_sinfo_tensor_t*)c)->ndim == 0 &&
                   rlx_dtype_is_bool(((const rlx_sinfo_tensor_t*)c)->dtype)));
  if (!ok) return bad_arg(ctx, call, 0, "a bool R.Prim or a rank-0 bool tensor");
  return omem_infer_print(ctx, call, out);
}
