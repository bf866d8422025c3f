/* ONNX converters, family "tensor" (see onnx_import.h): shape and index ops.
 *
 * This file holds the family's table, the shared helpers (ops_tensor_internal.h) and the
 * shape-rearranging ops that map onto Relax ops: Reshape, Flatten, Transpose, Concat, Split,
 * Squeeze, Unsqueeze, Slice, Expand, Tile, Pad, DepthToSpace, SpaceToDepth. Index and
 * value-producing ops are in ops_tensor_index.c, Resize/Upsample/GridSample in
 * ops_tensor_resize.c.
 *
 * Values that decide an output shape (Reshape's shape, Slice's starts/ends, axes inputs,
 * pads, repeats) are usually constants at import time (the importer folds constant
 * subgraphs: Shape → Gather → Concat); where one arrives at run time the converter takes
 * its run-time path in ops_tensor_dyn.c, or says that input must be a constant.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../topi/basic.h"
#include "ops_tensor_internal.h"

/* ------------------------------------------------------------------ helpers */
bool ot_has_input(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i) {
  return i < node->n_inputs && inputs[i] != NULL;
}

rlx_status_t* ot_tensor(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i, bool need_shape,
                        rlx_sinfo_tensor_t** out) {
  if (!ot_has_input(node, inputs, i)) return rlx_onnx_error(node, "input %d is missing", i);
  rlx_sinfo_t* s = inputs[i]->sinfo;
  if (!s || s->kind != RLX_SINFO_TENSOR) return rlx_onnx_error(node, "input %d ('%s') is not a tensor", i, node->inputs[i]);
  rlx_sinfo_tensor_t* t = (rlx_sinfo_tensor_t*)s;
  if (need_shape && (t->ndim < 0 || !t->shape))
    return rlx_onnx_error(node, "input %d ('%s') needs a known shape", i, node->inputs[i]);
  *out = t;
  return NULL;
}

rlx_status_t* ot_axis(const rlx_onnx_node_t* node, const char* what, int64_t axis, int rank, int64_t* out) {
  if (axis < -rank || axis >= rank)
    return rlx_onnx_error(node, "%s %lld is out of range for rank %d", what, (long long)axis, rank);
  *out = axis < 0 ? axis + rank : axis;
  return NULL;
}

rlx_status_t* ot_op(rlx_onnx_importer_t* im, rlx_op_id_t name, int n_args, rlx_relax_expr_t* const* args,
                    rlx_attrs_t attrs, rlx_relax_expr_t** out) {
  rlx_relax_expr_t* call = rlx_relax_op_call(rlx_onnx_ctx(im), name, n_args, args, attrs);
  return rlx_onnx_emit(im, call, out);
}

rlx_attrs_t ot_attr(rlx_ctx_t* ctx, rlx_attrs_t attrs, const char* key, rlx_attr_t v) {
  return rlx_attrs_set(ctx, attrs, key, v);
}

int64_t* ot_copy_ints(rlx_ctx_t* ctx, int n, const int64_t* v) {
  int64_t* c = RLX_NEW_ARRAY(ctx, int64_t, n);
  if (n > 0) memcpy(c, v, sizeof(int64_t) * (size_t)n);
  return c;
}

rlx_relax_expr_t* ot_shape_ints(rlx_ctx_t* ctx, int n, const int64_t* v) {
  rlx_expr_t** d = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) d[i] = rlx_ir_i64(ctx, v[i]);
  return rlx_relax_shape_expr(ctx, n, d);
}

rlx_expr_t* ot_prod(rlx_ctx_t* ctx, int n, rlx_expr_t* const* dims) {
  rlx_expr_t* p = rlx_ir_i64(ctx, 1);
  for (int i = 0; i < n; i++) p = rlx_ir_mul(ctx, p, rlx_ir_cast(ctx, rlx_dt_int64(), dims[i]));
  return rlx_topi_simplify_dim(ctx, p);
}

rlx_status_t* ot_reshape(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int n, rlx_expr_t* const* dims,
                         rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_relax_expr_t* args[2] = {x, rlx_relax_shape_expr(ctx, n, dims)};
  return ot_op(im, RLX_OP_RESHAPE, 2, args, (rlx_attrs_t){0}, out);
}

