// Status / StatusOr: proofgate's error values. Library code returns these instead of
// throwing or exiting; only main.cpp turns them into an exit code.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace pg {

enum class ErrorKind {
  kInvalidInput,  // the user's file or flag is wrong: exit 2
  kIo,            // the OS refused (open, spawn, read): exit 70 unless a caller knows better
  kInternal,      // a bug of ours: exit 70
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Error(ErrorKind kind, std::string message) {
    return Status(kind, std::move(message));
  }
  static Status Invalid(std::string message) {
    return Error(ErrorKind::kInvalidInput, std::move(message));
  }
  static Status Io(std::string message) { return Error(ErrorKind::kIo, std::move(message)); }
  static Status Internal(std::string message) {
    return Error(ErrorKind::kInternal, std::move(message));
  }

  bool ok() const { return !kind_.has_value(); }
  ErrorKind kind() const { return kind_.value_or(ErrorKind::kInternal); }
  const std::string& message() const { return message_; }

  // Prefixes the message with where it happened ("suites.json:3:5: ...").
  Status WithContext(const std::string& context) const;

 private:
  Status(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  std::optional<ErrorKind> kind_;
  std::string message_;
};

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  StatusOr(Status status) : value_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? Status() : std::get<Status>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T& value() & { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  T value_or(T otherwise) const& { return ok() ? value() : std::move(otherwise); }

 private:
  std::variant<T, Status> value_;
};

}  // namespace pg

#define PG_CONCAT_INNER(a, b) a##b
#define PG_CONCAT(a, b) PG_CONCAT_INNER(a, b)

#define PG_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::pg::Status pg_status_ = (expr);        \
    if (!pg_status_.ok()) return pg_status_; \
  } while (false)

#define PG_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#define PG_ASSIGN_OR_RETURN(lhs, expr) \
  PG_ASSIGN_OR_RETURN_IMPL(PG_CONCAT(pg_statusor_, __LINE__), lhs, expr)
