/* ONNX converters, family "core" (see onnx_import.h): Constant, Identity, Dropout (inference),
 * Shape; If, Loop and Scan are in control.c. Shape of a statically shaped tensor is a constant, which is what
 * makes shape-computing subgraphs (Shape → Gather → Concat → Reshape) fold at import time.
 */
#include <string.h>

#include "onnx_internal.h"

/* ------------------------------------------------------------------ Constant */
/* Constant-1: value; -9: more dtypes; -11: sparse_value; -12: value_float(s), value_int(s),
 * value_string(s). One converter reads whichever attribute is present. */
static RLX_MUST_USE rlx_status_t* cv_constant(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* in,
                                 rlx_relax_expr_t** out) {
  if (rlx_onnx_has_attr(node, "value")) return rlx_onnx_attr_tensor(im, node, "value", &out[0]);
  if (rlx_onnx_has_attr(node, "sparse_value"))
    return rlx_onnx_error(node, "sparse_value (a sparse tensor) is not supported");
  if (rlx_onnx_has_attr(node, "value_string") || rlx_onnx_has_attr(node, "value_strings"))
    return rlx_onnx_error(node, "string constants are not supported");
  if (rlx_onnx_has_attr(node, "value_float")) {
    float v = (float)rlx_onnx_attr_float(node, "value_float", 0);
    out[0] = rlx_onnx_make_const(im, rlx_dt_float32(), 0, NULL, &v);
  } else if (rlx_onnx_has_attr(node, "value_int")) {
    int64_t v = rlx_onnx_attr_int(node, "value_int", 0);
    out[0] = rlx_onnx_make_const(im, rlx_dt_int64(), 0, NULL, &v);
  } else if (rlx_onnx_has_attr(node, "value_floats")) {
    const float* v = NULL;
    int64_t n = rlx_onnx_attr_floats(node, "value_floats", &v);
    out[0] = rlx_onnx_make_const(im, rlx_dt_float32(), 1, &n, v);
  } else if (rlx_onnx_has_attr(node, "value_ints")) {
    const int64_t* v = NULL;
    int64_t n = rlx_onnx_attr_ints(node, "value_ints", &v);
    out[0] = rlx_onnx_make_const(im, rlx_dt_int64(), 1, &n, v);
  } else {
    return rlx_onnx_error(node, "has no value attribute (value, value_float(s) or value_int(s))");
  }
  if (!out[0]) return rlx_onnx_error(node, "the constant could not be built");
  return NULL;
}

/* ------------------------------------------------------------------ Identity */
static RLX_MUST_USE rlx_status_t* cv_identity(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* in,
                                 rlx_relax_expr_t** out) {
  if (node->n_inputs < 1 || !in[0]) return rlx_onnx_error(node, "needs one input");
  out[0] = in[0];
  return NULL;
}

/* ------------------------------------------------------------------ helpers */
static const rlx_sinfo_tensor_t* tensor_sinfo(const rlx_onnx_node_t* node, rlx_relax_expr_t* e, int input,
                                              rlx_status_t** st) {
  *st = NULL;
  if (!e || !e->sinfo || e->sinfo->kind != RLX_SINFO_TENSOR) {
    *st = rlx_onnx_error(node, "input %d must be a tensor", input);
    return NULL;
  }
  return (const rlx_sinfo_tensor_t*)e->sinfo;
}

typedef struct {
  int start, n;
  rlx_dtype_t dtype;
  rlx_te_tensor_t* input;
} te_user_t;

/* Shape[start + i] of the input placeholder (a select chain over i). */
static rlx_expr_t* shape_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  te_user_t* u = user;
  rlx_expr_t** dims = u->input->buffer->shape;
  rlx_expr_t* r = rlx_ir_cast(ctx, rlx_dt_int64(), dims[u->start + u->n - 1]);
  rlx_expr_t* i = rlx_ir_cast(ctx, rlx_dt_int64(), &idx[0]->hdr);
  for (int k = u->n - 2; k >= 0; k--)
    r = rlx_ir_select(ctx, rlx_ir_cmp(ctx, RLX_EXPR_EQ, i, rlx_ir_i64(ctx, k)),
                      rlx_ir_cast(ctx, rlx_dt_int64(), dims[u->start + k]), r);
  return r;
}

static RLX_MUST_USE rlx_status_t* te_shape(rlx_ctx_t* ctx, rlx_te_tensor_t* const* inputs, int n, void* user,
                                           rlx_te_tensor_t** out) {
  te_user_t* u = user;
  u->input = inputs[0];
  rlx_expr_t* len = rlx_ir_i64(ctx, u->n);
  return *out = rlx_te_compute(ctx, 1, &len, shape_body, u, "shape", "injective"), NULL;
}