int64_t ot_numel(const rlx_onnx_tensor_t* t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

double ot_elem_f64(const rlx_onnx_tensor_t* t, int64_t k) {
  const void* p = t->data;
  switch (t->dtype.code) {
    case RLX_DT_FLOAT:
      if (t->dtype.bits == 64) return ((const double*)p)[k];
      if (t->dtype.bits == 32) return ((const float*)p)[k];
      break;
    case RLX_DT_INT:
      switch (t->dtype.bits) {
        case 8: return ((const int8_t*)p)[k];
        case 16: return ((const int16_t*)p)[k];
        case 32: return ((const int32_t*)p)[k];
        case 64: return (double)((const int64_t*)p)[k];
        default: break;
      }
      break;
    case RLX_DT_UINT:
      switch (t->dtype.bits) {
        case 1:
        case 8: return ((const uint8_t*)p)[k];
        case 16: return ((const uint16_t*)p)[k];
        case 32: return ((const uint32_t*)p)[k];
        case 64: return (double)((const uint64_t*)p)[k];
        default: break;
      }
      break;
    case RLX_DT_HANDLE:
    case RLX_DT_BFLOAT:
    default: break;
  }
  return NAN;
}

int64_t ot_elem_i64(const rlx_onnx_tensor_t* t, int64_t k) {
  if (t->dtype.code == RLX_DT_INT && t->dtype.bits == 64) return ((const int64_t*)t->data)[k];
  if (t->dtype.code == RLX_DT_UINT && t->dtype.bits == 64) return (int64_t)((const uint64_t*)t->data)[k];
  double v = ot_elem_f64(t, k);
  if (!(v == v)) return 0;
  if (v >= 9.2e18) return INT64_MAX;
  if (v <= -9.2e18) return INT64_MIN;
  return (int64_t)v;
}

rlx_status_t* ot_const_scalar(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, int i, rlx_relax_expr_t* e,
                              double* out) {
  rlx_onnx_tensor_t t;
  if (!e || !rlx_onnx_const(im, e, &t))
    return rlx_onnx_error(node, "input %d (%s) must be a constant", i, i < node->n_inputs ? node->inputs[i] : "?");
  if (ot_numel(&t) != 1)
    return rlx_onnx_error(node, "input %d (%s) must hold one value, it has %lld", i, node->inputs[i],
                          (long long)ot_numel(&t));
  *out = ot_elem_f64(&t, 0);
  return NULL;
}

rlx_expr_t* ot_scalar_expr(rlx_ctx_t* ctx, rlx_dtype_t t, double v) {
  if (rlx_dtype_is_float(t)) return rlx_ir_float(ctx, t, v);
  return rlx_ir_int(ctx, t, (int64_t)v);
}

/* The values of an ints attribute or of a constant int input, whichever the opset uses. */
static RLX_MUST_USE rlx_status_t* ints_input(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                int i, int64_t** out, int* out_n) {
  return rlx_onnx_const_ints(im, node, i, inputs[i], out, out_n);
}

static int64_t* ints_attr(rlx_ctx_t* ctx, const rlx_onnx_node_t* node, const char* key, int* out_n) {
  const int64_t* v = NULL;
  int n = rlx_onnx_attr_ints(node, key, &v);
  *out_n = n;
  return n < 0 ? NULL : ot_copy_ints(ctx, n, v);
}

/* ------------------------------------------------------------------ Reshape */
/* Replaces the -1 of dims by the extent it stands for when the symbolic factors cancel
 * ((N, 8) -> (N, -1) gives 8; (N, 12) -> (-1, 3, 4) gives N): the arithmetic simplifier does
 * not cancel N * 8 // N by itself. Leaves dims unchanged otherwise (relax.reshape infers it). */
static void infer_dim(rlx_ctx_t* ctx, int xn, rlx_expr_t* const* xs, int n, rlx_expr_t** dims) {
  int at = -1;
  int64_t cx = 1, co = 1, v;
  bool* used = RLX_NEW_ARRAY(ctx, bool, xn);
  for (int i = 0; i < n; i++) {
    if (rlx_expr_is_const_int(dims[i], &v)) {
      if (v == -1) at = i;
      else if (__builtin_mul_overflow(co, v, &co)) return; /* relax.reshape reports the mismatch */
      continue;
    }
    int k = 0; /* a symbolic dim must cancel against one of the input's */
    while (k < xn && (used[k] || !rlx_ir_prove_equal(ctx, xs[k], dims[i]))) k++;
    if (k == xn) return;
    used[k] = true;
  }
  if (at < 0) return;
  rlx_expr_t* rest = NULL;
  for (int k = 0; k < xn; k++) {
    if (used[k]) continue;
    if (rlx_expr_is_const_int(xs[k], &v)) {
      if (__builtin_mul_overflow(cx, v, &cx)) return;
    } else rest = rest ? rlx_ir_mul(ctx, rest, xs[k]) : xs[k];
  }
  if (co == 0 || cx % co != 0) return;
  rlx_expr_t* c = rlx_ir_i64(ctx, cx / co);
  dims[at] = rest ? rlx_topi_simplify_dim(ctx, rlx_ir_mul(ctx, rest, c)) : c;
}

static RLX_MUST_USE rlx_status_t* reshape_to(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                int n, const int64_t* shape, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  bool allowzero = rlx_onnx_attr_int(node, "allowzero", 0) != 0;
  rlx_expr_t** dims = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  int n_infer = 0;
  for (int i = 0; i < n; i++) {
    int64_t v = shape[i];
    if (v == 0 && !allowzero) {
      if (x->ndim < 0 || !x->shape) return rlx_onnx_error(node, "shape[%d] = 0 copies a dim of an input of unknown shape", i);
      if (i >= x->ndim)
        return rlx_onnx_error(node, "shape[%d] = 0 copies dim %d, but the input has rank %d", i, i, x->ndim);
      dims[i] = x->shape[i];
    } else if (v < -1) {
      return rlx_onnx_error(node, "shape[%d] = %lld is not a dim (>= -1)", i, (long long)v);
    } else {
      if (v == -1 && ++n_infer > 1) return rlx_onnx_error(node, "the shape holds more than one -1");
      dims[i] = rlx_ir_i64(ctx, v);
    }
  }
  if (n_infer && x->shape) infer_dim(ctx, x->ndim, x->shape, n, dims);
  return ot_reshape(im, inputs[0], n, dims, &outputs[0]);
}

static RLX_MUST_USE rlx_status_t* convert_reshape_v1(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                        rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = 0;
  int64_t* shape = ints_attr(rlx_onnx_ctx(im), node, "shape", &n);
  if (!shape) return rlx_onnx_error(node, "needs the shape attribute");
  return reshape_to(im, node, inputs, n, shape, outputs);
}

static RLX_MUST_USE rlx_status_t* convert_reshape(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                     rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = 0;
  int64_t* shape = NULL;
  if (!ot_has_input(node, inputs, 1)) return rlx_onnx_error(node, "input 1 (shape) is missing");
  rlx_onnx_tensor_t k;
  if (!rlx_onnx_const(im, inputs[1], &k)) return ot_reshape_runtime(im, node, inputs, outputs);
  RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &shape, &n));
  return reshape_to(im, node, inputs, n, shape, outputs);
}

