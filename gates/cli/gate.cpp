// `proofgate gate --onto REF`: the suites on the merged tree that would land, noted in git.
#include <unistd.h>

#include <iostream>

#include "gates/cli/cli.h"
#include "gates/core/exit_code.h"
#include "gates/merge/merge_gate.h"
#include "gates/report/progress.h"

namespace pg::cli {

int RunGate(const CommonFlags& common, const GateFlags& flags) {
  std::string root = ProjectRoot(common);
  if (!flags.verify.empty()) {
    auto v = pg::VerifyGate(root, flags.verify);
    if (!v.ok()) return Fail(v.status());
    (v->result == pg::ResultClass::kPass ? std::cout : std::cerr) << "gate: " << v->message << "\n";
    const pg::ResultClass results[] = {v->result};
    return static_cast<int>(pg::RunExitCode(results));
  }
  pg::ProgressPrinter progress(std::cerr, UseColor(common.color, STDERR_FILENO), common.verbose,
                               LiveFd(common));
  pg::PreflightOptions options;
  options.root = root;
  options.suites = flags.suites;
  options.jobs = flags.jobs;
  options.blame_base = flags.blame ? flags.onto : "";
  options.allow_inherited = flags.allow_inherited;
  options.cancel_fd = InstallCancelPipe();
  if (!common.quiet)
    options.on_change = [&](const pg::LegResult& leg, std::string_view state) {
      progress.OnChange(leg, state);
    };
  options.on_notice = [&](const std::string& text) { progress.Notice(text); };
  if (!common.quiet)
    options.on_plan = [&](const std::vector<pg::PlannedLeg>& legs, int jobs) {
      progress.OnPlan(legs, jobs);
    };
  auto result = pg::GateOnto(flags.onto, options);
  progress.Close();
  if (!result.ok()) return Fail(result.status());
  if (!result->conflicts.empty()) {
    for (const std::string& path : result->conflicts)
      std::cerr << "gate: conflict: " << path << "\n";
    std::cerr << "gate: HEAD does not merge into " << flags.onto << " cleanly: nothing ran\n";
    const pg::ResultClass results[] = {pg::ResultClass::kUnproven};
    return static_cast<int>(pg::RunExitCode(results));
  }
  result->report.verb = "gate";
  pg::Status written = WriteReports(result->report, common);
  if (!written.ok()) return Fail(written);
  std::cerr << "gate: merged tree " << result->merged_tree.substr(0, 12) << " (HEAD "
            << result->head.substr(0, 12) << " onto " << flags.onto << " at "
            << result->base.substr(0, 12) << "): " << pg::ExitCodeName(result->report.exit_code)
            << ", noted under " << pg::kNotesRef << "\n";
  return static_cast<int>(result->report.exit_code);
}

}  // namespace pg::cli
