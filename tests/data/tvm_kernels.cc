// External kernels written exactly as a TVM user writes them against TVM's C++ runtime
// headers; rlx compiles and links them with --extern (as this .cc, or as a .o built with
// `rlx config --cflags`).
#include <dlpack/dlpack.h>
#include <tvm/runtime/data_type.h>
#include <tvm/runtime/logging.h>
#include <tvm/runtime/ndarray.h>
#include <tvm/runtime/packed_func.h>

namespace {

// out = a + b over 0-d float32 tensors.
void scalar_add(DLTensor* a, DLTensor* b, DLTensor* out) {
  using tvm::runtime::DataType;
  ICHECK(a->ndim == 0) << "a must be a scalar";
  ICHECK_EQ(b->ndim, 0);
  ICHECK(DataType(a->dtype) == DataType::Float(32)) << "a must be float32";
  ICHECK(DataType(out->dtype) == DataType::Float(32));
  static_cast<float*>(out->data)[0] = static_cast<float*>(a->data)[0] + static_cast<float*>(b->data)[0];
}

// out[..] = x[..] * 2 + 1 for a 3-d or 4-d float32 tensor of any shape; checks that out has
// x's shape, that the first dimension is at most 16 and the last at most 64 (to exercise
// failing checks).
void shape_check_affine(DLTensor* x, DLTensor* out) {
  ICHECK(x->ndim == 3 || x->ndim == 4) << "expected a 3-d or 4-d tensor, got ndim " << x->ndim;
  ICHECK_EQ(x->ndim, out->ndim);
  ICHECK_LE(x->shape[0], 16) << "batch too large";
  int64_t n = 1;
  for (int i = 0; i < x->ndim; ++i) {
    ICHECK_EQ(x->shape[i], out->shape[i]) << "dimension " << i << " differs";
    n *= x->shape[i];
  }
  if (x->shape[x->ndim - 1] > 64) LOG(FATAL) << "last dimension " << x->shape[x->ndim - 1] << " exceeds 64";
  tvm::runtime::DataType t(x->dtype);
  ICHECK(t.code() == kDLFloat && t.bits() == 32) << "expected float32, got " << t;
  const float* src = static_cast<const float*>(x->data);
  float* dst = static_cast<float*>(out->data);
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] * 2.0f + 1.0f;
}

}  // namespace

TVM_DLL_EXPORT_TYPED_FUNC(tvm_scalar_add, scalar_add);
TVM_DLL_EXPORT_TYPED_FUNC(tvm_shape_check, shape_check_affine);