/* ------------------------------------------------------------------ Shape */
/* Shape-1; Shape-15 adds start/end (clamped, negative from the end). */
static RLX_MUST_USE rlx_status_t* cv_shape(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* in,
                              rlx_relax_expr_t** out) {
  rlx_status_t* st = NULL;
  const rlx_sinfo_tensor_t* t = tensor_sinfo(node, in[0], 0, &st);
  if (!t) return st;
  if (t->ndim < 0 || !t->shape) return rlx_onnx_error(node, "the input's rank must be known");
  int r = t->ndim;
  int64_t start = rlx_onnx_attr_int(node, "start", 0), end = rlx_onnx_attr_int(node, "end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < 0 ? 0 : end > r ? r : end;
  int64_t n = end > start ? end - start : 0;
  int64_t* vals = RLX_NEW_ARRAY(rlx_onnx_ctx(im), int64_t, n);
  bool is_static = true;
  for (int64_t i = 0; i < n; i++) is_static &= rlx_expr_is_const_int(t->shape[start + i], &vals[i]);
  if (is_static || n == 0) {
    out[0] = rlx_onnx_make_const(im, rlx_dt_int64(), 1, &n, vals);
    return NULL;
  }
  te_user_t* u = RLX_NEW(rlx_onnx_ctx(im), te_user_t);
  u->start = (int)start;
  u->n = (int)n;
  return rlx_onnx_emit_te(im, te_shape, u, 1, &in[0], "shape", &out[0]);
}

/* ------------------------------------------------------------------ Dropout */
static rlx_expr_t* ones_body(rlx_ctx_t* ctx, rlx_var_t* const* idx, void* user) {
  te_user_t* u = user;
  if (u->dtype.code == RLX_DT_FLOAT || u->dtype.code == RLX_DT_BFLOAT) return rlx_ir_float(ctx, u->dtype, 1.0);
  if (u->dtype.bits == 1) return rlx_ir_bool(ctx, true);
  return rlx_ir_int(ctx, u->dtype, 1);
}

static RLX_MUST_USE rlx_status_t* te_ones(rlx_ctx_t* ctx, rlx_te_tensor_t* const* inputs, int n, void* user,
                                          rlx_te_tensor_t** out) {
  const rlx_tir_buffer_t* b = inputs[0]->buffer;
  return *out = rlx_te_compute(ctx, b->ndim, b->shape, ones_body, user, "mask", "injective"), NULL;
}

/* Inference: output = input; the optional mask is all ones (bool from opset 10, the input's
 * type before): a constant for a static shape, else computed. Dropout-12 with a training_mode
 * that is not a constant false (and a ratio that is not a constant 0) drops at random
 * (rlx_onnx_dropout_training, ops_random.c). */
static RLX_MUST_USE rlx_status_t* cv_dropout(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* in,
                                rlx_relax_expr_t** out) {
  rlx_status_t* st = NULL;
  const rlx_sinfo_tensor_t* t = tensor_sinfo(node, in[0], 0, &st);
  if (!t) return st;
  if (node->n_inputs > 2 && in[2]) {
    rlx_onnx_tensor_t tm, ratio;
    if (!rlx_onnx_const(im, in[2], &tm)) return rlx_onnx_dropout_training(im, node, in, out); /* decided at run time */
    bool training = ((const uint8_t*)tm.data)[0] != 0;
    bool zero_ratio = false;
    if (node->n_inputs > 1 && in[1] && rlx_onnx_const(im, in[1], &ratio) && ratio.dtype.code == RLX_DT_FLOAT) {
      if (ratio.dtype.bits == 32) zero_ratio = ((const float*)ratio.data)[0] == 0.0f;
      else if (ratio.dtype.bits == 64) zero_ratio = ((const double*)ratio.data)[0] == 0.0;
    }
    if (training && !zero_ratio) return rlx_onnx_dropout_training(im, node, in, out);
  }
  out[0] = in[0];
  if (node->n_outputs < 2 || !node->outputs[1][0]) return NULL;
  te_user_t* u = RLX_NEW(rlx_onnx_ctx(im), te_user_t);
  u->dtype = rlx_onnx_opset(im) >= 10 ? rlx_dt_bool() : t->dtype;
  if (rlx_dtype_is_void(u->dtype)) return rlx_onnx_error(node, "the input's dtype must be known for the mask");
  if (t->ndim < 0 || !t->shape) return rlx_onnx_error(node, "the input's rank must be known for the mask");
  int64_t* dims = RLX_NEW_ARRAY(rlx_onnx_ctx(im), int64_t, t->ndim);
  int64_t numel = 1;
  bool is_static = true;
  for (int d = 0; d < t->ndim && is_static; d++) {
    is_static = rlx_expr_is_const_int(t->shape[d], &dims[d]);
    numel *= dims[d];
    is_static &= numel <= (1 << 20);
  }
  if (!is_static) return rlx_onnx_emit_te(im, te_ones, u, 1, &in[0], "dropout_mask", &out[1]);
  /* a static shape: the mask is a constant */
  size_t el = (size_t)rlx_dtype_bytes(u->dtype);
  uint8_t one[8];
  memset(one, 0, sizeof(one));
  if (u->dtype.code == RLX_DT_FLOAT && el == 4) {
    float f = 1.0f;
    memcpy(one, &f, 4);
  } else if (u->dtype.code == RLX_DT_FLOAT && el == 8) {
    double f = 1.0;
    memcpy(one, &f, 8);
  } else if (u->dtype.code == RLX_DT_FLOAT || u->dtype.code == RLX_DT_BFLOAT) { /* half, bfloat16 */
    uint16_t h = u->dtype.code == RLX_DT_FLOAT ? 0x3c00 : 0x3f80;
    memcpy(one, &h, 2);
  } else {
    one[0] = 1; /* integers and bool, little-endian */
  }
  uint8_t* data = RLX_NEW_ARRAY(rlx_onnx_ctx(im), uint8_t, (size_t)numel * el);
  for (int64_t i = 0; i < numel; i++) memcpy(data + (size_t)i * el, one, el);
  out[1] = rlx_onnx_make_const(im, u->dtype, t->ndim, dims, data);
  return out[1] ? NULL : rlx_onnx_error(node, "the mask could not be built");
}

const rlx_onnx_converter_t rlx_onnx_ops_core[] = {
    {"Constant", 1, cv_constant},
    {"Identity", 1, cv_identity},
    {"Dropout", 1, cv_dropout},
    {"Shape", 1, cv_shape},
    {"If", 1, rlx_onnx_convert_if},
    {"Loop", 1, rlx_onnx_convert_loop},
    {"Scan", 8, rlx_onnx_convert_scan},
    {"SequenceMap", 17, rlx_onnx_convert_sequence_map},
    {NULL, 0, NULL},
};
