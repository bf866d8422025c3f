/* ONNX converters, family "tensor": linear quantization.
 *
 *   QuantizeLinear(x, scale, zero_point)    y = saturate(round_half_even(x / scale) + zp),
 *                                            uint8 (default) or int8 as zero_point
 *   DequantizeLinear(x, scale, zero_point)  y = (x - zp) * scale, float32
 *   DynamicQuantizeLinear(x)                scale = (max(x, 0) - min(x, 0)) / 255,
 *                                            zp = saturate(round(-min(x, 0) / scale)), uint8
 *   MatMulInteger(a, b, a_zp, b_zp)         (a - a_zp) @ (b - b_zp) in int32 (a_zp per row,
 *                                            b_zp per column when 1-d)
 *   QLinearMatMul                           that product * a_scale * b_scale (float32),
 *                                            quantized with y_scale, y_zero_point
 *   ConvInteger, QLinearConv                the same around the Conv converter (int32
 *                                            convolution of the centered operands)
 *
 * scale and zero_point are scalars or, with `axis`, 1-d along that axis of x; they are read
 * in the kernel, so they may arrive at run time.
 */
#include <string.h>

#include "ops_tensor_internal.h"

/* R.quantize / R.dequantize of x with scale and zero point (a zero of zp_dtype when absent),
 * per axis when the scale or zero point is 1-d with more than one element. */
static RLX_MUST_USE rlx_status_t* emit_linear(rlx_onnx_importer_t* im, bool quantize, rlx_relax_expr_t* x, rlx_relax_expr_t* scale,
                                              rlx_relax_expr_t* zp, rlx_dtype_t zp_dtype, int64_t axis, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (!zp) {
    uint8_t zero[4] = {0};
    zp = rlx_relax_constant(ctx, zp_dtype, 0, NULL, zero, (size_t)rlx_dtype_bytes(zp_dtype));
  }
  rlx_relax_expr_t* args[3] = {x, scale, zp};
  rlx_attrs_t a = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis));
  a = ot_attr(ctx, a, "out_dtype", rlx_attr_dtype(quantize ? zp_dtype : rlx_dt_float32()));
  return ot_op(im, quantize ? RLX_OP_QUANTIZE : RLX_OP_DEQUANTIZE, 3, args, a, out);
}

static RLX_MUST_USE rlx_status_t* linear(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                            bool quantize, rlx_relax_expr_t** out) {
  rlx_sinfo_tensor_t *x, *s, *z = NULL;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 1, true, &s));
  bool has_zp = ot_has_input(node, inputs, 2);
  rlx_dtype_t zt = quantize ? rlx_dtype(RLX_DT_UINT, 8, 1) : x->dtype;
  if (has_zp) {
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 2, true, &z));
    zt = z->dtype;
  }
  if (quantize && !rlx_dtype_eq(zt, rlx_dtype(RLX_DT_UINT, 8, 1)) && !rlx_dtype_eq(zt, rlx_dtype(RLX_DT_INT, 8, 1)))
    return rlx_onnx_error(node, "zero_point must be uint8 or int8");
  int64_t axis = 0;
  if (s->ndim > 1 || (z && z->ndim > 1)) return rlx_onnx_error(node, "scale and zero_point must be scalars or 1-d");
  int64_t ns = 1;
  bool per_axis = s->ndim == 1 && !(rlx_expr_is_const_int(s->shape[0], &ns) && ns == 1);
  if (per_axis) RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 1), x->ndim, &axis));
  return emit_linear(im, quantize, inputs[0], inputs[1], has_zp ? inputs[2] : NULL, zt, axis, out);
}

OT_CONVERTER(ot_quantize_linear) { return linear(im, node, inputs, true, &outputs[0]); }
OT_CONVERTER(ot_dequantize_linear) { return linear(im, node, inputs, false, &outputs[0]); }

/* DynamicQuantizeLinear: the scale and zero point from x's range (including 0), then
 * QuantizeLinear with them. */
typedef struct {
  bool zp;
  rlx_te_tensor_t *lo, *hi;
} dq_user_t;

static rlx_expr_t* dq_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  (void)idx;
  dq_user_t* u = user;
  rlx_dtype_t f = rlx_dt_float32();
  rlx_expr_t* zero = rlx_ir_float(ctx, f, 0);
  rlx_expr_t* lo = rlx_ir_min(ctx, rlx_te_load(ctx, u->lo, 0, NULL), zero);
  rlx_expr_t* hi = rlx_ir_max(ctx, rlx_te_load(ctx, u->hi, 0, NULL), zero);
  rlx_expr_t* scale = rlx_ir_div(ctx, rlx_ir_sub(ctx, hi, lo), rlx_ir_float(ctx, f, 255));
  if (!u->zp) return scale;
  rlx_expr_t* z = rlx_ir_div(ctx, rlx_ir_sub(ctx, zero, lo), scale);
  z = rlx_ir_call(ctx, f, "nearbyint", 1, &z);
  z = rlx_ir_max(ctx, rlx_ir_min(ctx, z, rlx_ir_float(ctx, f, 255)), zero);
  return rlx_ir_cast(ctx, rlx_dtype(RLX_DT_UINT, 8, 1), z);
}

