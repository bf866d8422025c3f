/* ONNX converters, family "nn" (see onnx_import.h): Gemm, MatMul, Conv, ConvTranspose here;
 * pools and MaxUnpool in ops_nn_pool.c; BatchNormalization, InstanceNormalization,
 * LayerNormalization, GroupNormalization, MeanVarianceNormalization, LpNormalization and LRN
 * in ops_nn_norm.c; RoiAlign in ops_nn_roi.c. The table of the family is at the end of this
 * file.
 *
 * Everything maps onto Relax ops (relax.matmul, relax.nn.conv1d/2d/3d, the *_transpose forms,
 * relax.nn.max_pool / avg_pool, the norms), with ONNX's attribute conventions resolved at
 * import time: auto_pad SAME_* padding is computed from the static input size, pads keep
 * ONNX's order (all begins, then all ends), which is Relax's; bias inputs become a broadcast
 * add. Optional outputs that rlx cannot produce are an RLX_UNSUPPORTED error naming the node
 * when they are requested (named), and are ignored otherwise.
 */
#include <stdarg.h>
#include <string.h>

#include "ops_nn_internal.h"

/* ---------------------------------------------------------------- helpers */
rlx_sinfo_tensor_t* nn_sinfo(rlx_relax_expr_t* e) {
  return e && e->sinfo && e->sinfo->kind == RLX_SINFO_TENSOR ? (rlx_sinfo_tensor_t*)e->sinfo : NULL;
}

rlx_status_t* nn_tensor(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i,
                        rlx_sinfo_tensor_t** out) {
  if (i >= node->n_inputs || !inputs[i]) return rlx_onnx_error(node, "input %d is required", i);
  rlx_sinfo_tensor_t* t = nn_sinfo(inputs[i]);
  if (!t || t->ndim < 0) return rlx_onnx_error(node, "input %d ('%s') must be a tensor of known rank", i, node->inputs[i]);
  *out = t;
  return NULL;
}

rlx_status_t* nn_unsupported(const rlx_onnx_node_t* node, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rlx_status_t* st = rlx_status_createv(RLX_UNSUPPORTED, fmt, ap);
  va_end(ap);
  return rlx_status_annotate(st, "node '%s' (%s)", node->name, node->op_type);
}

bool nn_wants_output(const rlx_onnx_node_t* node, int i) {
  return i < node->n_outputs && node->outputs[i] && node->outputs[i][0];
}

rlx_status_t* nn_call(rlx_onnx_importer_t* im, rlx_op_id_t op, int n, rlx_relax_expr_t* const* args, rlx_attrs_t attrs,
                      rlx_relax_expr_t** out) {
  return rlx_onnx_emit(im, rlx_relax_op_call(rlx_onnx_ctx(im), op, n, args, attrs), out);
}

rlx_status_t* nn_scalar(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_dtype_t dt, double v,
                        rlx_relax_expr_t** out) {
  union {
    float f32;
    double f64;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
  } u;
  bool ok = true;
  if (dt.code == RLX_DT_FLOAT && dt.bits == 32) u.f32 = (float)v;
  else if (dt.code == RLX_DT_FLOAT && dt.bits == 64) u.f64 = v;
  else if (dt.code == RLX_DT_INT && dt.bits == 8) u.i8 = (int8_t)v;
  else if (dt.code == RLX_DT_INT && dt.bits == 16) u.i16 = (int16_t)v;
  else if (dt.code == RLX_DT_INT && dt.bits == 32) u.i32 = (int32_t)v;
  else if (dt.code == RLX_DT_INT && dt.bits == 64) u.i64 = (int64_t)v;
  else if (dt.code == RLX_DT_UINT && dt.bits == 8) u.u8 = (uint8_t)v;
  else if (dt.code == RLX_DT_UINT && dt.bits == 16) u.u16 = (uint16_t)v;
  else if (dt.code == RLX_DT_UINT && dt.bits == 32) u.u32 = (uint32_t)v;
  else if (dt.code == RLX_DT_UINT && dt.bits == 64) u.u64 = (uint64_t)v;
  else ok = false;
  if (!ok) {
    char b[32];
    return nn_unsupported(node, "dtype %s is not supported here", rlx_dtype_str(dt, b));
  }
  *out = rlx_onnx_make_const(im, dt, 0, NULL, &u);
  return NULL;
}

