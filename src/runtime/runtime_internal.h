/* Helpers shared by the files of src/runtime; not part of the public API. */
#ifndef RLX_RUNTIME_INTERNAL_H
#define RLX_RUNTIME_INTERNAL_H

#include "rlx/runtime.h"

/* Checks a shape and dtype (ndim >= 0, dims >= 0, bits and lanes nonzero) and computes
 * the byte size of a compact tensor, failing with INVALID_ARGUMENT on overflow. `what`
 * names the tensor in messages. */
RLX_MUST_USE rlx_status_t* rlx_tensor_check_shape(const char* what, int ndim, const int64_t* shape,
                                                  DLDataType dtype, size_t* out_nbytes);

/* True when t is laid out compact row-major (strides NULL, or equal to the row-major
 * strides; dims of extent 1 may carry any stride). */
bool rlx_tensor_is_compact(const DLTensor* t);

#endif