static RLX_MUST_USE rlx_status_t* te_dq(rlx_ctx_t* ctx, rlx_te_tensor_t* const* in, int n, void* user,
                                        rlx_te_tensor_t** out) {
  (void)n;
  dq_user_t* u = user;
  u->lo = in[0];
  u->hi = in[1];
  return *out = rlx_te_compute(ctx, 0, NULL, dq_body, u, u->zp ? "T_zero_point" : "T_scale", "injective"), NULL;
}

OT_CONVERTER(ot_dynamic_quantize_linear) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  if (!rlx_dtype_eq(x->dtype, rlx_dt_float32())) return rlx_onnx_error(node, "needs a float32 input");
  rlx_relax_expr_t* mm[2];
  rlx_attrs_t none = {0};
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_MIN, 1, &inputs[0], none, &mm[0]));
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_MAX, 1, &inputs[0], none, &mm[1]));
  dq_user_t u = {false, NULL, NULL};
  rlx_relax_expr_t *scale, *zp;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_dq, &u, 2, mm, "dq_scale", &scale));
  u.zp = true;
  RLX_RETURN_IF_ERROR(rlx_onnx_emit_te(im, te_dq, &u, 2, mm, "dq_zero_point", &zp));
  RLX_RETURN_IF_ERROR(emit_linear(im, true, inputs[0], scale, zp, rlx_dtype(RLX_DT_UINT, 8, 1), 0, &outputs[0]));
  if (node->n_outputs > 1) outputs[1] = scale;
  if (node->n_outputs > 2) outputs[2] = zp;
  return NULL;
}

/* ------------------------------------------------------------------ MatMulInteger, QLinearMatMul */
/* x as int32 minus its zero point (scalar, or 1-d: per row of A when row, per column of B). */
static RLX_MUST_USE rlx_status_t* centered(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              int xi, int zi, bool row, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_attrs_t i32 = ot_attr(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(rlx_dt_int32()));
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_ASTYPE, 1, &inputs[xi], i32, out));
  if (zi < 0 || !ot_has_input(node, inputs, zi)) return NULL;
  rlx_sinfo_tensor_t* z;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, zi, true, &z));
  rlx_relax_expr_t* zp = NULL;
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_ASTYPE, 1, &inputs[zi], i32, &zp));
  if (row && z->ndim == 1) { /* (M,) -> (M, 1) */
    rlx_expr_t* d[2] = {z->shape[0], rlx_ir_i64(ctx, 1)};
    RLX_RETURN_IF_ERROR(ot_reshape(im, zp, 2, d, &zp));
  }
  rlx_relax_expr_t* args[2] = {*out, zp};
  return ot_op(im, RLX_OP_SUBTRACT, 2, args, (rlx_attrs_t){0}, out);
}

/* (A - a_zero_point) @ (B - b_zero_point) in int32. */
static RLX_MUST_USE rlx_status_t* int_matmul(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                int a, int azp, int b, int bzp, rlx_relax_expr_t** out) {
  rlx_relax_expr_t* ab[2];
  RLX_RETURN_IF_ERROR(centered(im, node, inputs, a, azp, true, &ab[0]));
  RLX_RETURN_IF_ERROR(centered(im, node, inputs, b, bzp, false, &ab[1]));
  return ot_op(im, RLX_OP_MATMUL, 2, ab, (rlx_attrs_t){0}, out);
}

OT_CONVERTER(ot_matmul_integer) { return int_matmul(im, node, inputs, 0, 2, 1, 3, &outputs[0]); }

/* The requantization of QLinearMatMul and QLinearConv: y (float32) times scale_a * scale_b,
 * quantized with (y_scale, y_zp) = inputs 6 and 7 (uint8 or int8). */
static RLX_MUST_USE rlx_status_t* requantize(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                             rlx_relax_expr_t* const* inputs, rlx_relax_expr_t* y,
                                             rlx_relax_expr_t* scale_a, rlx_relax_expr_t* scale_b,
                                             rlx_relax_expr_t** out) {
  rlx_relax_expr_t* s[2] = {scale_a, scale_b};
  rlx_relax_expr_t* ab = NULL;
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_MULTIPLY, 2, s, (rlx_attrs_t){0}, &ab));
  rlx_relax_expr_t* m[2] = {y, ab};
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_MULTIPLY, 2, m, (rlx_attrs_t){0}, &y));
  rlx_sinfo_tensor_t* z;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 7, true, &z));
  if (!rlx_dtype_eq(z->dtype, rlx_dtype(RLX_DT_UINT, 8, 1)) && !rlx_dtype_eq(z->dtype, rlx_dtype(RLX_DT_INT, 8, 1)))
    return rlx_onnx_error(node, "y_zero_point must be uint8 or int8");
  return emit_linear(im, true, y, inputs[6], inputs[7], z->dtype, 0, out);
}

/* QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): the int32 product
 * scaled by a_scale * b_scale as float32, then quantized with (y_scale, y_zp). */
OT_CONVERTER(ot_qlinear_matmul) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  for (int i = 0; i < 8; i++)
    if (!ot_has_input(node, inputs, i)) return rlx_onnx_error(node, "input %d is missing", i);
  rlx_relax_expr_t* c = NULL;
  RLX_RETURN_IF_ERROR(int_matmul(im, node, inputs, 0, 2, 3, 5, &c));
  rlx_attrs_t f32 = ot_attr(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(rlx_dt_float32()));
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_ASTYPE, 1, &c, f32, &c));
  return requantize(im, node, inputs, c, inputs[1], inputs[4], &outputs[0]);
}

/* ------------------------------------------------------------------ ConvInteger */
/* ConvInteger(x, w, x_zp, w_zp): Conv (same attributes, the nn family's converter) of the
 * int32 centered operands. */
OT_CONVERTER(ot_conv_integer) {
  const rlx_onnx_converter_t* conv = rlx_onnx_find_converter("Conv", rlx_onnx_opset(im));
  if (!conv) return rlx_onnx_error(node, "needs the Conv converter");
  rlx_relax_expr_t* args[3] = {NULL, NULL, NULL};
  RLX_RETURN_IF_ERROR(centered(im, node, inputs, 0, 2, false, &args[0]));
  RLX_RETURN_IF_ERROR(centered(im, node, inputs, 1, 3, false, &args[1]));
  rlx_onnx_node_t two = *node;
  two.n_inputs = 2;
  return conv->convert(im, &two, args, outputs);
}

/* QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B): the int32 convolution
 * of the centered operands plus B, scaled by x_scale * w_scale (w_scale per output channel
 * when 1-d) as float32, quantized with (y_scale, y_zp). */
OT_CONVERTER(ot_qlinear_conv) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  const rlx_onnx_converter_t* conv = rlx_onnx_find_converter("Conv", rlx_onnx_opset(im));
  if (!conv) return rlx_onnx_error(node, "needs the Conv converter");
  for (int i = 0; i < 8; i++)
    if (!ot_has_input(node, inputs, i)) return rlx_onnx_error(node, "input %d is missing", i);
  rlx_relax_expr_t* args[3] = {NULL, NULL, NULL};
  RLX_RETURN_IF_ERROR(centered(im, node, inputs, 0, 2, false, &args[0]));
  RLX_RETURN_IF_ERROR(centered(im, node, inputs, 3, 5, false, &args[1]));
  rlx_onnx_node_t two = *node;
  two.n_inputs = 2;
  rlx_relax_expr_t* y = NULL;
  RLX_RETURN_IF_ERROR(conv->convert(im, &two, args, &y));
  rlx_sinfo_tensor_t* ys;
  RLX_RETURN_IF_ERROR(ot_tensor(node, &y, 0, true, &ys));
  rlx_expr_t* one = rlx_ir_i64(ctx, 1);
  int nsp = ys->ndim - 2;
  if (ot_has_input(node, inputs, 8)) { /* int32 bias per output channel */
    rlx_sinfo_tensor_t* b;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 8, true, &b));
    rlx_expr_t** d = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nsp + 1);
    d[0] = b->shape[0];
    for (int i = 1; i <= nsp; i++) d[i] = one;
    rlx_relax_expr_t* bias = NULL;
    RLX_RETURN_IF_ERROR(ot_reshape(im, inputs[8], nsp + 1, d, &bias));
    rlx_relax_expr_t* a[2] = {y, bias};
    RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_ADD, 2, a, (rlx_attrs_t){0}, &y));
  }
  rlx_attrs_t f32 = ot_attr(ctx, (rlx_attrs_t){0}, "dtype", rlx_attr_dtype(rlx_dt_float32()));
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_ASTYPE, 1, &y, f32, &y));
  rlx_relax_expr_t* ws = inputs[4];
  rlx_sinfo_tensor_t* w;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 4, true, &w));
  if (w->ndim == 1) {
    rlx_expr_t** d = RLX_NEW_ARRAY(ctx, rlx_expr_t*, nsp + 1);
    d[0] = w->shape[0];
    for (int i = 1; i <= nsp; i++) d[i] = one;
    RLX_RETURN_IF_ERROR(ot_reshape(im, ws, nsp + 1, d, &ws));
  }
  return requantize(im, node, inputs, y, inputs[1], ws, &outputs[0]);
}
