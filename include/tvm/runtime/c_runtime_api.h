/* rlx's TVM-compatible C runtime API: the subset of TVM's tvm/runtime/c_runtime_api.h that
 * kernels written for TVM use — the value union, the type codes and the packed-function
 * signature (the ABI of rlx/abi.h, which is TVM's C backend ABI), and the error setter
 * librlx_runtime provides. Not TVM's header; written for rlx so TVM kernels compile as they
 * are. */
#ifndef TVM_RUNTIME_C_RUNTIME_API_H_
#define TVM_RUNTIME_C_RUNTIME_API_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#include "rlx/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TVM_DLL
#define TVM_DLL RLX_DLL_EXPORT
#endif

typedef rlx_value_t TVMValue;
typedef DLTensor* TVMArrayHandle;

/* TVM's type codes beyond DLPack's kDLInt / kDLUInt / kDLFloat (same numbers as rlx's). */
typedef enum {
  kTVMOpaqueHandle = 3,
  kTVMNullptr = 4,
  kTVMDataType = 5,
  kDLDevice = 6,
  kTVMDLTensorHandle = 7,
  kTVMObjectHandle = 8,
  kTVMModuleHandle = 9,
  kTVMPackedFuncHandle = 10,
  kTVMStr = 11,
  kTVMBytes = 12,
  kTVMNDArrayHandle = 13
} TVMArgTypeCode;

typedef int (*TVMBackendPackedCFunc)(TVMValue* args, int* type_codes, int num_args, TVMValue* out_ret_value,
                                     int* out_ret_tcode, void* resource_handle);

/* Provided by librlx_runtime when the kernel runs inside rlx; weak so that an object built
 * with these headers also links where it is absent. */
void TVMAPISetLastError(const char* msg) __attribute__((weak));

#ifdef __cplusplus
}
#endif
#endif