/* ------------------------------------------------------------------ Flatten */
static RLX_MUST_USE rlx_status_t* convert_flatten(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                     rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  int64_t axis = rlx_onnx_attr_int(node, "axis", 1);
  if (axis < -x->ndim || axis > x->ndim)
    return rlx_onnx_error(node, "axis %lld is out of range for rank %d", (long long)axis, x->ndim);
  if (axis < 0) axis += x->ndim;
  rlx_expr_t* dims[2] = {ot_prod(ctx, (int)axis, x->shape), ot_prod(ctx, x->ndim - (int)axis, x->shape + axis)};
  return ot_reshape(im, inputs[0], 2, dims, &outputs[0]);
}

/* ------------------------------------------------------------------ Transpose */
static RLX_MUST_USE rlx_status_t* convert_transpose(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                       rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  int n = 0;
  int64_t* perm = ints_attr(ctx, node, "perm", &n);
  rlx_attrs_t attrs = {0};
  if (perm) {
    if (x->ndim >= 0 && n != x->ndim)
      return rlx_onnx_error(node, "perm has %d values for an input of rank %d", n, x->ndim);
    attrs = ot_attr(ctx, attrs, "axes", rlx_attr_ints(n, perm));
  }
  return ot_op(im, RLX_OP_PERMUTE_DIMS, 1, &inputs[0], attrs, &outputs[0]);
}

/* ------------------------------------------------------------------ Concat */
static RLX_MUST_USE rlx_status_t* concat_axis(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                 int64_t axis, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  if (node->n_inputs < 1) return rlx_onnx_error(node, "needs at least one input");
  for (int i = 0; i < node->n_inputs; i++) {
    rlx_sinfo_tensor_t* t;
    RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, i, false, &t));
  }
  if (node->n_inputs == 1) {
    outputs[0] = inputs[0];
    return NULL;
  }
  rlx_relax_expr_t* tup = rlx_relax_tuple(ctx, node->n_inputs, inputs);
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axis", rlx_attr_int(axis));
  return ot_op(im, RLX_OP_CONCAT, 1, &tup, attrs, &outputs[0]);
}

static RLX_MUST_USE rlx_status_t* convert_concat_v1(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                       rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  return concat_axis(im, node, inputs, rlx_onnx_attr_int(node, "axis", 1), outputs);
}

static RLX_MUST_USE rlx_status_t* convert_concat(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                    rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  if (!rlx_onnx_has_attr(node, "axis")) return rlx_onnx_error(node, "needs the axis attribute");
  return concat_axis(im, node, inputs, rlx_onnx_attr_int(node, "axis", 0), outputs);
}

/* ------------------------------------------------------------------ Split */
/* sizes: the split sizes (n_sizes >= 0), or NULL for equal parts (ceil-sized, the last
 * smaller: opset 18's num_outputs rule, exact for divisible extents). */
