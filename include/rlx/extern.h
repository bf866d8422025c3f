/* rlx — writing external C kernels that rlx models call.
 *
 * A destination-passing kernel is a plain C function over tensors, inputs first and
 * outputs last, returning 0 on success:
 *
 *     #include "rlx/extern.h"
 *     static int my_add(DLTensor* a, DLTensor* b, DLTensor* out) { ... return 0; }
 *     RLX_EXPORT_DPS_3(my_add_packed, my_add)
 *
 * RLX_EXPORT_DPS_<n>(name, impl), n = 1..6, defines an exported packed function `name` (the ABI of
 * abi.h, which is TVM's C backend ABI) that checks it got exactly n tensor arguments
 * (type code RLX_ARG_DLTENSOR, or RLX_ARG_NDARRAY whose handle is also a DLTensor*) and
 * calls impl. On a mismatch it sets the last error and returns -1 without calling impl.
 * When impl fails it should call rlx_extern_set_error(msg) before returning nonzero.
 *
 * Self-contained: this header and abi.h need only <dlpack/dlpack.h>; no libc and no rlx
 * library at compile time. The error setter is resolved when the kernel is loaded into a
 * process that has librlx_runtime (weak reference: without it errors are just not
 * reported).
 */
#ifndef RLX_EXTERN_H
#define RLX_EXTERN_H

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Provided by librlx_runtime; weak so that a kernel library loads even without it. */
extern void RLXAPISetLastError(const char* msg) __attribute__((weak));

/* Sets the error message rlx reports for a failing kernel. */
static inline void rlx_extern_set_error(const char* msg) {
  if (RLXAPISetLastError) RLXAPISetLastError(msg);
}

/* Appends s to buf[*len] (capacity 256), staying NUL-terminated. */
static inline void rlx_extern_append_(char* buf, int* len, const char* s) {
  while (*s && *len < 255) buf[(*len)++] = *s++;
  buf[*len] = 0;
}

static inline void rlx_extern_append_int_(char* buf, int* len, int v) {
  char digits[12];
  int n = 0;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  do digits[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
  if (v < 0) digits[n++] = '-';
  char rev[13];
  for (int i = 0; i < n; i++) rev[i] = digits[n - 1 - i];
  rev[n] = 0;
  rlx_extern_append_(buf, len, rev);
}

/* Checks that the call has exactly `want` tensor arguments and stores them in out.
 * Returns 0, or -1 after setting an error that names the function. */
static inline int rlx_extern_unpack_tensors_(const char* fname, rlx_value_t* args,
                                             int* codes, int nargs, int want, DLTensor** out) {
  char msg[256];
  int len = 0;
  msg[0] = 0;
  rlx_extern_append_(msg, &len, fname);
  if (nargs != want) {
    rlx_extern_append_(msg, &len, ": expected ");
    rlx_extern_append_int_(msg, &len, want);
    rlx_extern_append_(msg, &len, " tensor arguments, got ");
    rlx_extern_append_int_(msg, &len, nargs);
    rlx_extern_set_error(msg);
    return -1;
  }
  for (int i = 0; i < want; i++) {
    int code = codes[i];
    if ((code != RLX_ARG_DLTENSOR && code != RLX_ARG_NDARRAY) || !args[i].v_handle) {
      rlx_extern_append_(msg, &len, ": argument ");
      rlx_extern_append_int_(msg, &len, i);
      rlx_extern_append_(msg, &len, code == RLX_ARG_DLTENSOR || code == RLX_ARG_NDARRAY
                                        ? " is a NULL tensor"
                                        : " is not a tensor (type code ");
      if (code != RLX_ARG_DLTENSOR && code != RLX_ARG_NDARRAY) {
        rlx_extern_append_int_(msg, &len, code);
        rlx_extern_append_(msg, &len, ")");
      }
      rlx_extern_set_error(msg);
      return -1;
    }
    /* An NDArray handle points at an rlx_ndarray_t, whose first member is its DLTensor. */
    out[i] = (DLTensor*)args[i].v_handle;
  }
  return 0;
}

#ifdef __cplusplus
#define RLX_EXTERN_C_ extern "C"
#else
#define RLX_EXTERN_C_
#endif

/* Defines the exported packed function `name` that unpacks n tensors into t_[0..n-1]
 * and returns `call` (an expression over t_). */
#define RLX_EXPORT_DPS_(name, n, call)                                                  \
  RLX_EXTERN_C_ RLX_DLL_EXPORT int name(rlx_value_t* args, int* codes, int nargs,      \
                                        rlx_value_t* ret, int* ret_code, void* res);   \
  RLX_EXTERN_C_ RLX_DLL_EXPORT int name(rlx_value_t* args, int* codes, int nargs,      \
                                        rlx_value_t* ret, int* ret_code, void* res) {  \
    DLTensor* t_[n];                                                                    \
    (void)ret;                                                                          \
    (void)res;                                                                          \
    if (ret_code) *ret_code = RLX_ARG_NULLPTR;                                          \
    if (rlx_extern_unpack_tensors_(#name, args, codes, nargs, n, t_) != 0) return -1;   \
    return call;                                                                        \
  }

#define RLX_EXPORT_DPS_1(name, impl) RLX_EXPORT_DPS_(name, 1, impl(t_[0]))
#define RLX_EXPORT_DPS_2(name, impl) RLX_EXPORT_DPS_(name, 2, impl(t_[0], t_[1]))
#define RLX_EXPORT_DPS_3(name, impl) RLX_EXPORT_DPS_(name, 3, impl(t_[0], t_[1], t_[2]))
#define RLX_EXPORT_DPS_4(name, impl) \
  RLX_EXPORT_DPS_(name, 4, impl(t_[0], t_[1], t_[2], t_[3]))
#define RLX_EXPORT_DPS_5(name, impl) \
  RLX_EXPORT_DPS_(name, 5, impl(t_[0], t_[1], t_[2], t_[3], t_[4]))
#define RLX_EXPORT_DPS_6(name, impl) \
  RLX_EXPORT_DPS_(name, 6, impl(t_[0], t_[1], t_[2], t_[3], t_[4], t_[5]))

#ifdef __cplusplus
}
#endif
#endif