rlx_status_t* nn_attr_ints(const rlx_onnx_node_t* node, const char* key, int n, int64_t dflt, int64_t* out) {
  const int64_t* v;
  int m = rlx_onnx_attr_ints(node, key, &v);
  if (m < 0) {
    for (int i = 0; i < n; i++) out[i] = dflt;
    return NULL;
  }
  if (m != n) return rlx_onnx_error(node, "%s has %d values, expected %d", key, m, n);
  for (int i = 0; i < n; i++) out[i] = v[i];
  return NULL;
}

rlx_status_t* nn_auto_pad(const rlx_onnx_node_t* node, nn_auto_pad_t* out) {
  const char* s = rlx_onnx_attr_string(node, "auto_pad", "NOTSET");
  if (!s[0] || strcmp(s, "NOTSET") == 0) *out = NN_PAD_NOTSET;
  else if (strcmp(s, "VALID") == 0) *out = NN_PAD_VALID;
  else if (strcmp(s, "SAME_UPPER") == 0) *out = NN_PAD_SAME_UPPER;
  else if (strcmp(s, "SAME_LOWER") == 0) *out = NN_PAD_SAME_LOWER;
  else return rlx_onnx_error(node, "auto_pad \"%s\" is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER", s);
  return NULL;
}

rlx_status_t* nn_window_pads(const rlx_onnx_node_t* node, rlx_sinfo_tensor_t* x, int nsp, const int64_t* kernel,
                             const int64_t* strides, const int64_t* dilations, int64_t* pads) {
  nn_auto_pad_t ap;
  RLX_RETURN_IF_ERROR(nn_auto_pad(node, &ap));
  switch (ap) {
    case NN_PAD_NOTSET:
      RLX_RETURN_IF_ERROR(nn_attr_ints(node, "pads", 2 * nsp, 0, pads));
      for (int i = 0; i < 2 * nsp; i++)
        if (pads[i] < 0) return rlx_onnx_error(node, "pads must be >= 0, got %lld", (long long)pads[i]);
      return NULL;
    case NN_PAD_VALID:
      for (int i = 0; i < 2 * nsp; i++) pads[i] = 0;
      return NULL;
    case NN_PAD_SAME_UPPER:
    case NN_PAD_SAME_LOWER:
      for (int i = 0; i < nsp; i++) {
        int64_t in;
        if (!x->shape || !rlx_expr_is_const_int(x->shape[2 + i], &in))
          return nn_unsupported(node, "auto_pad %s needs a static input size (spatial dim %d is not constant)",
                                ap == NN_PAD_SAME_UPPER ? "SAME_UPPER" : "SAME_LOWER", i);
        int64_t out = (in + strides[i] - 1) / strides[i];
        int64_t total = (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in;
        if (total < 0) total = 0;
        int64_t small = total / 2;
        pads[i] = ap == NN_PAD_SAME_UPPER ? small : total - small;
        pads[nsp + i] = total - pads[i];
      }
      return NULL;
  }
  return NULL;
}

rlx_op_id_t nn_op_dims(rlx_op_id_t op_1d, int nsp) { return (rlx_op_id_t)(op_1d + nsp - 1); }
_Static_assert(RLX_OP_CONV3D == RLX_OP_CONV1D + 2 && RLX_OP_CONV3D_TRANSPOSE == RLX_OP_CONV1D_TRANSPOSE + 2 &&
                   RLX_OP_MAX_POOL3D == RLX_OP_MAX_POOL1D + 2 && RLX_OP_AVG_POOL3D == RLX_OP_AVG_POOL1D + 2,
               "op.def lists the 1d, 2d and 3d ops in a row");

/* Checks that attribute key (ints) has one value > 0 per spatial dim when present. */
static RLX_MUST_USE rlx_status_t* positive_ints(const rlx_onnx_node_t* node, const char* key, int nsp, int64_t* v) {
  RLX_RETURN_IF_ERROR(nn_attr_ints(node, key, nsp, 1, v));
  for (int i = 0; i < nsp; i++)
    if (v[i] < 1) return rlx_onnx_error(node, "%s must be >= 1, got %lld", key, (long long)v[i]);
  return NULL;
}

/* Adds a per-channel bias b (1-D, [C]) to y ([N, C, spatial...]). */
static RLX_MUST_USE rlx_status_t* add_channel_bias(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* y,
                                                   rlx_relax_expr_t* b, int nsp, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* bt = nn_sinfo(b);
  if (!bt || bt->ndim != 1) return rlx_onnx_error(node, "the bias (input 2) must be 1-D");
  int64_t axes[NN_MAX_SP];
  for (int i = 0; i < nsp; i++) axes[i] = 1 + i;
  rlx_relax_expr_t* b2;
  RLX_RETURN_IF_ERROR(
      nn_call(im, RLX_OP_EXPAND_DIMS, 1, &b, rlx_attrs_set(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_ints(nsp, axes)), &b2));
  return nn_call(im, RLX_OP_ADD, 2, (rlx_relax_expr_t*[]){y, b2}, (rlx_attrs_t){0}, out);
}

/* ---------------------------------------------------------------- MatMul */
static RLX_MUST_USE rlx_status_t* convert_matmul(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                 rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t *a, *b;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &a));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &b));
  if (a->ndim < 1 || b->ndim < 1) return rlx_onnx_error(node, "operands must have rank >= 1");
  return rlx_status_annotate(nn_call(im, RLX_OP_MATMUL, 2, inputs, (rlx_attrs_t){0}, &outputs[0]), "node '%s' (%s)",
                             node->name, node->op_type);
}