static RLX_MUST_USE rlx_status_t* split_into(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                const int64_t* sizes, int n_sizes, int64_t n_parts, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  if (x->ndim < 0) return rlx_onnx_error(node, "input 0 needs a known rank");
  int64_t axis;
  RLX_RETURN_IF_ERROR(ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis));
  rlx_attrs_t attrs = {0};
  int count;
  if (sizes) {
    if (n_sizes != node->n_outputs)
      return rlx_onnx_error(node, "split has %d sizes for %d outputs", n_sizes, node->n_outputs);
    int64_t total = 0, ext;
    int64_t* idx = RLX_NEW_ARRAY(ctx, int64_t, n_sizes);
    for (int i = 0; i < n_sizes; i++) {
      if (sizes[i] < 0) return rlx_onnx_error(node, "split size %lld is negative", (long long)sizes[i]);
      total += sizes[i];
      idx[i] = total;
    }
    if (x->shape && rlx_expr_is_const_int(x->shape[axis], &ext) && ext != total)
      return rlx_onnx_error(node, "split sizes add up to %lld, the axis has extent %lld", (long long)total,
                            (long long)ext);
    attrs = ot_attr(ctx, attrs, "indices_or_sections", rlx_attr_ints(n_sizes - 1, idx));
    count = n_sizes;
  } else {
    if (n_parts < 1) return rlx_onnx_error(node, "cannot split into %lld parts", (long long)n_parts);
    attrs = ot_attr(ctx, attrs, "indices_or_sections", rlx_attr_int(n_parts));
    count = (int)n_parts;
  }
  attrs = ot_attr(ctx, attrs, "axis", rlx_attr_int(axis));
  if (count != node->n_outputs)
    return rlx_onnx_error(node, "splits into %d parts but has %d outputs", count, node->n_outputs);
  rlx_onnx_tensor_t c;
  if (rlx_onnx_const(im, inputs[0], &c) && x->shape) {
    /* a constant input: one slice per part, each folded into a constant (a split call
     * gives a tuple, which does not fold) */
    int64_t ext;
    if (!rlx_expr_is_const_int(x->shape[axis], &ext)) return rlx_onnx_error(node, "needs a constant extent");
    int64_t begin = 0, chunk = sizes ? 0 : (ext + count - 1) / count;
    for (int k = 0; k < count; k++) {
      int64_t len = sizes ? sizes[k] : (k + 1 < count ? chunk : ext - chunk * (count - 1));
      if (len < 0) len = 0;
      int64_t end = begin + len;
      rlx_attrs_t sa = ot_attr(ctx, (rlx_attrs_t){0}, "axes", rlx_attr_ints(1, ot_copy_ints(ctx, 1, &axis)));
      sa = ot_attr(ctx, sa, "begin", rlx_attr_ints(1, ot_copy_ints(ctx, 1, &begin)));
      sa = ot_attr(ctx, sa, "end", rlx_attr_ints(1, ot_copy_ints(ctx, 1, &end)));
      RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_STRIDED_SLICE, 1, &inputs[0], sa, &outputs[k]));
      begin = end;
    }
    return NULL;
  }
  rlx_relax_expr_t* tup;
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_SPLIT, 1, &inputs[0], attrs, &tup));
  for (int k = 0; k < count; k++) {
    if (tup->kind == RLX_RELAX_TUPLE) {
      outputs[k] = ((rlx_relax_tuple_t*)tup)->fields[k];
      continue;
    }
    RLX_RETURN_IF_ERROR(rlx_onnx_emit(im, rlx_relax_tuple_get_item(ctx, tup, k), &outputs[k]));
  }
  return NULL;
}

/* True when input 1 (split) is given and arrives at run time; then *st is the result of
 * converting the split that way. */
static bool split_at_run_time(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              rlx_relax_expr_t** outputs, rlx_status_t** st) {
  rlx_onnx_tensor_t k;
  if (!ot_has_input(node, inputs, 1) || rlx_onnx_const(im, inputs[1], &k)) return false;
  rlx_sinfo_tensor_t* x;
  int64_t axis = 0;
  *st = ot_tensor(node, inputs, 0, true, &x);
  if (!*st) *st = ot_axis(node, "axis", rlx_onnx_attr_int(node, "axis", 0), x->ndim, &axis);
  if (!*st) *st = ot_split_runtime(im, node, inputs, axis, outputs);
  return true;
}

static RLX_MUST_USE rlx_status_t* convert_split_v1(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                      rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = -1;
  int64_t* sizes = NULL;
  rlx_status_t* st = NULL;
  if (split_at_run_time(im, node, inputs, outputs, &st)) return st;
  if (ot_has_input(node, inputs, 1))
    RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &sizes, &n));
  else
    sizes = ints_attr(rlx_onnx_ctx(im), node, "split", &n);
  return split_into(im, node, inputs, sizes, n, node->n_outputs, outputs);
}

static RLX_MUST_USE rlx_status_t* convert_split_v2(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                      rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = -1;
  int64_t* sizes = ints_attr(rlx_onnx_ctx(im), node, "split", &n);
  return split_into(im, node, inputs, sizes, n, node->n_outputs, outputs);
}

static RLX_MUST_USE rlx_status_t* convert_split_v13(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                       rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = -1;
  int64_t* sizes = NULL;
  rlx_status_t* st = NULL;
  if (split_at_run_time(im, node, inputs, outputs, &st)) return st;
  if (ot_has_input(node, inputs, 1)) RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &sizes, &n));
  int64_t parts = rlx_onnx_attr_int(node, "num_outputs", node->n_outputs);
  if (sizes && rlx_onnx_has_attr(node, "num_outputs"))
    return rlx_onnx_error(node, "takes either the split input or the num_outputs attribute, not both");
  return split_into(im, node, inputs, sizes, n, parts, outputs);
}

/* ------------------------------------------------------------------ Squeeze, Unsqueeze */
static RLX_MUST_USE rlx_status_t* squeeze_axes(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                  bool unsqueeze, int n, int64_t* axes, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  if (unsqueeze && !axes) return rlx_onnx_error(node, "needs axes");
  rlx_attrs_t attrs = {0};
  if (axes) attrs = ot_attr(ctx, attrs, "axis", rlx_attr_ints(n, axes));
  if (!unsqueeze && axes && n == 0) attrs = (rlx_attrs_t){0};
  return ot_op(im, unsqueeze ? RLX_OP_EXPAND_DIMS : RLX_OP_SQUEEZE, 1, &inputs[0], attrs, &outputs[0]);
}

static RLX_MUST_USE rlx_status_t* convert_squeeze_v1(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                        rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = -1;
  int64_t* axes = ints_attr(rlx_onnx_ctx(im), node, "axes", &n);
  return squeeze_axes(im, node, inputs, false, n, axes, outputs);
}

