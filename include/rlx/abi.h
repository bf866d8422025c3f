/* rlx — the packed-function ABI, shared by the runtime (runtime.h), external kernels
 * (extern.h) and generated code.
 *
 * Binary-compatible with TVM's C backend ABI: rlx_value_t has the layout of TVMValue, the
 * type codes have TVM's numbers, and a packed function has the signature of
 * TVMBackendPackedCFunc. A kernel compiled for one links against the other unchanged.
 *
 * This header depends on <dlpack/dlpack.h> and <stdint.h> only, so that code compiled
 * outside rlx (extern kernels, generated C) can include it alone.
 */
#ifndef RLX_ABI_H
#define RLX_ABI_H

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One argument or return value; which member is live is told by its type code. */
typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
} rlx_value_t;

/* Type codes of rlx_value_t, numbered as TVM's (kDLInt .. kTVMNDArrayHandle). */
typedef enum {
  RLX_ARG_INT = 0,            /* v_int64 (kDLInt) */
  RLX_ARG_UINT = 1,           /* v_int64 (kDLUInt) */
  RLX_ARG_FLOAT = 2,          /* v_float64 (kDLFloat) */
  RLX_ARG_OPAQUE_HANDLE = 3,  /* v_handle, meaning agreed by caller and callee */
  RLX_ARG_NULLPTR = 4,        /* no value */
  RLX_ARG_DATATYPE = 5,       /* v_type */
  RLX_ARG_DEVICE = 6,         /* v_device */
  RLX_ARG_DLTENSOR = 7,       /* v_handle is a DLTensor* */
  RLX_ARG_OBJECT = 8,         /* v_handle is a runtime object */
  RLX_ARG_MODULE = 9,         /* v_handle is a module */
  RLX_ARG_PACKED_FUNC = 10,   /* v_handle is a packed function */
  RLX_ARG_STR = 11,           /* v_str, NUL-terminated */
  RLX_ARG_BYTES = 12,         /* v_handle points to a byte array */
  RLX_ARG_NDARRAY = 13        /* v_handle is an rlx_ndarray_t*, which is also a DLTensor* */
} rlx_arg_code_t;

/* A packed function: reads `nargs` arguments from args/type_codes, may write one return
 * value to out_ret/out_ret_code, and returns 0 on success. On failure it returns nonzero
 * after setting a message with RLXAPISetLastError (or TVMAPISetLastError).
 * resource_handle is the pointer registered alongside the function (NULL for symbols
 * loaded from a library). */
typedef int (*rlx_packed_fn_t)(rlx_value_t* args, int* type_codes, int nargs,
                               rlx_value_t* out_ret, int* out_ret_code, void* resource_handle);

/* Symbols exported by a kernel library must be visible from outside the shared object. */
#if defined(_WIN32)
#define RLX_DLL_EXPORT __declspec(dllexport)
#else
#define RLX_DLL_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
}
#endif
#endif