/* ---------------------------------------------------------------- Gemm */
/* Y = alpha * A' B' + beta * C (C optional, broadcast to [M, N]); the legacy broadcast
 * attribute (opset < 7) is accepted: C broadcasts in both cases. */
static RLX_MUST_USE rlx_status_t* convert_gemm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                               rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_sinfo_tensor_t *at, *bt;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &at));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &bt));
  if (at->ndim != 2 || bt->ndim != 2)
    return rlx_onnx_error(node, "A and B must be 2-D, got ranks %d and %d", at->ndim, bt->ndim);
  double alpha = rlx_onnx_attr_float(node, "alpha", 1.0), beta = rlx_onnx_attr_float(node, "beta", 1.0);
  int64_t ta = rlx_onnx_attr_int(node, "transA", 0), tb = rlx_onnx_attr_int(node, "transB", 0);
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1))
    return rlx_onnx_error(node, "transA=%lld / transB=%lld must be 0 or 1", (long long)ta, (long long)tb);
  rlx_relax_expr_t *a = inputs[0], *b = inputs[1], *y;
  if (ta) RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_PERMUTE_DIMS, 1, &a, (rlx_attrs_t){0}, &a));
  if (tb) RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_PERMUTE_DIMS, 1, &b, (rlx_attrs_t){0}, &b));
  RLX_RETURN_IF_ERROR(rlx_status_annotate(nn_call(im, RLX_OP_MATMUL, 2, (rlx_relax_expr_t*[]){a, b}, (rlx_attrs_t){0}, &y),
                                          "node '%s' (%s)", node->name, node->op_type));
  if (alpha != 1.0) {
    rlx_relax_expr_t* s;
    RLX_RETURN_IF_ERROR(nn_scalar(im, node, at->dtype, alpha, &s));
    RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_MULTIPLY, 2, (rlx_relax_expr_t*[]){y, s}, (rlx_attrs_t){0}, &y));
  }
  rlx_relax_expr_t* c = node->n_inputs > 2 ? inputs[2] : NULL;
  if (c && beta != 0.0) {
    if (!nn_sinfo(c)) return rlx_onnx_error(node, "C must be a tensor");
    if (beta != 1.0) {
      rlx_relax_expr_t* s;
      RLX_RETURN_IF_ERROR(nn_scalar(im, node, at->dtype, beta, &s));
      RLX_RETURN_IF_ERROR(nn_call(im, RLX_OP_MULTIPLY, 2, (rlx_relax_expr_t*[]){c, s}, (rlx_attrs_t){0}, &c));
    }
    RLX_RETURN_IF_ERROR(rlx_status_annotate(nn_call(im, RLX_OP_ADD, 2, (rlx_relax_expr_t*[]){y, c}, (rlx_attrs_t){0}, &y),
                                            "node '%s' (%s): C does not broadcast to the output", node->name,
                                            node->op_type));
  }
  outputs[0] = y;
  return NULL;
}