static RLX_MUST_USE rlx_status_t* convert_squeeze_v13(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                         rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = -1;
  int64_t* axes = NULL;
  rlx_onnx_tensor_t k;
  if (ot_has_input(node, inputs, 1) && !rlx_onnx_const(im, inputs[1], &k))
    return ot_squeeze_runtime(im, node, inputs, false, outputs);
  if (ot_has_input(node, inputs, 1)) RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &axes, &n));
  return squeeze_axes(im, node, inputs, false, n, axes, outputs);
}

static RLX_MUST_USE rlx_status_t* convert_unsqueeze_v1(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                          rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = -1;
  int64_t* axes = ints_attr(rlx_onnx_ctx(im), node, "axes", &n);
  return squeeze_axes(im, node, inputs, true, n, axes, outputs);
}

static RLX_MUST_USE rlx_status_t* convert_unsqueeze_v13(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                           rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = -1;
  int64_t* axes = NULL;
  if (!ot_has_input(node, inputs, 1)) return rlx_onnx_error(node, "input 1 (axes) is missing");
  rlx_onnx_tensor_t k;
  if (!rlx_onnx_const(im, inputs[1], &k)) return ot_squeeze_runtime(im, node, inputs, true, outputs);
  RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &axes, &n));
  return squeeze_axes(im, node, inputs, true, n, axes, outputs);
}

/* ------------------------------------------------------------------ Slice */
static RLX_MUST_USE rlx_status_t* slice_with(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                int n, int64_t* starts, int64_t* ends, int n_axes, int64_t* axes, int n_steps,
                                int64_t* steps, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  if (x->ndim < 0) return rlx_onnx_error(node, "input 0 needs a known rank");
  if (!ends) return rlx_onnx_error(node, "needs ends");
  if (!starts) return rlx_onnx_error(node, "needs starts");
  if (!axes) {
    axes = RLX_NEW_ARRAY(ctx, int64_t, n);
    for (int i = 0; i < n; i++) axes[i] = i;
    n_axes = n;
  }
  if (n_axes != n) return rlx_onnx_error(node, "starts/ends have %d values but axes has %d", n, n_axes);
  if (steps && n_steps != n) return rlx_onnx_error(node, "starts/ends have %d values but steps has %d", n, n_steps);
  bool* seen = RLX_NEW_ARRAY(ctx, bool, x->ndim);
  for (int i = 0; i < n; i++) {
    RLX_RETURN_IF_ERROR(ot_axis(node, "axis", axes[i], x->ndim, &axes[i]));
    if (seen[axes[i]]) return rlx_onnx_error(node, "axis %lld is repeated", (long long)axes[i]);
    seen[axes[i]] = true;
    if (steps && steps[i] == 0) return rlx_onnx_error(node, "step 0 on axis %lld", (long long)axes[i]);
  }
  if (n == 0) {
    outputs[0] = inputs[0];
    return NULL;
  }
  rlx_attrs_t attrs = {0};
  attrs = ot_attr(ctx, attrs, "axes", rlx_attr_ints(n, axes));
  attrs = ot_attr(ctx, attrs, "begin", rlx_attr_ints(n, starts));
  attrs = ot_attr(ctx, attrs, "end", rlx_attr_ints(n, ends));
  if (steps) attrs = ot_attr(ctx, attrs, "strides", rlx_attr_ints(n, steps));
  return ot_op(im, RLX_OP_STRIDED_SLICE, 1, &inputs[0], attrs, &outputs[0]);
}

static RLX_MUST_USE rlx_status_t* convert_slice_v1(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                      rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  int ns = -1, ne = -1, na = -1;
  int64_t* starts = ints_attr(ctx, node, "starts", &ns);
  int64_t* ends = ints_attr(ctx, node, "ends", &ne);
  int64_t* axes = ints_attr(ctx, node, "axes", &na);
  if (starts && ends && ns != ne) return rlx_onnx_error(node, "starts has %d values, ends %d", ns, ne);
  return slice_with(im, node, inputs, ns, starts, ends, na, axes, 0, NULL, outputs);
}

static RLX_MUST_USE rlx_status_t* convert_slice(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                   rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int ns = -1, ne = -1, na = -1, nst = -1;
  int64_t *starts = NULL, *ends = NULL, *axes = NULL, *steps = NULL;
  if (!ot_has_input(node, inputs, 1) || !ot_has_input(node, inputs, 2))
    return rlx_onnx_error(node, "needs the starts and ends inputs");
  rlx_onnx_tensor_t k;
  for (int i = 1; i <= 4; i++)
    if (ot_has_input(node, inputs, i) && !rlx_onnx_const(im, inputs[i], &k))
      return ot_slice_runtime(im, node, inputs, outputs);
  RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &starts, &ns));
  RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 2, &ends, &ne));
  if (ns != ne) return rlx_onnx_error(node, "starts has %d values, ends %d", ns, ne);
  if (ot_has_input(node, inputs, 3)) RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 3, &axes, &na));
  if (ot_has_input(node, inputs, 4)) RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 4, &steps, &nst));
  return slice_with(im, node, inputs, ns, starts, ends, na, axes, nst, steps, outputs);
}

