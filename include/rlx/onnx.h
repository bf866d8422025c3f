/* rlx — public ONNX frontend API (C11): importing an ONNX model into a Relax module and
 * reading / writing ONNX TensorProto files (.pb, as in the ONNX test data).
 *
 * Ownership as in rlx.h: the module lives in ctx; NDArrays are refcounted (runtime.h).
 * Fallible calls return rlx_status_t* (NULL = success).
 */
#ifndef RLX_ONNX_H
#define RLX_ONNX_H

#include <stddef.h>

#include "rlx/rlx.h"
#include "rlx/runtime.h"
#include "rlx/vm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads and imports an ONNX file into a module with one Relax function "main" (params: the
 * graph inputs that are not initializers, in order; result: the graph outputs, a tuple when
 * there are several). Errors name the file; unsupported ops are all listed with node name and
 * op type. */
RLX_MUST_USE rlx_status_t* rlx_onnx_import_file(rlx_ctx_t* ctx, const char* path, rlx_module_t** out);
/* The same from n bytes in memory; name is used in error messages. */
RLX_MUST_USE rlx_status_t* rlx_onnx_import_bytes(rlx_ctx_t* ctx, const void* data, size_t n, const char* name, rlx_module_t** out);

/* Reads a serialized TensorProto (raw_data or typed fields; every dtype of the test suite
 * that rlx supports) into a new NDArray (the caller releases it). Errors name the file. */
RLX_MUST_USE rlx_status_t* rlx_onnx_tensor_load(const char* path, rlx_ndarray_t** out);
/* Writes t as a serialized TensorProto (raw_data), name optional. */
RLX_MUST_USE rlx_status_t* rlx_onnx_tensor_save(const char* path, const DLTensor* t, const char* name);

/* Reads a value file of the declared type `type` ("tensor", "seq(T)", "opt(T)": the texts
 * rlx_onnx_import_options_t reports for graph inputs and outputs): a TensorProto, a
 * SequenceProto (a TUPLE value of its elements) or an OptionalProto (its value, or NONE when
 * empty), as the argument trees rlx_vm_invoke_values takes. The caller clears *out with
 * rlx_vm_value_clear. Errors name the file. */
RLX_MUST_USE rlx_status_t* rlx_onnx_value_load(const char* path, const char* type, rlx_vm_value_t* out);
/* The same from n bytes in memory; name is used in error messages. */
RLX_MUST_USE rlx_status_t* rlx_onnx_value_load_bytes(const void* data, size_t n, const char* type, const char* name,
                                                     rlx_vm_value_t* out);
/* Writes v (a result tree of rlx_vm_invoke_values) as the message its declared type calls for
 * (TensorProto, SequenceProto or OptionalProto). */
RLX_MUST_USE rlx_status_t* rlx_onnx_value_save(const char* path, const char* type, const rlx_vm_value_t* v);

/* Import options: graph inputs bound to values, which become constants instead of params
 * (so values needed at import time, such as Reshape's shape or ReduceSum's axes fed as graph
 * inputs in the ONNX test data, are known). A bound value must have the input's declared
 * dtype and rank (and its constant dims); a name that is not a graph input is an error. */
typedef struct {
  int n_bind;
  const char* const* bind_names;
  const DLTensor* const* bind_values; /* CPU, compact; copied */
  /* When set, receive the graph output names in order (arena array) and their count. */
  const char*** out_output_names;
  int* out_n_outputs;
  /* When set, receive the declared types of main's params (the graph inputs not bound, in
   * order) and of the graph outputs (arena arrays of *out_n_params / *out_n_outputs texts
   * "tensor", "seq(T)", "opt(T)"), which rlx_onnx_value_load / _save take. */
  const char*** out_param_types;
  int* out_n_params;
  const char*** out_output_types;
} rlx_onnx_import_options_t;
/* rlx_onnx_import_file with options (opts NULL = none). */
RLX_MUST_USE rlx_status_t* rlx_onnx_import_file_ex(rlx_ctx_t* ctx, const char* path, const rlx_onnx_import_options_t* opts,
                                                   rlx_module_t** out);

#ifdef __cplusplus
}
#endif
#endif
