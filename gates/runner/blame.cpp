#include "gates/runner/blame.h"

#include "gates/core/file_io.h"
#include "gates/runner/log_scan.h"
#include "gates/runner/tree_checkout.h"

namespace pg {
namespace {

std::string LogOf(const LegResult& leg) {
  auto text = ReadFile(leg.log_path);
  return text.ok() ? *text : leg.output_tail;
}

std::string WithoutRoot(std::string line, const std::string& root) {
  for (size_t at = line.find(root); !root.empty() && at != std::string::npos;
       at = line.find(root, at))
    line.erase(at, root.size());
  return line;
}

std::string Joined(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

void Judge(LegResult& mine, const std::string& root, const LegResult* theirs,
           const std::string& base_root, const std::string& rev) {
  if (theirs && theirs->outcome == Outcome::kFail && SameFailure(mine, root, *theirs, base_root)) {
    std::set<std::string> cases = FailingCases(LogOf(mine));
    mine.outcome = Outcome::kInherited;
    mine.note = "inherited: fails the same way on " + rev +
                (cases.empty() ? "" : " (" + Joined(cases) + ")") + "; base log " +
                theirs->log_path;
    mine.base_log_path = theirs->log_path;
    return;
  }
  std::string why = !theirs                             ? "did not run there"
                    : theirs->outcome == Outcome::kPass ? "passes there"
                                                        : "fails differently there";
  mine.note +=
      (mine.note.empty() ? "" : "; ") + std::string("not inherited from ") + rev + ": " + why;
  if (theirs) mine.base_log_path = theirs->log_path;
}

}  // namespace

bool SameFailure(const LegResult& a, const std::string& root_a, const LegResult& b,
                 const std::string& root_b) {
  std::string log_a = LogOf(a), log_b = LogOf(b);
  std::set<std::string> cases_a = FailingCases(log_a), cases_b = FailingCases(log_b);
  if (!cases_a.empty() || !cases_b.empty()) return cases_a == cases_b;
  return a.exit_code == b.exit_code &&
         WithoutRoot(FirstError(log_a), root_a) == WithoutRoot(FirstError(log_b), root_b);
}

Status BlameBase(const PreflightOptions& options, const SuiteConfig& config, RunReport* report) {
  std::vector<std::string> failed;
  for (const LegResult& leg : report->legs) {
    if (leg.outcome == Outcome::kFail) failed.push_back(leg.name);
  }
  if (failed.empty()) return Status();
  PG_ASSIGN_OR_RETURN(std::string dir,
                      CheckoutTree(options.blame_repo.empty() ? options.root : options.blame_repo,
                                   options.blame_base));
  if (options.on_notice)
    options.on_notice("blame-base: running " + Joined({failed.begin(), failed.end()}) + " on " +
                      options.blame_base + " (" + dir + ")");
  SuiteConfig base_config = config;
  base_config.suites.push_back(Suite{"proofgate-blame-base", failed});
  PreflightOptions base = options;
  base.root = dir;
  base.suites = {"proofgate-blame-base"};
  base.blame_base.clear();
  base.blame_repo.clear();
  base.log_dir.clear();
  base.on_change = nullptr;
  PG_ASSIGN_OR_RETURN(RunReport on_base, RunPreflightConfig(base, base_config));
  report->interrupted = report->interrupted || on_base.interrupted;
  for (LegResult& leg : report->legs) {
    if (leg.outcome != Outcome::kFail) continue;
    const LegResult* theirs = nullptr;
    for (const LegResult& b : on_base.legs) theirs = b.name == leg.name ? &b : theirs;
    Judge(leg, options.root, theirs, dir, options.blame_base);
  }
  return Status();
}

}  // namespace pg