/* ------------------------------------------------------------------ Expand, Tile */
static RLX_MUST_USE rlx_status_t* convert_expand(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                    rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  if (!ot_has_input(node, inputs, 1)) return rlx_onnx_error(node, "input 1 (shape) is missing");
  rlx_onnx_tensor_t k;
  if (!rlx_onnx_const(im, inputs[1], &k)) return ot_expand_runtime(im, node, inputs, outputs);
  int n = 0;
  int64_t* shape = NULL;
  RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &shape, &n));
  rlx_expr_t** dims = RLX_NEW_ARRAY(ctx, rlx_expr_t*, n);
  for (int i = 0; i < n; i++) {
    if (shape[i] < 0) return rlx_onnx_error(node, "shape[%d] = %lld is negative", i, (long long)shape[i]);
    dims[i] = rlx_ir_i64(ctx, shape[i]);
  }
  /* bidirectional: the result is the numpy broadcast of the input's shape and `shape` */
  int on = 0;
  rlx_expr_t** os = NULL;
  rlx_status_t* st = rlx_topi_broadcast_shape(ctx, "Expand", x->ndim, x->shape, n, dims, &on, &os);
  if (st) {
    rlx_status_t* e = rlx_onnx_error(node, "%s", rlx_status_message(st));
    rlx_status_free(st);
    return e;
  }
  rlx_relax_expr_t* args[2] = {inputs[0], rlx_relax_shape_expr(ctx, on, os)};
  return ot_op(im, RLX_OP_BROADCAST_TO, 2, args, (rlx_attrs_t){0}, &outputs[0]);
}

static RLX_MUST_USE rlx_status_t* convert_tile(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                  rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  if (!ot_has_input(node, inputs, 1)) return rlx_onnx_error(node, "input 1 (repeats) is missing");
  rlx_onnx_tensor_t k;
  if (!rlx_onnx_const(im, inputs[1], &k)) return ot_tile_runtime(im, node, inputs, outputs);
  int n = 0;
  int64_t* reps = NULL;
  RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &reps, &n));
  if (x->ndim >= 0 && n != x->ndim)
    return rlx_onnx_error(node, "repeats has %d values for an input of rank %d", n, x->ndim);
  for (int i = 0; i < n; i++)
    if (reps[i] < 0) return rlx_onnx_error(node, "repeats[%d] = %lld is negative", i, (long long)reps[i]);
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "repeats", rlx_attr_ints(n, reps));
  return ot_op(im, RLX_OP_TILE, 1, &inputs[0], attrs, &outputs[0]);
}

/* ------------------------------------------------------------------ Pad */
/* pads: ONNX layout (begins of the listed axes, then ends); axes NULL = every axis. Negative
 * pads crop: the positive part is padded, then the negative part sliced off. */
static RLX_MUST_USE rlx_status_t* pad_with(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                              int n_pads, const int64_t* pads, int n_axes, int64_t* axes, const char* mode,
                              double value, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, false, &x));
  if (x->ndim < 0) return rlx_onnx_error(node, "input 0 needs a known rank");
  int r = x->ndim;
  if (!axes) n_axes = r;
  if (n_pads != 2 * n_axes)
    return rlx_onnx_error(node, "pads has %d values; %d axes need %d", n_pads, n_axes, 2 * n_axes);
  if (strcmp(mode, "constant") != 0 && strcmp(mode, "reflect") != 0 && strcmp(mode, "edge") != 0)
    return rlx_onnx_error(node, "mode '%s' is not supported (constant, reflect, edge)", mode);
  int64_t* pw = RLX_NEW_ARRAY(ctx, int64_t, 2 * r);
  int64_t* crop_b = RLX_NEW_ARRAY(ctx, int64_t, r);
  int64_t* crop_e = RLX_NEW_ARRAY(ctx, int64_t, r);
  bool any_pad = false, any_crop = false;
  for (int i = 0; i < n_axes; i++) {
    int64_t a = i;
    if (axes) RLX_RETURN_IF_ERROR(ot_axis(node, "axis", axes[i], r, &a));
    int64_t b = pads[i], e = pads[i + n_axes];
    pw[2 * a] = b > 0 ? b : 0;
    pw[2 * a + 1] = e > 0 ? e : 0;
    crop_b[a] = b < 0 ? -b : 0;
    crop_e[a] = e < 0 ? -e : 0;
    any_pad = any_pad || b > 0 || e > 0;
    any_crop = any_crop || b < 0 || e < 0;
  }
  rlx_relax_expr_t* y = inputs[0];
  if (any_pad) {
    rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "pad_width", rlx_attr_ints(2 * r, pw));
    attrs = ot_attr(ctx, attrs, "pad_value", rlx_attr_float(value));
    attrs = ot_attr(ctx, attrs, "pad_mode", rlx_attr_str(mode));
    RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_PAD, 1, &y, attrs, &y));
  }
  if (any_crop) {
    if (!x->shape) return rlx_onnx_error(node, "negative pads need a known input shape");
    rlx_sinfo_tensor_t* ys = (rlx_sinfo_tensor_t*)y->sinfo;
    int64_t *ax = RLX_NEW_ARRAY(ctx, int64_t, r), *bg = RLX_NEW_ARRAY(ctx, int64_t, r),
            *en = RLX_NEW_ARRAY(ctx, int64_t, r);
    int k = 0;
    for (int d = 0; d < r; d++) {
      if (!crop_b[d] && !crop_e[d]) continue;
      int64_t ext;
      if (!ys || ys->hdr.kind != RLX_SINFO_TENSOR || !ys->shape || !rlx_expr_is_const_int(ys->shape[d], &ext))
        return rlx_onnx_error(node, "negative pads need a constant extent on axis %d", d);
      if (crop_b[d] + crop_e[d] > ext)
        return rlx_onnx_error(node, "pads remove %lld elements from axis %d of extent %lld",
                              (long long)(crop_b[d] + crop_e[d]), d, (long long)ext);
      ax[k] = d;
      bg[k] = crop_b[d];
      en[k] = ext - crop_e[d];
      k++;
    }
    rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axes", rlx_attr_ints(k, ax));
    attrs = ot_attr(ctx, attrs, "begin", rlx_attr_ints(k, bg));
    attrs = ot_attr(ctx, attrs, "end", rlx_attr_ints(k, en));
    RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_STRIDED_SLICE, 1, &y, attrs, &y));
  }
  outputs[0] = y;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* convert_pad_v1(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                    rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  /* opset 1 names the attribute "paddings", opset 2 "pads" */
  const char* key = rlx_onnx_has_attr(node, "pads") ? "pads" : "paddings";
  int n = -1;
  int64_t* pads = ints_attr(rlx_onnx_ctx(im), node, key, &n);
  if (!pads) return rlx_onnx_error(node, "needs the %s attribute", key);
  return pad_with(im, node, inputs, n, pads, -1, NULL, rlx_onnx_attr_string(node, "mode", "constant"),
                  rlx_onnx_attr_float(node, "value", 0.0), outputs);
}

