/* External kernels for the end-to-end tests, built as a separate shared library and given to
 * rlx with --lib. ext_relu is a DPS kernel (call_dps_packed) exported with extern.h's macro;
 * ext_scale2 is a plain packed function (call_packed) that returns a new tensor. */
#include "rlx/extern.h"
#include "rlx/runtime.h"

static int relu(DLTensor* a, DLTensor* out) {
  int64_t n = rlx_ndarray_numel(a);
  const float* x = (const float*)a->data;
  float* y = (float*)out->data;
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
  return 0;
}
RLX_EXPORT_DPS_2(ext_relu, relu)

RLX_DLL_EXPORT int ext_scale2(rlx_value_t* args, int* codes, int n, rlx_value_t* ret, int* ret_code, void* res) {
  (void)res;
  if (n != 1 || (codes[0] != RLX_ARG_DLTENSOR && codes[0] != RLX_ARG_NDARRAY)) {
    RLXAPISetLastError("ext_scale2: expects one tensor");
    return -1;
  }
  DLTensor* a = (DLTensor*)args[0].v_handle;
  rlx_ndarray_t* o = NULL;
  rlx_status_t* st = rlx_ndarray_create(a->ndim, a->shape, a->dtype, NULL, &o);
  if (st) {
    RLXAPISetLastError(rlx_status_message(st));
    rlx_status_free(st);
    return -1;
  }
  int64_t m = rlx_ndarray_numel(a);
  for (int64_t i = 0; i < m; i++) ((float*)o->dl.data)[i] = 2 * ((const float*)a->data)[i];
  ret->v_handle = o;
  *ret_code = RLX_ARG_NDARRAY;
  return 0;
}
