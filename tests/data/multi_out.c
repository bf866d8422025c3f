/* A multi-output extern used with several dtypes: split_sign(x, pos, neg) writes
 * pos = max(x, 0) and neg = min(x, 0) for float32 and float64 tensors (one symbol). */
#include "rlx/extern.h"

static int split_sign_impl(DLTensor* x, DLTensor* pos, DLTensor* neg) {
  int64_t n = 1;
  for (int i = 0; i < x->ndim; i++) n *= x->shape[i];
  if (x->dtype.code == kDLFloat && x->dtype.bits == 32) {
    const float* a = x->data;
    float *p = pos->data, *q = neg->data;
    for (int64_t i = 0; i < n; i++) p[i] = a[i] > 0 ? a[i] : 0, q[i] = a[i] < 0 ? a[i] : 0;
    return 0;
  }
  if (x->dtype.code == kDLFloat && x->dtype.bits == 64) {
    const double* a = x->data;
    double *p = pos->data, *q = neg->data;
    for (int64_t i = 0; i < n; i++) p[i] = a[i] > 0 ? a[i] : 0, q[i] = a[i] < 0 ? a[i] : 0;
    return 0;
  }
  rlx_extern_set_error("split_sign: expected float32 or float64");
  return -1;
}
RLX_EXPORT_DPS_3(split_sign, split_sign_impl)
