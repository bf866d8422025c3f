/* Helpers shared by the "math" converter family (ops_math.c: elementwise, activations,
 * comparisons, Cast, Clip, variadic ops; ops_math_reduce.c: reductions, ArgMax/ArgMin,
 * Softmax/LogSoftmax/Hardmax, CumSum, Einsum). Private to those files; prefix om_. */
#ifndef RLX_FRONTEND_ONNX_OPS_MATH_INTERNAL_H
#define RLX_FRONTEND_ONNX_OPS_MATH_INTERNAL_H

#include "onnx_import.h"

/* The Tensor struct info of inputs[i], or an error naming the node and the input when the
 * input is missing or not a tensor of known rank and dtype. */
RLX_MUST_USE rlx_status_t* om_tensor(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i,
                                     rlx_sinfo_tensor_t** out);
/* Emits the registered Relax op name(args) with attrs through rlx_onnx_emit. */
RLX_MUST_USE rlx_status_t* om_op(rlx_onnx_importer_t* im, rlx_op_id_t name, int n, rlx_relax_expr_t* const* args,
                                 rlx_attrs_t attrs, rlx_relax_expr_t** out);
/* The same for one and two args without attrs. */
RLX_MUST_USE rlx_status_t* om_op1(rlx_onnx_importer_t* im, rlx_op_id_t name, rlx_relax_expr_t* a, rlx_relax_expr_t** out);
RLX_MUST_USE rlx_status_t* om_op2(rlx_onnx_importer_t* im, rlx_op_id_t name, rlx_relax_expr_t* a, rlx_relax_expr_t* b,
                                  rlx_relax_expr_t** out);
/* x cast to dtype (x itself when it already has it). */
RLX_MUST_USE rlx_status_t* om_astype(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, rlx_dtype_t dtype, rlx_relax_expr_t** out);
/* A rank-0 constant of dtype holding v (converted as C converts; float16/bfloat16 through a
 * float32 constant cast at import time). */
RLX_MUST_USE rlx_status_t* om_scalar(rlx_onnx_importer_t* im, rlx_dtype_t dtype, double v, rlx_relax_expr_t** out);
/* x reshaped to the given dims (int64 PrimExprs). */
RLX_MUST_USE rlx_status_t* om_reshape(rlx_onnx_importer_t* im, rlx_relax_expr_t* x, int ndim, rlx_expr_t* const* shape,
                                      rlx_relax_expr_t** out);
/* An attrs list with one or two entries (key NULL = absent). */
rlx_attrs_t om_attrs(rlx_ctx_t* ctx, const char* k1, rlx_attr_t v1, const char* k2, rlx_attr_t v2);
/* The axis normalized into [0, ndim) or an error naming the node. */
RLX_MUST_USE rlx_status_t* om_axis(const rlx_onnx_node_t* node, int64_t axis, int ndim, int64_t* out);

/* Converters of ops_math_reduce.c, listed in ops_math.c's table. */
#define OM_REDUCE_CONVERTERS(X)                                                                          \
  X(reduce) X(arg) X(softmax_legacy) X(softmax) X(cumsum) X(einsum)
#define X(n)                                                                                            \
  RLX_MUST_USE rlx_status_t* om_convert_##n(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,        \
                                            rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
OM_REDUCE_CONVERTERS(X)
#undef X

#endif