static RLX_MUST_USE rlx_status_t* convert_pad_v11(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                     rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  int n = -1, na = -1;
  int64_t *pads = NULL, *axes = NULL;
  if (!ot_has_input(node, inputs, 1)) return rlx_onnx_error(node, "input 1 (pads) is missing");
  rlx_onnx_tensor_t k;
  for (int i = 1; i <= 3; i++)
    if (ot_has_input(node, inputs, i) && !rlx_onnx_const(im, inputs[i], &k))
      return ot_pad_runtime(im, node, inputs, outputs);
  RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 1, &pads, &n));
  double value = 0;
  if (ot_has_input(node, inputs, 2)) RLX_RETURN_IF_ERROR(ot_const_scalar(im, node, 2, inputs[2], &value));
  if (ot_has_input(node, inputs, 3)) RLX_RETURN_IF_ERROR(ints_input(im, node, inputs, 3, &axes, &na));
  return pad_with(im, node, inputs, n, pads, na, axes, rlx_onnx_attr_string(node, "mode", "constant"), value,
                  outputs);
}

/* ------------------------------------------------------------------ DepthToSpace, SpaceToDepth */
/* reshape(x, s1) → permute_dims(perm) → reshape(s2) */
static RLX_MUST_USE rlx_status_t* rearrange(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int n1, rlx_expr_t* const* s1,
                               const int64_t* perm, int n2, rlx_expr_t* const* s2, rlx_relax_expr_t** out) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_relax_expr_t* y;
  RLX_RETURN_IF_ERROR(ot_reshape(im, x, n1, s1, &y));
  rlx_attrs_t attrs = ot_attr(ctx, (rlx_attrs_t){0}, "axes", rlx_attr_ints(n1, ot_copy_ints(ctx, n1, perm)));
  RLX_RETURN_IF_ERROR(ot_op(im, RLX_OP_PERMUTE_DIMS, 1, &y, attrs, &y));
  return ot_reshape(im, y, n2, s2, out);
}

/* The 4-D input's dims and the block size; error unless `div` divides the dims listed. */
static RLX_MUST_USE rlx_status_t* block_dims(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                bool to_space, rlx_expr_t** d, int64_t* out_bs) {
  rlx_sinfo_tensor_t* x;
  RLX_RETURN_IF_ERROR(ot_tensor(node, inputs, 0, true, &x));
  if (x->ndim != 4) return rlx_onnx_error(node, "needs a 4-D (N, C, H, W) input, got rank %d", x->ndim);
  int64_t bs = rlx_onnx_attr_int(node, "blocksize", 0);
  if (bs < 1) return rlx_onnx_error(node, "blocksize must be >= 1, got %lld", (long long)bs);
  for (int i = 0; i < 4; i++) d[i] = x->shape[i];
  int64_t v;
  if (to_space && rlx_expr_is_const_int(d[1], &v) && v % (bs * bs) != 0)
    return rlx_onnx_error(node, "channels %lld are not divisible by blocksize^2 = %lld", (long long)v,
                          (long long)(bs * bs));
  for (int i = 2; !to_space && i < 4; i++)
    if (rlx_expr_is_const_int(d[i], &v) && v % bs != 0)
      return rlx_onnx_error(node, "extent %lld of axis %d is not divisible by blocksize %lld", (long long)v, i,
                            (long long)bs);
  *out_bs = bs;
  return NULL;
}