/* ---------------------------------------------------------------- Conv */
/* Shared attribute reading of Conv and ConvTranspose: spatial rank from X, kernel_shape
 * (checked against W's dims when both are known), strides, dilations, group. */
typedef struct {
  int nsp;
  int64_t kernel[NN_MAX_SP], strides[NN_MAX_SP], dilations[NN_MAX_SP], group;
} conv_common_t;

static RLX_MUST_USE rlx_status_t* conv_common(const rlx_onnx_node_t* node, rlx_sinfo_tensor_t* x, rlx_sinfo_tensor_t* w,
                                              conv_common_t* a) {
  int nsp = a->nsp = x->ndim - 2;
  if (nsp < 1 || nsp > NN_MAX_SP) return nn_unsupported(node, "input of rank %d (only 1-D to 3-D convolutions)", x->ndim);
  if (w->ndim != x->ndim) return rlx_onnx_error(node, "W has rank %d, X rank %d", w->ndim, x->ndim);
  const int64_t* ks;
  int nk = rlx_onnx_attr_ints(node, "kernel_shape", &ks);
  if (nk >= 0 && nk != nsp) return rlx_onnx_error(node, "kernel_shape has %d values, expected %d", nk, nsp);
  for (int i = 0; i < nsp; i++) {
    int64_t wd = -1;
    if (w->shape) rlx_expr_is_const_int(w->shape[2 + i], &wd);
    if (nk >= 0 && wd >= 0 && ks[i] != wd)
      return rlx_onnx_error(node, "kernel_shape[%d] = %lld differs from W's dim %lld", i, (long long)ks[i], (long long)wd);
    a->kernel[i] = nk >= 0 ? ks[i] : wd;
    if (a->kernel[i] < 1) return nn_unsupported(node, "the kernel size must be known (kernel_shape or a static W)");
  }
  RLX_RETURN_IF_ERROR(positive_ints(node, "strides", nsp, a->strides));
  RLX_RETURN_IF_ERROR(positive_ints(node, "dilations", nsp, a->dilations));
  a->group = rlx_onnx_attr_int(node, "group", 1);
  if (a->group < 1) return rlx_onnx_error(node, "group must be >= 1, got %lld", (long long)a->group);
  return NULL;
}

static RLX_MUST_USE rlx_status_t* convert_conv(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                               rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *w;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &w));
  conv_common_t a;
  RLX_RETURN_IF_ERROR(conv_common(node, x, w, &a));
  int nsp = a.nsp;
  int64_t pads[2 * NN_MAX_SP];
  RLX_RETURN_IF_ERROR(nn_window_pads(node, x, nsp, a.kernel, a.strides, a.dilations, pads));
  rlx_attrs_t at = {0};
  at = rlx_attrs_set(ctx, at, "strides", rlx_attr_ints(nsp, a.strides));
  at = rlx_attrs_set(ctx, at, "padding", rlx_attr_ints(2 * nsp, pads));
  at = rlx_attrs_set(ctx, at, "dilation", rlx_attr_ints(nsp, a.dilations));
  at = rlx_attrs_set(ctx, at, "groups", rlx_attr_int(a.group));
  rlx_relax_expr_t* y;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(nn_call(im, nn_op_dims(RLX_OP_CONV1D, nsp), 2, inputs, at, &y),
                                          "node '%s' (%s)", node->name, node->op_type));
  if (node->n_inputs > 2 && inputs[2]) RLX_RETURN_IF_ERROR(add_channel_bias(im, node, y, inputs[2], nsp, &y));
  outputs[0] = y;
  return NULL;
}

