/* rlx's TVM-compatible packed functions: TVM_DLL_EXPORT_TYPED_FUNC(symbol, function) exports
 * `function` under `symbol` with the packed ABI (TVM's C backend ABI, rlx/abi.h), so kernels
 * written for TVM's C++ runtime compile and link into rlx models unchanged.
 *
 * The function may take DLTensor*, tvm::runtime::NDArray, int, int64_t, int32_t, bool, float,
 * double and tvm::runtime::DataType arguments, and return void, an integer, bool, float or
 * double (the value becomes the packed return value, as in TVM). The wrapper checks the
 * argument count and type codes, and catches every exception — a failed ICHECK, LOG(FATAL),
 * anything thrown — turning it into the kernel's error: TVMAPISetLastError("<symbol>:
 * <message>") and a nonzero return. Nothing aborts the process.
 *
 * Not TVM's header; written for rlx with TVM's names.
 */
#ifndef TVM_RUNTIME_PACKED_FUNC_H_
#define TVM_RUNTIME_PACKED_FUNC_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#include <exception>
#include <string>
#include <type_traits>
#include <utility>

#include "c_runtime_api.h"
#include "data_type.h"
#include "logging.h"
#include "ndarray.h"

namespace tvm {
namespace runtime {
namespace detail {

inline const char* type_code_name(int code) {
  switch (code) {
    case kDLInt: return "int";
    case kDLUInt: return "uint";
    case kDLFloat: return "float";
    case kTVMOpaqueHandle: return "handle";
    case kTVMNullptr: return "nullptr";
    case kTVMDataType: return "DataType";
    case kDLDevice: return "Device";
    case kTVMDLTensorHandle: return "DLTensor*";
    case kTVMNDArrayHandle: return "NDArray";
    case kTVMStr: return "str";
    default: return "object";
  }
}

[[noreturn]] inline void arg_error(int i, const char* want, int code) {
  throw Error("argument " + std::to_string(i) + ": expected " + want + ", got " + type_code_name(code));
}

/* Converts packed argument i to T. */
template <typename T, typename Enable = void>
struct ArgConv;

template <>
struct ArgConv<DLTensor*> {
  static DLTensor* get(TVMValue v, int code, int i) {
    if (code != kTVMDLTensorHandle && code != kTVMNDArrayHandle) arg_error(i, "a tensor", code);
    if (!v.v_handle) throw Error("argument " + std::to_string(i) + ": NULL tensor");
    return static_cast<DLTensor*>(v.v_handle);
  }
};
template <>
struct ArgConv<NDArray> {
  static NDArray get(TVMValue v, int code, int i) { return NDArray(ArgConv<DLTensor*>::get(v, code, i)); }
};
template <typename T>
struct ArgConv<T, typename std::enable_if<std::is_integral<T>::value>::type> {
  static T get(TVMValue v, int code, int i) {
    if (code != kDLInt && code != kDLUInt) arg_error(i, "an integer", code);
    return static_cast<T>(v.v_int64);
  }
};
template <typename T>
struct ArgConv<T, typename std::enable_if<std::is_floating_point<T>::value>::type> {
  static T get(TVMValue v, int code, int i) {
    if (code == kDLFloat) return static_cast<T>(v.v_float64);
    if (code == kDLInt || code == kDLUInt) return static_cast<T>(v.v_int64);
    arg_error(i, "a float", code);
  }
};
template <>
struct ArgConv<DataType> {
  static DataType get(TVMValue v, int code, int i) {
    if (code != kTVMDataType) arg_error(i, "a DataType", code);
    return DataType(v.v_type);
  }
};

template <typename T>
using arg_t = typename std::decay<T>::type;

/* Stores a return value. */
template <typename R, typename Enable = void>
struct RetConv;
template <typename R>
struct RetConv<R, typename std::enable_if<std::is_integral<R>::value>::type> {
  static void set(R r, TVMValue* out, int* code) {
    if (out) out->v_int64 = static_cast<int64_t>(r);
    if (code) *code = kDLInt;
  }
};
template <typename R>
struct RetConv<R, typename std::enable_if<std::is_floating_point<R>::value>::type> {
  static void set(R r, TVMValue* out, int* code) {
    if (out) out->v_float64 = static_cast<double>(r);
    if (code) *code = kDLFloat;
  }
};

template <typename R, typename... Args, size_t... I>
inline void invoke(R (*f)(Args...), TVMValue* args, int* codes, TVMValue* ret, int* ret_code,
                   std::index_sequence<I...>) {
  if constexpr (std::is_void<R>::value) {
    f(ArgConv<arg_t<Args>>::get(args[I], codes[I], static_cast<int>(I))...);
    if (ret_code) *ret_code = kTVMNullptr;
  } else {
    R r = f(ArgConv<arg_t<Args>>::get(args[I], codes[I], static_cast<int>(I))...);
    RetConv<R>::set(r, ret, ret_code);
  }
}

inline void set_error(const char* name, const char* what) {
  std::string msg = std::string(name) + ": " + what;
  if (TVMAPISetLastError) TVMAPISetLastError(msg.c_str());
}

/* The packed entry of a typed function: count check, conversion, exceptions → error. */
template <typename R, typename... Args>
inline int call_typed(const char* name, R (*f)(Args...), TVMValue* args, int* codes, int nargs, TVMValue* ret,
                      int* ret_code) {
  try {
    if (nargs != static_cast<int>(sizeof...(Args)))
      throw Error("expected " + std::to_string(sizeof...(Args)) + " arguments, got " + std::to_string(nargs));
    invoke(f, args, codes, ret, ret_code, std::index_sequence_for<Args...>{});
    return 0;
  } catch (const std::exception& e) {
    set_error(name, e.what());
  } catch (...) {
    set_error(name, "unknown C++ exception");
  }
  return -1;
}

}  // namespace detail
}  // namespace runtime
}  // namespace tvm

/* Exports `Function` (a function, or a lambda without captures) as the packed function
 * `ExportName` with C linkage. */
#define TVM_DLL_EXPORT_TYPED_FUNC(ExportName, Function)                                                    \
  extern "C" TVM_DLL int ExportName(TVMValue* args, int* type_code, int num_args, TVMValue* out_value,    \
                                    int* out_type_code, void* resource_handle) {                          \
    (void)resource_handle;                                                                                \
    return ::tvm::runtime::detail::call_typed(#ExportName, +(Function), args, type_code, num_args,        \
                                              out_value, out_type_code);                                  \
  }

#endif
