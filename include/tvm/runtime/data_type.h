/* rlx's TVM-compatible tvm::runtime::DataType: a DLDataType with TVM's constructors
 * (Int(bits), UInt(bits), Float(bits), Bool(), construction from DLDataType) and accessors
 * (code(), bits(), lanes(), is_float(), ...), == and !=, and printing as "float32". Not
 * TVM's header; written for rlx with TVM's names. */
#ifndef TVM_RUNTIME_DATA_TYPE_H_
#define TVM_RUNTIME_DATA_TYPE_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#include <ostream>
#include <string>

namespace tvm {
namespace runtime {

class DataType {
 public:
  enum TypeCode { kInt = kDLInt, kUInt = kDLUInt, kFloat = kDLFloat, kHandle = 3, kBFloat = kDLBfloat };
  DataType() { data_.code = kDLOpaqueHandle, data_.bits = 0, data_.lanes = 0; }
  explicit DataType(DLDataType dtype) : data_(dtype) {}
  DataType(int code, int bits, int lanes = 1) {
    data_.code = static_cast<uint8_t>(code);
    data_.bits = static_cast<uint8_t>(bits);
    data_.lanes = static_cast<uint16_t>(lanes);
  }
  int code() const { return static_cast<int>(data_.code); }
  int bits() const { return static_cast<int>(data_.bits); }
  int lanes() const { return static_cast<int>(data_.lanes); }
  int bytes() const { return (bits() + 7) / 8; }
  bool is_scalar() const { return lanes() == 1; }
  bool is_bool() const { return code() == kUInt && bits() == 1; }
  bool is_float() const { return code() == kFloat; }
  bool is_bfloat16() const { return code() == kBFloat && bits() == 16; }
  bool is_int() const { return code() == kInt; }
  bool is_uint() const { return code() == kUInt; }
  bool is_handle() const { return code() == kHandle; }
  bool is_vector() const { return lanes() > 1; }
  DataType with_lanes(int lanes) const { return DataType(code(), bits(), lanes); }
  DataType with_bits(int bits) const { return DataType(code(), bits, lanes()); }
  DataType element_of() const { return with_lanes(1); }
  bool operator==(const DataType& o) const {
    return data_.code == o.data_.code && data_.bits == o.data_.bits && data_.lanes == o.data_.lanes;
  }
  bool operator!=(const DataType& o) const { return !operator==(o); }
  operator DLDataType() const { return data_; }

  static DataType Int(int bits, int lanes = 1) { return DataType(kInt, bits, lanes); }
  static DataType UInt(int bits, int lanes = 1) { return DataType(kUInt, bits, lanes); }
  static DataType Float(int bits, int lanes = 1) { return DataType(kFloat, bits, lanes); }
  static DataType BFloat(int bits, int lanes = 1) { return DataType(kBFloat, bits, lanes); }
  static DataType Bool(int lanes = 1) { return DataType::UInt(1, lanes); }
  static DataType Handle(int bits = 64, int lanes = 1) { return DataType(kHandle, bits, lanes); }
  static DataType Void() { return DataType(kHandle, 0, 0); }

 private:
  DLDataType data_;
};

/* "float32", "int64", "bool", "float32x4". */
inline std::string DLDataType2String(DLDataType t) {
  if (t.bits == 0) return "void";
  if (t.code == kDLUInt && t.bits == 1 && t.lanes == 1) return "bool";
  const char* kind = t.code == kDLInt ? "int" : t.code == kDLUInt ? "uint" : t.code == kDLFloat ? "float"
                     : t.code == kDLBfloat ? "bfloat" : "handle";
  std::string s = std::string(kind) + std::to_string(static_cast<int>(t.bits));
  if (t.lanes > 1) s += "x" + std::to_string(static_cast<int>(t.lanes));
  return s;
}

inline std::ostream& operator<<(std::ostream& os, DLDataType t) { return os << DLDataType2String(t); }
inline std::ostream& operator<<(std::ostream& os, const DataType& t) {
  return os << DLDataType2String(static_cast<DLDataType>(t));
}

}  // namespace runtime
using runtime::DataType;
}  // namespace tvm

#endif
