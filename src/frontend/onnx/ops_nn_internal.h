/* Shared helpers of the ONNX "nn" converter family (ops_nn.c: table, helpers, Gemm, MatMul,
 * Conv, ConvTranspose; ops_nn_pool.c: pools, MaxUnpool; ops_nn_norm.c: normalizations and
 * LRN; ops_nn_roi.c: RoiAlign). */
#ifndef RLX_FRONTEND_ONNX_OPS_NN_INTERNAL_H
#define RLX_FRONTEND_ONNX_OPS_NN_INTERNAL_H

#include "onnx_import.h"

/* The most spatial dims handled (Conv, pools: 1-D to 3-D). */
#define NN_MAX_SP 3

/* Tensor struct info of input i of node (must be a tensor of known rank); error naming the
 * node and the input otherwise. */
RLX_MUST_USE rlx_status_t* nn_tensor(const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs, int i,
                                     rlx_sinfo_tensor_t** out);
/* Struct info of an already emitted expression (a tensor). */
rlx_sinfo_tensor_t* nn_sinfo(rlx_relax_expr_t* e);
/* An error with code RLX_UNSUPPORTED naming the node ("node 'p' (MaxPool): ..."). */
RLX_MUST_USE rlx_status_t* nn_unsupported(const rlx_onnx_node_t* node, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when output i is requested (present and named). */
bool nn_wants_output(const rlx_onnx_node_t* node, int i);
/* Emits op(args) with attrs through rlx_onnx_emit. */
RLX_MUST_USE rlx_status_t* nn_call(rlx_onnx_importer_t* im, rlx_op_id_t op, int n, rlx_relax_expr_t* const* args,
                                   rlx_attrs_t attrs, rlx_relax_expr_t** out);
/* A rank-0 constant of dtype with value v (float or integer dtypes). */
RLX_MUST_USE rlx_status_t* nn_scalar(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_dtype_t dtype, double v,
                                     rlx_relax_expr_t** out);
/* Reads an ints attribute of exactly n values into out (dflt for every value when absent);
 * error naming the node when the count differs. */
RLX_MUST_USE rlx_status_t* nn_attr_ints(const rlx_onnx_node_t* node, const char* key, int n, int64_t dflt, int64_t* out);
/* auto_pad SAME_UPPER / SAME_LOWER / VALID / NOTSET (or "" = NOTSET); error for others. */
typedef enum { NN_PAD_NOTSET, NN_PAD_VALID, NN_PAD_SAME_UPPER, NN_PAD_SAME_LOWER } nn_auto_pad_t;
RLX_MUST_USE rlx_status_t* nn_auto_pad(const rlx_onnx_node_t* node, nn_auto_pad_t* out);
/* Padding of a window op (Conv, pools) over nsp spatial dims into pads[2 * nsp] (all begins,
 * then all ends, as ONNX and Relax order them): from the pads attribute (NOTSET), zeros
 * (VALID), or computed for SAME_* from the input's constant spatial dims x (rank nsp + 2)
 * so that out = ceil(in / stride). */
RLX_MUST_USE rlx_status_t* nn_window_pads(const rlx_onnx_node_t* node, rlx_sinfo_tensor_t* x, int nsp,
                                          const int64_t* kernel, const int64_t* strides, const int64_t* dilations,
                                          int64_t* pads);
/* The op of nsp (1-3) spatial dims in the family whose 1-d op is op_1d (RLX_OP_CONV1D,
 * RLX_OP_MAX_POOL1D ...: op.def lists the 1d, 2d and 3d ops in a row). */
rlx_op_id_t nn_op_dims(rlx_op_id_t op_1d, int nsp);

/* Converters defined in ops_nn_pool.c, ops_nn_norm.c and ops_nn_roi.c. */
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_max_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_average_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                    rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_lp_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                               rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_global_average_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                           rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_global_max_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                       rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_global_lp_pool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                      rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_batch_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                  rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_instance_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                     rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_layer_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                  rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_group_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                  rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_max_unpool(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                  rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_mvn(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                           rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_lp_norm(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                               rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_roi_align(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node,
                                                 rlx_relax_expr_t* const* inputs, rlx_relax_expr_t** outputs);
RLX_MUST_USE rlx_status_t* rlx_onnx_nn_lrn(rlx_onnx_importer_t* im, const rlx_onnx_node_t* node, rlx_relax_expr_t* const* inputs,
                                           rlx_relax_expr_t** outputs);

#endif
