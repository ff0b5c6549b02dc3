#include "gates/runner/leg_result.h"

namespace pg {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kFail:
      return "fail";
    case Outcome::kTimeout:
      return "timeout";
    case Outcome::kContended:
      return "contended";
    case Outcome::kSkipped:
      return "skipped";
    case Outcome::kError:
      return "error";
    case Outcome::kInherited:
      return "inherited";
  }
  return "error";
}

std::string TreeChangesText(const std::vector<TreeChange>& changes, size_t most) {
  std::string out;
  for (size_t i = 0; i < changes.size() && i < most; ++i) {
    out += (out.empty() ? "" : ", ") + changes[i].path + " " + changes[i].change;
  }
  if (changes.size() > most) out += " and " + std::to_string(changes.size() - most) + " more";
  return out;
}

int RunReport::Count(Outcome outcome) const {
  int n = 0;
  for (const LegResult& leg : legs) n += leg.outcome == outcome;
  return n;
}

ResultClass ClassOf(Outcome outcome, bool allow_inherited) {
  switch (outcome) {
    case Outcome::kPass:
      return ResultClass::kPass;
    case Outcome::kFail:
    case Outcome::kError:
      return ResultClass::kFail;
    case Outcome::kInherited:
      return allow_inherited ? ResultClass::kPass : ResultClass::kFail;
    case Outcome::kTimeout:
      return ResultClass::kTimeout;
    case Outcome::kContended:
      return ResultClass::kContended;
    case Outcome::kSkipped:
      return ResultClass::kUnproven;
  }
  return ResultClass::kFail;
}

ExitCode VerdictOf(const RunReport& report) {
  std::vector<ResultClass> results;
  for (const LegResult& leg : report.legs) {
    if (!leg.no_files) results.push_back(ClassOf(leg.outcome, report.allow_inherited));
  }
  if (report.tree_hash != report.tree_hash_after || report.index_changed)
    results.push_back(ResultClass::kStale);
  return RunExitCode(results, report.interrupted);
}

}  // namespace pg
