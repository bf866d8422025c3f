/* The thread-local last error and calling packed functions. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "rlx/runtime.h"

static_assert(sizeof(rlx_value_t) == 8, "rlx_value_t must match TVMValue (8 bytes)");

/* The only per-thread state of the runtime. */
static _Thread_local char last_error[4096];

void RLXAPISetLastError(const char* msg) {
  if (!msg) msg = "";
  size_t n = strlen(msg);
  if (n >= sizeof(last_error)) n = sizeof(last_error) - 1;
  memcpy(last_error, msg, n);
  last_error[n] = 0;
}

void TVMAPISetLastError(const char* msg) { RLXAPISetLastError(msg); }

const char* rlx_last_error(void) { return last_error; }

RLX_MUST_USE rlx_status_t* rlx_packed_call(rlx_packed_fn_t fn, void* resource, rlx_value_t* args,
                                           int* codes, int n, rlx_value_t* ret, int* ret_code) {
  if (!fn) return rlx_status_create(RLX_INVALID_ARGUMENT, "packed call: function is NULL");
  if (n < 0 || (n > 0 && (!args || !codes)))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "packed call: bad argument list (n=%d)", n);
  /* Callees may write a return value even when the caller wants none. */
  rlx_value_t ret_dummy;
  int code_dummy = RLX_ARG_NULLPTR;
  if (!ret) ret = &ret_dummy;
  if (!ret_code) ret_code = &code_dummy;
  *ret_code = RLX_ARG_NULLPTR;
  last_error[0] = 0;
  int rc = fn(args, codes, n, ret, ret_code, resource);
  if (rc == 0) return NULL;
  if (last_error[0]) return rlx_status_create(RLX_INVALID_ARGUMENT, "%s", last_error);
  return rlx_status_create(RLX_INVALID_ARGUMENT,
                           "packed function returned %d without setting an error message", rc);
}

RLX_MUST_USE rlx_status_t* rlx_packed_call_tensors(rlx_packed_fn_t fn, void* resource,
                                                   DLTensor** tensors, int n) {
  if (n < 0 || (n > 0 && !tensors))
    return rlx_status_create(RLX_INVALID_ARGUMENT, "packed call: bad tensor list (n=%d)", n);
  rlx_value_t small_args[16];
  int small_codes[16];
  rlx_value_t* args = small_args;
  int* codes = small_codes;
  if (n > 16) {
    args = malloc(sizeof(*args) * (size_t)n);
    codes = malloc(sizeof(*codes) * (size_t)n);
    if (!args || !codes) {
      free(args);
      free(codes);
      return rlx_status_create(RLX_OUT_OF_MEMORY, "packed call with %d tensors", n);
    }
  }
  for (int i = 0; i < n; i++) {
    args[i].v_handle = tensors[i];
    codes[i] = RLX_ARG_DLTENSOR;
  }
  rlx_status_t* st = rlx_packed_call(fn, resource, args, codes, n, NULL, NULL);
  if (args != small_args) {
    free(args);
    free(codes);
  }
  return st;
}
