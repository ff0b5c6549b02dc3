// vt's error values. Engine code never aborts the host process: a missing kernel, a bad
// GGUF file or an unsupported dtype comes back as a Status naming what and where.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace vt {

enum class StatusCode {
  kOk,
  kInvalidArgument,  // the caller's shapes, dtypes or flags are wrong
  kUnimplemented,    // e.g. "no kernel for op Matmul on device xpu"
  kOutOfRange,       // offsets and sizes past the end (GGUF)
  kDataLoss,         // a file is truncated or corrupt
  kUnavailable,      // the device or driver is not there
  kInternal,         // a bug of ours
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "UNIMPLEMENTED: no kernel for op Matmul on device xpu"
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  StatusOr(Status status) : value_(std::move(status)) {}   // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? Status() : std::get<Status>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T& value() & { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> value_;
};

}  // namespace vt

#define VT_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::vt::Status vt_status_ = (expr);        \
    if (!vt_status_.ok()) return vt_status_; \
  } while (false)

// lhs = the value of `expr` (a StatusOr), or return its status from the enclosing function.
#define VT_STATUS_CONCAT_(a, b) a##b
#define VT_STATUS_CONCAT(a, b) VT_STATUS_CONCAT_(a, b)
#define VT_ASSIGN_OR_RETURN(lhs, expr) VT_ASSIGN_OR_RETURN_(VT_STATUS_CONCAT(vt_or_, __LINE__), lhs, expr)
#define VT_ASSIGN_OR_RETURN_(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
