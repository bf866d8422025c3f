// A CUDA source linked with --extern (compiled by nvcc): the DPS entry runs on the host, so the
// test needs nvcc but no GPU; a __global__ kernel is compiled alongside to make it real CUDA.
#include "rlx/extern.h"

__global__ void cu_negate_kernel(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = -x[i];
}

static int cu_negate_host(DLTensor* x, DLTensor* y) {
  int64_t n = 1;
  for (int i = 0; i < x->ndim; i++) n *= x->shape[i];
  for (int64_t i = 0; i < n; i++) static_cast<float*>(y->data)[i] = -static_cast<const float*>(x->data)[i];
  return 0;
}
RLX_EXPORT_DPS_2(cu_negate, cu_negate_host)
