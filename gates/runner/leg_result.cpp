#include "runner/leg_result.h"

namespace pg {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kTimeout: return "timeout";
    case Outcome::kContended: return "contended";
    case Outcome::kSkipped: return "skipped";
    case Outcome::kError: return "error";
    case Outcome::kInherited: return "inherited";
  }
  return "error";
}

int RunReport::Count(Outcome outcome) const {
  int n = 0;
  for (const LegResult& leg : legs) n += leg.outcome == outcome;
  return n;
}

ExitCode VerdictOf(const RunReport& report) {
  if (report.interrupted) return ExitCode::kInterrupted;
  int inherited = report.allow_inherited ? 0 : report.Count(Outcome::kInherited);
  if (report.Count(Outcome::kFail) + report.Count(Outcome::kError) + inherited > 0) return ExitCode::kGateFailed;
  if (report.Count(Outcome::kTimeout) > 0) return ExitCode::kTimedOut;
  if (report.Count(Outcome::kContended) > 0) return ExitCode::kContended;
  // Skips follow from one of the above; standing alone they still mean "not proven".
  if (report.Count(Outcome::kSkipped) > 0) return ExitCode::kGateFailed;
  if (report.tree_hash != report.tree_hash_after) return ExitCode::kStale;
  return ExitCode::kPass;
}

}  // namespace pg
