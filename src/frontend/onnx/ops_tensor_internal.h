/* Shared helpers of the ONNX "tensor" converter family (ops_tensor*.c); prefix ot_.
 *
 * Files: ops_tensor.c (the table; Reshape, Flatten, Transpose, Concat, Split, Squeeze,
 * Unsqueeze, Slice, Expand, Tile, Pad, DepthToSpace, SpaceToDepth), ops_tensor_index.c
 * (Gather*, Scatter*, OneHot, Trilu, EyeLike, Range, Size, ConstantOfShape, Compress,
 * NonZero, TopK, ReverseSequence), ops_tensor_resize.c (Resize, Upsample, GridSample),
 * ops_tensor_dyn.c (the run-time paths: shape-deciding inputs that are not constants),
 * ops_tensor_quant.c (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger,
 * QLinearMatMul, ConvInteger, QLinearConv).
 */
#ifndef RLX_FRONTEND_ONNX_OPS_TENSOR_INTERNAL_H
#define RLX_FRONTEND_ONNX_OPS_TENSOR_INTERNAL_H

#include "onnx_import.h"

/* The tensor struct info of input i; error naming the node when the input is missing or not
 * a tensor. need_shape: also require a known rank and shape. */
RLX_MUST_USE rlx_status_t* ot_tensor(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i,
                                     bool need_shape, rlx_sinfo_tensor_t** out);
/* True when input i is given (not omitted). */
bool ot_has_input(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i);
/* axis normalized into [0, rank) (negative counts from the end); error naming the node. */
RLX_MUST_USE rlx_status_t* ot_axis(const rlx_onnx_node_t* node, const char* what, int64_t axis, int rank, int64_t* out);
/* Emits the registered Relax op name(args) with attrs (folded when constant). */
RLX_MUST_USE rlx_status_t* ot_op(rlx_onnx_importer_t* im, rlx_op_id_t name, int n_args, rlx_relax_expr_t* const* args,
                                 rlx_attrs_t attrs, rlx_relax_expr_t** out);
/* attrs with key set (building helper). */
rlx_attrs_t ot_attr(rlx_ctx_t* ctx, rlx_attrs_t attrs, const char* key, rlx_attr_t v);
/* R.shape([...]) from int64 values / from PrimExprs. */
rlx_relax_expr_t* ot_shape_ints(rlx_ctx_t* ctx, int n, const int64_t* v);
/* R.reshape(x, R.shape(dims)) emitted. */
RLX_MUST_USE rlx_status_t* ot_reshape(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int n, rlx_expr_t* const* dims,
                                      rlx_relax_expr_t** out);
/* A copy of ints in the arena. */
int64_t* ot_copy_ints(rlx_ctx_t* ctx, int n, const int64_t* v);
/* Product of dims as a simplified int64 PrimExpr. */
rlx_expr_t* ot_prod(rlx_ctx_t* ctx, int n, rlx_expr_t* const* dims);

/* A constant scalar input (one element, any numeric dtype) as double; error naming the node
 * when it is not a constant or not a single element. */
RLX_MUST_USE rlx_status_t* ot_const_scalar(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, int i,
                                           rlx_relax_expr_t* e, double* out);
/* Element k of a host tensor as double / as int64 (any numeric dtype; bool as 0/1). */
double ot_elem_f64(const rlx_onnx_tensor_t* t, int64_t k);
int64_t ot_elem_i64(const rlx_onnx_tensor_t* t, int64_t k);
int64_t ot_numel(const rlx_onnx_tensor_t* t);
/* A PrimExpr constant of dtype t holding v (int or float). */
rlx_expr_t* ot_scalar_expr(rlx_ctx_t* ctx, rlx_dtype_t t, double v);


#define OT_CONVERTER(fn)                                                                                    \
  RLX_MUST_USE rlx_status_t* fn(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, \
                                rlx_relax_expr_t** outputs)

/* Run-time paths (ops_tensor_dyn.c), taken by the converters when a shape-deciding input
 * is not a constant. ConstantOfShape: fill is the 0-d fill constant; Compress: data is x
 * (flattened when there is no axis) and axis the axis of data. */
RLX_MUST_USE rlx_status_t* ot_constant_of_shape_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                        rlx_relax_expr_t* const* inputs, rlx_relax_expr_t* fill,
                                                        rlx_relax_expr_t** out);
RLX_MUST_USE rlx_status_t* ot_compress_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                               rlx_relax_expr_t* const* inputs, rlx_relax_expr_t* data, int64_t axis,
                                               rlx_relax_expr_t** out);
OT_CONVERTER(ot_reshape_runtime);
OT_CONVERTER(ot_expand_runtime);
OT_CONVERTER(ot_non_zero_runtime);
OT_CONVERTER(ot_slice_runtime);
OT_CONVERTER(ot_non_max_suppression);
OT_CONVERTER(ot_unique);
OT_CONVERTER(ot_window);
OT_CONVERTER(ot_quantize_linear);
OT_CONVERTER(ot_dequantize_linear);
OT_CONVERTER(ot_dynamic_quantize_linear);
OT_CONVERTER(ot_matmul_integer);
OT_CONVERTER(ot_qlinear_matmul);
OT_CONVERTER(ot_conv_integer);
OT_CONVERTER(ot_qlinear_conv);
OT_CONVERTER(ot_pad_runtime);
RLX_MUST_USE rlx_status_t* ot_split_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                            rlx_relax_expr_t* const* inputs, int64_t axis, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* ot_squeeze_runtime(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                              rlx_relax_expr_t* const* inputs, bool unsqueeze,
                                              rlx_relax_expr_t** outputs);
OT_CONVERTER(ot_range_runtime);
OT_CONVERTER(ot_one_hot_runtime);
OT_CONVERTER(ot_tile_runtime);

/* Converters defined outside ops_tensor.c (listed in its table). */
OT_CONVERTER(ot_gather);
OT_CONVERTER(ot_gather_elements);
OT_CONVERTER(ot_gather_nd);
OT_CONVERTER(ot_scatter_elements);
OT_CONVERTER(ot_scatter_nd);
OT_CONVERTER(ot_one_hot);
OT_CONVERTER(ot_trilu);
OT_CONVERTER(ot_eye_like);
OT_CONVERTER(ot_range);
OT_CONVERTER(ot_size);
OT_CONVERTER(ot_constant_of_shape);
OT_CONVERTER(ot_compress);
OT_CONVERTER(ot_non_zero);
OT_CONVERTER(ot_top_k);
OT_CONVERTER(ot_reverse_sequence);
OT_CONVERTER(ot_resize);
OT_CONVERTER(ot_upsample);
OT_CONVERTER(ot_grid_sample);

#endif
