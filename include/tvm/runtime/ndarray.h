/* rlx's TVM-compatible tvm::runtime::NDArray, reduced to what a kernel receives: a
 * non-owning view of a DLTensor (the caller owns the memory) with TVM's accessors
 * (operator->, Shape(), DataType(), defined(), ToDLPack-free). Not TVM's header; written for
 * rlx with TVM's names. */
#ifndef TVM_RUNTIME_NDARRAY_H_
#define TVM_RUNTIME_NDARRAY_H_

#include <dlpack/dlpack.h>

#include <vector>

#include "data_type.h"
#include "logging.h"

namespace tvm {
namespace runtime {

using ShapeTuple = std::vector<int64_t>;

class NDArray {
 public:
  NDArray() : t_(nullptr) {}
  explicit NDArray(DLTensor* t) : t_(t) {}
  bool defined() const { return t_ != nullptr; }
  const DLTensor* operator->() const { return t_; }
  DLTensor* get_mutable() const { return t_; }
  ShapeTuple Shape() const { return ShapeTuple(t_->shape, t_->shape + t_->ndim); }
  runtime::DataType DataType() const { return runtime::DataType(t_->dtype); }
  bool IsContiguous() const {
    if (!t_->strides) return true;
    int64_t acc = 1;
    for (int d = t_->ndim - 1; d >= 0; d--) {
      if (t_->shape[d] != 1 && t_->strides[d] != acc) return false;
      acc *= t_->shape[d];
    }
    return true;
  }

 private:
  DLTensor* t_;
};

}  // namespace runtime
}  // namespace tvm

#endif
