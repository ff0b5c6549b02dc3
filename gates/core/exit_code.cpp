#include "gates/core/exit_code.h"

#include <algorithm>

namespace pg {

const std::array<ExitCodeMeaning, 8> kExitCodes = {{
    {ExitCode::kPass,
     "every leg passed (or was a cached pass); every mutant, gate or record as claimed"},
    {ExitCode::kGateFailed,
     "a gate failed: a leg failed, could not start, or was skipped because a need failed; "
     "a mutant not as claimed; a check that proved nothing"},
    {ExitCode::kInvalidInput,
     "usage or invalid input: bad flag, unknown suite, malformed `suites.json` "
     "(`file:line:col:` message)"},
    {ExitCode::kTimedOut, "a leg or a mutant's tests timed out (and none failed)"},
    {ExitCode::kContended, "contended: the machine never got quiet enough to confirm a timing leg"},
    {ExitCode::kStale, "stale: the working tree changed while the suite ran"},
    {ExitCode::kInternal, "internal error"},
    {ExitCode::kInterrupted,
     "interrupted (Ctrl-C / SIGTERM): every leg's process group was stopped"},
}};

bool IsFailure(ResultClass c) { return c != ResultClass::kPass; }

ExitCode ExitCodeOf(ResultClass c) {
  switch (c) {
    case ResultClass::kPass:
      return ExitCode::kPass;
    case ResultClass::kStale:
      return ExitCode::kStale;
    case ResultClass::kUnproven:
      return ExitCode::kGateFailed;
    case ResultClass::kContended:
      return ExitCode::kContended;
    case ResultClass::kTimeout:
      return ExitCode::kTimedOut;
    case ResultClass::kFail:
      return ExitCode::kGateFailed;
  }
  return ExitCode::kInternal;
}

ExitCode RunExitCode(std::span<const ResultClass> results, bool interrupted) {
  if (interrupted) return ExitCode::kInterrupted;
  if (results.empty()) return ExitCode::kPass;
  return ExitCodeOf(*std::max_element(results.begin(), results.end()));
}

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
    case ExitCode::kPass:
      return "pass";
    case ExitCode::kGateFailed:
      return "fail";
    case ExitCode::kInvalidInput:
      return "invalid input";
    case ExitCode::kTimedOut:
      return "timeout";
    case ExitCode::kContended:
      return "contended";
    case ExitCode::kStale:
      return "stale";
    case ExitCode::kInternal:
      return "internal error";
    case ExitCode::kInterrupted:
      return "interrupted";
  }
  return "internal error";
}

}  // namespace pg
