/* topi linear quantization (basic.h): quantize and dequantize as ONNX's QuantizeLinear and
 * DequantizeLinear define them (TVM's topi has them under qnn). */
#include "basic.h"

typedef struct {
  bool quantize;
  int axis;
  rlx_dtype_t out;
  rlx_te_tensor_t *x, *scale, *zp;
} q_user_t;

/* Element of a scale / zero point for output index idx: scalar, one element, or along axis. */
static rlx_expr_t* param(rlx_ctx_t* ctx, rlx_te_tensor_t* t, int axis, rlx_var_t* const* idx) {
  if (t->buffer->ndim == 0) return rlx_te_load(ctx, t, 0, NULL);
  int64_t n = 0;
  rlx_expr_t* i = rlx_expr_is_const_int(t->buffer->shape[0], &n) && n == 1 ? rlx_ir_i64(ctx, 0) : &idx[axis]->hdr;
  return rlx_te_load(ctx, t, 1, &i);
}

static rlx_expr_t* q_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  q_user_t* u = user;
  rlx_dtype_t f = rlx_dt_float32();
  int r = u->x->buffer->ndim;
  rlx_expr_t** p = RLX_NEW_ARRAY(ctx, rlx_expr_t*, r > 0 ? r : 1);
  for (int d = 0; d < r; d++) p[d] = &idx[d]->hdr;
  rlx_expr_t* v = rlx_te_load(ctx, u->x, r, p);
  rlx_expr_t* scale = rlx_ir_cast(ctx, f, param(ctx, u->scale, u->axis, idx));
  rlx_expr_t* zp = u->zp ? rlx_ir_cast(ctx, f, param(ctx, u->zp, u->axis, idx)) : rlx_ir_float(ctx, f, 0);
  if (!u->quantize) return rlx_ir_mul(ctx, rlx_ir_sub(ctx, rlx_ir_cast(ctx, f, v), zp), scale);
  rlx_expr_t* q = rlx_ir_div(ctx, rlx_ir_cast(ctx, f, v), scale);
  q = rlx_ir_add(ctx, rlx_ir_call(ctx, f, "nearbyint", 1, &q), zp);
  bool s = u->out.code == RLX_DT_INT;
  q = rlx_ir_max(ctx, rlx_ir_min(ctx, q, rlx_ir_float(ctx, f, s ? 127 : 255)), rlx_ir_float(ctx, f, s ? -128 : 0));
  return rlx_ir_cast(ctx, u->out, q);
}

static rlx_status_t* linear(rlx_ctx_t* ctx, bool quantize, rlx_te_tensor_t* x, rlx_te_tensor_t* scale, rlx_te_tensor_t* zp,
                            int axis, rlx_dtype_t out_dtype, rlx_te_tensor_t** out) {
  int r = x->buffer->ndim;
  if (axis < 0) axis += r;
  bool per_axis = scale->buffer->ndim == 1 || (zp && zp->buffer->ndim == 1);
  if (per_axis && (axis < 0 || axis >= r))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: axis %d is out of range for a %d-d input",
                             quantize ? "quantize" : "dequantize", axis, r);
  if (scale->buffer->ndim > 1 || (zp && zp->buffer->ndim > 1))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "%s: scale and zero_point must be scalars or 1-d",
                             quantize ? "quantize" : "dequantize");
  q_user_t* u = RLX_NEW(ctx, q_user_t);
  *u = (q_user_t){quantize, per_axis ? axis : 0, out_dtype, x, scale, zp};
  *out = rlx_te_compute(ctx, r, x->buffer->shape, q_body, u, quantize ? "T_quantize" : "T_dequantize", "injective");
  return NULL;
}

rlx_status_t* rlx_topi_quantize(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* scale, rlx_te_tensor_t* zp, int axis,
                                rlx_dtype_t out_dtype, rlx_te_tensor_t** out) {
  if (!rlx_dtype_eq(out_dtype, rlx_dtype(RLX_DT_UINT, 8, 1)) && !rlx_dtype_eq(out_dtype, rlx_dtype(RLX_DT_INT, 8, 1)))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "quantize: out_dtype must be uint8 or int8");
  return linear(ctx, true, x, scale, zp, axis, out_dtype, out);
}

rlx_status_t* rlx_topi_dequantize(rlx_ctx_t* ctx, rlx_te_tensor_t* x, rlx_te_tensor_t* scale, rlx_te_tensor_t* zp, int axis,
                                  rlx_te_tensor_t** out) {
  return linear(ctx, false, x, scale, zp, axis, rlx_dt_float32(), out);
}
