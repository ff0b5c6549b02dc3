// `proofgate specs check [SPEC...]`: every spec's sections, and its ## Gates commands run verbatim.
#include <unistd.h>

#include <iostream>

#include "gates/cli/cli.h"
#include "gates/core/exit_code.h"
#include "gates/core/file_io.h"
#include "gates/core/own_outputs.h"
#include "gates/report/progress.h"
#include "gates/runner/preflight.h"
#include "gates/specs/spec_doc.h"

namespace pg::cli {

// Each spec's `## Gates` commands become legs run by the preflight runner, one at a time (two
// specs' gates may share a build directory).
int RunSpecsCheck(const CommonFlags& common, std::vector<std::string> files) {
  std::string root = ProjectRoot(common);
  auto inputs = CheckInputs(root, std::move(files), "specs", ".md", "spec files");
  if (!inputs.ok()) return Fail(inputs.status());
  std::vector<pg::SpecDoc> specs;
  for (const Input& input : *inputs) {
    auto text = pg::ReadFile(input.path);
    if (!text.ok()) return Fail(text.status());
    auto spec = pg::ParseSpec(input.name, *text);
    if (!spec.ok()) return Fail(spec.status());
    specs.push_back(std::move(spec).value());
  }
  pg::ProgressPrinter progress(std::cerr, UseColor(common.color, STDERR_FILENO), common.verbose,
                               LiveFd(common));
  pg::PreflightOptions options;
  options.root = root;
  options.suites = {"specs"};
  options.jobs = 1;
  options.cancel_fd = InstallCancelPipe();
  if (!common.quiet)
    options.on_change = [&](const pg::LegResult& leg, std::string_view state) {
      progress.OnChange(leg, state);
    };
  options.on_notice = [&](const std::string& text) { progress.Notice(text); };
  if (common.verbose) options.on_detail = options.on_notice;
  options.own_outputs = pg::OwnOutputFiles(ReportFiles(common));
  if (!common.quiet)
    options.on_plan = [&](const std::vector<pg::PlannedLeg>& legs, int jobs) {
      progress.OnPlan(legs, jobs);
    };
  auto report = pg::RunPreflightConfig(options, pg::SpecGatesConfig(specs));
  progress.Close();
  if (!report.ok()) return Fail(report.status());
  report->verb = "specs check";
  pg::Status written = WriteReports(*report, common);
  if (!written.ok()) return Fail(written);
  return static_cast<int>(report->exit_code);
}

}  // namespace pg::cli