static RLX_MUST_USE rlx_status_t* convert_depth_to_space(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                            rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_expr_t* d[4];
  int64_t bs;
  RLX_RETURN_IF_ERROR(block_dims(im, node, inputs, true, d, &bs));
  const char* mode = rlx_onnx_attr_string(node, "mode", "DCR");
  bool crd = strcmp(mode, "CRD") == 0;
  if (!crd && strcmp(mode, "DCR") != 0) return rlx_onnx_error(node, "mode '%s' is not DCR or CRD", mode);
  rlx_expr_t* b = rlx_ir_i64(ctx, bs);
  rlx_expr_t* c = rlx_topi_simplify_dim(ctx, rlx_ir_floordiv(ctx, d[1], rlx_ir_i64(ctx, bs * bs)));
  rlx_expr_t* s1_dcr[6] = {d[0], b, b, c, d[2], d[3]};
  rlx_expr_t* s1_crd[6] = {d[0], c, b, b, d[2], d[3]};
  static const int64_t perm_dcr[6] = {0, 3, 4, 1, 5, 2};
  static const int64_t perm_crd[6] = {0, 1, 4, 2, 5, 3};
  rlx_expr_t* s2[4] = {d[0], c, rlx_topi_simplify_dim(ctx, rlx_ir_mul(ctx, d[2], b)),
                       rlx_topi_simplify_dim(ctx, rlx_ir_mul(ctx, d[3], b))};
  return rearrange(im, inputs[0], 6, crd ? s1_crd : s1_dcr, crd ? perm_crd : perm_dcr, 4, s2, &outputs[0]);
}

static RLX_MUST_USE rlx_status_t* convert_space_to_depth(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                            rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs) {
  rlx_ctx_t* ctx = rlx_onnx_ctx(im);
  rlx_expr_t* d[4];
  int64_t bs;
  RLX_RETURN_IF_ERROR(block_dims(im, node, inputs, false, d, &bs));
  rlx_expr_t* b = rlx_ir_i64(ctx, bs);
  rlx_expr_t* h = rlx_topi_simplify_dim(ctx, rlx_ir_floordiv(ctx, d[2], b));
  rlx_expr_t* w = rlx_topi_simplify_dim(ctx, rlx_ir_floordiv(ctx, d[3], b));
  rlx_expr_t* s1[6] = {d[0], d[1], h, b, w, b};
  static const int64_t perm[6] = {0, 3, 5, 1, 2, 4};
  rlx_expr_t* s2[4] = {d[0], rlx_topi_simplify_dim(ctx, rlx_ir_mul(ctx, d[1], rlx_ir_i64(ctx, bs * bs))), h, w};
  return rearrange(im, inputs[0], 6, s1, perm, 4, s2, &outputs[0]);
}

/* ------------------------------------------------------------------ the table */
const rlx_onnx_converter_t rlx_onnx_ops_tensor[] = {
    {"Reshape", 1, convert_reshape_v1},
    {"Reshape", 5, convert_reshape},
    {"Flatten", 1, convert_flatten},
    {"Transpose", 1, convert_transpose},
    {"Concat", 1, convert_concat_v1},
    {"Concat", 4, convert_concat},
    {"Split", 1, convert_split_v1},
    {"Split", 2, convert_split_v2},
    {"Split", 13, convert_split_v13},
    {"Squeeze", 1, convert_squeeze_v1},
    {"Squeeze", 13, convert_squeeze_v13},
    {"Unsqueeze", 1, convert_unsqueeze_v1},
    {"Unsqueeze", 13, convert_unsqueeze_v13},
    {"Slice", 1, convert_slice_v1},
    {"Slice", 10, convert_slice},
    {"Expand", 8, convert_expand},
    {"Tile", 6, convert_tile},
    {"Pad", 1, convert_pad_v1},
    {"Pad", 11, convert_pad_v11},
    {"NonMaxSuppression", 10, ot_non_max_suppression},
    {"Unique", 11, ot_unique},
    {"HannWindow", 17, ot_window},
    {"HammingWindow", 17, ot_window},
    {"BlackmanWindow", 17, ot_window},
    {"QuantizeLinear", 10, ot_quantize_linear},
    {"DequantizeLinear", 10, ot_dequantize_linear},
    {"DynamicQuantizeLinear", 11, ot_dynamic_quantize_linear},
    {"MatMulInteger", 10, ot_matmul_integer},
    {"QLinearMatMul", 10, ot_qlinear_matmul},
    {"ConvInteger", 10, ot_conv_integer},
    {"QLinearConv", 10, ot_qlinear_conv},
    {"DepthToSpace", 1, convert_depth_to_space},
    {"SpaceToDepth", 1, convert_space_to_depth},
    {"Gather", 1, ot_gather},
    {"GatherElements", 11, ot_gather_elements},
    {"GatherND", 11, ot_gather_nd},
    {"Scatter", 9, ot_scatter_elements},
    {"ScatterElements", 11, ot_scatter_elements},
    {"ScatterND", 11, ot_scatter_nd},
    {"OneHot", 9, ot_one_hot},
    {"Trilu", 14, ot_trilu},
    {"EyeLike", 9, ot_eye_like},
    {"Range", 11, ot_range},
    {"Size", 1, ot_size},
    {"ConstantOfShape", 9, ot_constant_of_shape},
    {"Compress", 9, ot_compress},
    {"NonZero", 9, ot_non_zero},
    {"TopK", 1, ot_top_k},
    {"ReverseSequence", 10, ot_reverse_sequence},
    {"Upsample", 7, ot_upsample},
    {"Resize", 10, ot_resize},
    {"GridSample", 16, ot_grid_sample},
    {NULL, 0, NULL},
};