/* ---------------------------------------------------------------- ConvTranspose */
/* out = stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pad_begin - pad_end.
 * With output_shape (or auto_pad SAME_*, whose output shape is in * stride) the total padding
 * follows from the wanted size and is split as ONNX says (SAME_UPPER: the smaller half first;
 * otherwise the larger half first); a negative end padding becomes extra output_padding. */
static RLX_MUST_USE rlx_status_t* convert_conv_transpose(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                         rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t *x, *w;
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 0, &x));
  RLX_RETURN_IF_ERROR(nn_tensor(node, inputs, 1, &w));
  conv_common_t a;
  RLX_RETURN_IF_ERROR(conv_common(node, x, w, &a));
  int nsp = a.nsp;
  int64_t opad[NN_MAX_SP], pads[2 * NN_MAX_SP], oshape[NN_MAX_SP];
  RLX_RETURN_IF_ERROR(nn_attr_ints(node, "output_padding", nsp, 0, opad));
  nn_auto_pad_t ap;
  RLX_RETURN_IF_ERROR(nn_auto_pad(node, &ap));
  const int64_t* os;
  int nos = rlx_onnx_attr_ints(node, "output_shape", &os);
  if (nos >= 0 && nos != nsp && nos != nsp + 2)
    return rlx_onnx_error(node, "output_shape has %d values, expected %d", nos, nsp);
  bool from_shape = nos >= 0 || ap == NN_PAD_SAME_UPPER || ap == NN_PAD_SAME_LOWER;
  if (from_shape) {
    for (int i = 0; i < nsp; i++) {
      int64_t in;
      if (!x->shape || !rlx_expr_is_const_int(x->shape[2 + i], &in))
        return nn_unsupported(node, "output_shape / auto_pad SAME need a static input size");
      oshape[i] = nos >= 0 ? os[nos - nsp + i] : in * a.strides[i];
      int64_t total = a.strides[i] * (in - 1) + opad[i] + (a.kernel[i] - 1) * a.dilations[i] + 1 - oshape[i];
      /* floor division, as ONNX's reference computes it for a negative total */
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      if (ap == NN_PAD_SAME_UPPER) {
        pads[i] = half;
        pads[nsp + i] = total - half;
      } else {
        pads[i] = total - half;
        pads[nsp + i] = half;
      }
      if (pads[nsp + i] < 0) {
        opad[i] -= pads[nsp + i];
        pads[nsp + i] = 0;
      }
      if (pads[i] < 0) return nn_unsupported(node, "output_shape %lld is too large for dim %d", (long long)oshape[i], i);
    }
  } else if (ap == NN_PAD_VALID) {
    for (int i = 0; i < 2 * nsp; i++) pads[i] = 0;
  } else {
    RLX_RETURN_IF_ERROR(nn_attr_ints(node, "pads", 2 * nsp, 0, pads));
    for (int i = 0; i < 2 * nsp; i++)
      if (pads[i] < 0) return rlx_onnx_error(node, "pads must be >= 0, got %lld", (long long)pads[i]);
  }
  for (int i = 0; i < nsp; i++)
    if (opad[i] < 0 || (opad[i] >= a.strides[i] && opad[i] >= a.dilations[i]))
      return nn_unsupported(node, "output_padding %lld must be smaller than the stride %lld or the dilation %lld",
                            (long long)opad[i], (long long)a.strides[i], (long long)a.dilations[i]);
  rlx_attrs_t at = {0};
  at = rlx_attrs_set(ctx, at, "strides", rlx_attr_ints(nsp, a.strides));
  at = rlx_attrs_set(ctx, at, "padding", rlx_attr_ints(2 * nsp, pads));
  at = rlx_attrs_set(ctx, at, "output_padding", rlx_attr_ints(nsp, opad));
  at = rlx_attrs_set(ctx, at, "dilation", rlx_attr_ints(nsp, a.dilations));
  at = rlx_attrs_set(ctx, at, "groups", rlx_attr_int(a.group));
  rlx_relax_expr_t* y;
  RLX_RETURN_IF_ERROR(rlx_status_annotate(
      nn_call(im, nn_op_dims(RLX_OP_CONV1D_TRANSPOSE, nsp), 2, inputs, at, &y), "node '%s' (%s)",
      node->name, node->op_type));
  if (node->n_inputs > 2 && inputs[2]) RLX_RETURN_IF_ERROR(add_channel_bias(im, node, y, inputs[2], nsp, &y));
  outputs[0] = y;
  return NULL;
}

