/* rlx's TVM-compatible logging and checks: LOG(FATAL), LOG(WARNING)/LOG(INFO), ICHECK(cond)
 * and ICHECK_EQ/NE/LT/LE/GT/GE(a, b), each taking `<< message`. A failed check or a
 * LOG(FATAL) throws tvm::Error; TVM_DLL_EXPORT_TYPED_FUNC (packed_func.h) catches it and
 * turns it into the kernel's error (TVMAPISetLastError, nonzero return), so a failed
 * check is a run error carrying the kernel's name, never an abort. Not TVM's header;
 * written for rlx with TVM's names. */
#ifndef TVM_RUNTIME_LOGGING_H_
#define TVM_RUNTIME_LOGGING_H_

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tvm {

/* What a failed check throws. */
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

namespace runtime {
using tvm::Error;
class InternalError : public Error {
 public:
  explicit InternalError(const std::string& msg) : Error(msg) {}
};

namespace detail {

/* Collects `<< message` and throws when destroyed (at the end of the statement). */
class LogFatal {
 public:
  LogFatal(const char* file, int line) : file_(file), line_(line) {}
  ~LogFatal() noexcept(false) {
    std::string where = std::string(" [") + file_ + ":" + std::to_string(line_) + "]";
    throw InternalError(stream_.str() + where);
  }
  std::ostringstream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
  const char* file_;
  int line_;
};

/* LOG(INFO) / LOG(WARNING): one line on stderr. */
class LogMessage {
 public:
  LogMessage(const char* level) { stream_ << "[" << level << "] "; }
  ~LogMessage() { std::cerr << stream_.str() << std::endl; }
  std::ostringstream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

/* Swallows a stream expression so that `cond ? (void)0 : Voidify() & stream` type-checks. */
class Voidify {
 public:
  void operator&(std::ostream&) {}
};

template <typename A, typename B>
inline std::string check_values(const A& a, const B& b) {
  std::ostringstream os;
  os << " (" << a << " vs. " << b << ")";
  return os.str();
}

}  // namespace detail
}  // namespace runtime
}  // namespace tvm

#define TVM_LOG_FATAL_ ::tvm::runtime::detail::LogFatal(__FILE__, __LINE__).stream()
#define TVM_LOG_ERROR_ ::tvm::runtime::detail::LogMessage("ERROR").stream()
#define TVM_LOG_WARNING_ ::tvm::runtime::detail::LogMessage("WARNING").stream()
#define TVM_LOG_INFO_ ::tvm::runtime::detail::LogMessage("INFO").stream()
#define TVM_LOG_DEBUG_ ::tvm::runtime::detail::LogMessage("DEBUG").stream()
#define LOG(level) TVM_LOG_##level##_

#define ICHECK(cond)                                       \
  (cond) ? (void)0                                         \
         : ::tvm::runtime::detail::Voidify() & TVM_LOG_FATAL_ \
                                                 << "Check failed: (" #cond ") is false: "
#define CHECK(cond) ICHECK(cond)

#define TVM_CHECK_OP_(a, b, op)                                                                        \
  ((a)op(b)) ? (void)0                                                                                 \
             : ::tvm::runtime::detail::Voidify() &                                                     \
                   TVM_LOG_FATAL_ << "Check failed: " #a " " #op " " #b                                \
                                  << ::tvm::runtime::detail::check_values((a), (b)) << ": "
#define ICHECK_EQ(a, b) TVM_CHECK_OP_(a, b, ==)
#define ICHECK_NE(a, b) TVM_CHECK_OP_(a, b, !=)
#define ICHECK_LT(a, b) TVM_CHECK_OP_(a, b, <)
#define ICHECK_LE(a, b) TVM_CHECK_OP_(a, b, <=)
#define ICHECK_GT(a, b) TVM_CHECK_OP_(a, b, >)
#define ICHECK_GE(a, b) TVM_CHECK_OP_(a, b, >=)
#define CHECK_EQ(a, b) ICHECK_EQ(a, b)
#define CHECK_NE(a, b) ICHECK_NE(a, b)
#define CHECK_LT(a, b) ICHECK_LT(a, b)
#define CHECK_LE(a, b) ICHECK_LE(a, b)
#define CHECK_GT(a, b) ICHECK_GT(a, b)
#define CHECK_GE(a, b) ICHECK_GE(a, b)

#endif
