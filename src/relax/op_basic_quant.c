/* Relax linear quantization of the basic family, as TVM's relax.quantize / relax.dequantize:
 *
 *   R.quantize(data, scale, zero_point, axis=-1, out_dtype="int8")
 *       saturate(round_half_even(data / scale) + zero_point), uint8 or int8
 *   R.dequantize(data, scale, zero_point, axis=-1, out_dtype="float32")
 *       (data - zero_point) * scale
 *
 * scale and zero_point are scalars or 1-d along `axis` of data (one element counts as a
 * scalar); ONNX's QuantizeLinear / DequantizeLinear import to these, and the pass
 * quantize_integer reads them as the boundaries of integer regions. */
#include "op_basic_internal.h"

static RLX_MUST_USE rlx_status_t* infer(rlx_ctx_t* ctx, const rlx_relax_call_t* call, bool quantize, rlx_sinfo_t** out) {
  RLX_RETURN_IF_ERROR(ob_check_attrs(call));
  RLX_RETURN_IF_ERROR(ob_nargs(call, 3, 3));
  rlx_sinfo_tensor_t *x, *s, *z;
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 0, &x));
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 1, &s));
  RLX_RETURN_IF_ERROR(ob_tensor_arg(ctx, call, 2, &z));
  if (s->ndim > 1 || z->ndim > 1) return ob_error(call, "scale and zero_point must be scalars or 1-d");
  rlx_dtype_t t = quantize ? rlx_dtype(RLX_DT_INT, 8, 1) : rlx_dt_float32();
  if (ob_attr_dtype(call, "out_dtype", &t) && quantize && !rlx_dtype_eq(t, rlx_dtype(RLX_DT_UINT, 8, 1)) &&
      !rlx_dtype_eq(t, rlx_dtype(RLX_DT_INT, 8, 1)))
    return ob_error(call, "out_dtype must be uint8 or int8, got %s", ob_dtype_str(ctx, t));
  if (!quantize && !rlx_dtype_eq(t, rlx_dt_float32()))
    return ob_error(call, "out_dtype must be float32, got %s", ob_dtype_str(ctx, t));
  int64_t axis = -1;
  ob_attr_int(call, "axis", &axis);
  if (x->ndim >= 0 && (s->ndim == 1 || z->ndim == 1) && (axis < -x->ndim || axis >= x->ndim))
    return ob_error(call, "axis %lld is out of range for a %d-d input", (long long)axis, x->ndim);
  *out = rlx_sinfo_tensor(ctx, x->ndim, x->shape, t);
  return NULL;
}

rlx_status_t* ob_infer_quantize(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  return infer(ctx, call, true, out);
}

rlx_status_t* ob_infer_dequantize(rlx_ctx_t* ctx, const rlx_relax_call_t* call, rlx_sinfo_t** out) {
  return infer(ctx, call, false, out);
}

typedef struct {
  bool quantize;
  int axis;
  rlx_dtype_t out;
} lq_user_t;

static RLX_MUST_USE rlx_status_t* te_linear(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                            rlx_te_tensor_t** out) {
  (void)n;
  lq_user_t* u = user;
  if (u->quantize) return rlx_topi_quantize(ctx, in[0], in[1], in[2], u->axis, u->out, out);
  return rlx_topi_dequantize(ctx, in[0], in[1], in[2], u->axis, out);
}

static RLX_MUST_USE rlx_status_t* legalize(rlx_bb_t* bb, const rlx_relax_call_t* call, bool quantize, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_bb_get(bb)->ctx;
  RLX_RETURN_IF_ERROR(ob_need_known(ctx, call));
  int64_t axis = -1;
  ob_attr_int(call, "axis", &axis);
  lq_user_t u = {quantize, (int)axis, ((const rlx_sinfo_tensor_t*)call->hdr.sinfo)->dtype};
  return rlx_bb_call_te(bb, te_linear, &u, 3, call->args, quantize ? "quantize" : "dequantize", out);
}

rlx_status_t* ob_legalize_quantize(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  return legalize(bb, call, true, out);
}

rlx_status_t* ob_legalize_dequantize(rlx_bb_t* bb, const rlx_relax_call_t* call, rlx_relax_expr_t** out) {
  return legalize(bb, call, false, out);
}