/* ---------------------------------------------------------------- table */
/* Entries per op: every since_version whose semantics rlx follows (the same function when
 * the versions differ only in types rlx handles alike). */
const rlx_onnx_converter_t rlx_onnx_ops_nn[] = {
    {"MatMul", 1, convert_matmul},
    {"MatMul", 9, convert_matmul},
    {"MatMul", 13, convert_matmul},
    {"Gemm", 1, convert_gemm},
    {"Gemm", 6, convert_gemm},
    {"Gemm", 7, convert_gemm},
    {"Gemm", 9, convert_gemm},
    {"Gemm", 11, convert_gemm},
    {"Gemm", 13, convert_gemm},
    {"Conv", 1, convert_conv},
    {"Conv", 11, convert_conv},
    {"ConvTranspose", 1, convert_conv_transpose},
    {"ConvTranspose", 11, convert_conv_transpose},
    {"MaxPool", 1, rlx_onnx_nn_max_pool},
    {"MaxPool", 8, rlx_onnx_nn_max_pool},
    {"MaxPool", 10, rlx_onnx_nn_max_pool},
    {"MaxPool", 11, rlx_onnx_nn_max_pool},
    {"MaxPool", 12, rlx_onnx_nn_max_pool},
    {"AveragePool", 1, rlx_onnx_nn_average_pool},
    {"AveragePool", 7, rlx_onnx_nn_average_pool},
    {"AveragePool", 10, rlx_onnx_nn_average_pool},
    {"AveragePool", 11, rlx_onnx_nn_average_pool},
    {"AveragePool", 19, rlx_onnx_nn_average_pool},
    {"LpPool", 1, rlx_onnx_nn_lp_pool},
    {"LpPool", 2, rlx_onnx_nn_lp_pool},
    {"LpPool", 11, rlx_onnx_nn_lp_pool},
    {"LpPool", 18, rlx_onnx_nn_lp_pool},
    {"GlobalAveragePool", 1, rlx_onnx_nn_global_average_pool},
    {"GlobalMaxPool", 1, rlx_onnx_nn_global_max_pool},
    {"GlobalLpPool", 1, rlx_onnx_nn_global_lp_pool},
    {"GlobalLpPool", 2, rlx_onnx_nn_global_lp_pool},
    {"BatchNormalization", 1, rlx_onnx_nn_batch_norm},
    {"BatchNormalization", 6, rlx_onnx_nn_batch_norm},
    {"BatchNormalization", 7, rlx_onnx_nn_batch_norm},
    {"BatchNormalization", 9, rlx_onnx_nn_batch_norm},
    {"BatchNormalization", 14, rlx_onnx_nn_batch_norm},
    {"BatchNormalization", 15, rlx_onnx_nn_batch_norm},
    {"InstanceNormalization", 1, rlx_onnx_nn_instance_norm},
    {"InstanceNormalization", 6, rlx_onnx_nn_instance_norm},
    {"LayerNormalization", 17, rlx_onnx_nn_layer_norm},
    {"GroupNormalization", 18, rlx_onnx_nn_group_norm},
    {"GroupNormalization", 21, rlx_onnx_nn_group_norm},
    {"MaxUnpool", 9, rlx_onnx_nn_max_unpool},
    {"MaxUnpool", 11, rlx_onnx_nn_max_unpool},
    {"MeanVarianceNormalization", 1, rlx_onnx_nn_mvn},
    {"MeanVarianceNormalization", 9, rlx_onnx_nn_mvn},
    {"MeanVarianceNormalization", 13, rlx_onnx_nn_mvn},
    {"LpNormalization", 1, rlx_onnx_nn_lp_norm},
    {"RoiAlign", 10, rlx_onnx_nn_roi_align},
    {"RoiAlign", 16, rlx_onnx_nn_roi_align},
    {"LRN", 1, rlx_onnx_nn_lrn},
    {"LRN", 13, rlx_onnx_nn_lrn},
    {NULL, 0, NULL},
};
