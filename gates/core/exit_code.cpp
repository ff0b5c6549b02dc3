#include "core/exit_code.h"

namespace pg {

ExitCode ExitCodeFor(const Status& status) {
  if (status.ok()) return ExitCode::kPass;
  switch (status.kind()) {
    case ErrorKind::kInvalidInput:
      return ExitCode::kInvalidInput;
    case ErrorKind::kIo:
    case ErrorKind::kInternal:
      return ExitCode::kInternal;
  }
  return ExitCode::kInternal;
}

std::string_view ExitCodeName(ExitCode code) {
  switch (code) {
    case ExitCode::kPass: return "pass";
    case ExitCode::kGateFailed: return "fail";
    case ExitCode::kInvalidInput: return "invalid input";
    case ExitCode::kTimedOut: return "timeout";
    case ExitCode::kContended: return "contended";
    case ExitCode::kStale: return "stale";
    case ExitCode::kInternal: return "internal error";
    case ExitCode::kInterrupted: return "interrupted";
  }
  return "internal error";
}

}  // namespace pg
