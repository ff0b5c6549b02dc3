#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "anchors/anchors.h"
#include "cli/cli.h"
#include "core/exit_code.h"
#include "core/file_io.h"
#include "core/own_outputs.h"
#include "records/record.h"
#include "report/progress.h"
#include "runner/preflight.h"
#include "specs/spec_doc.h"

namespace pg::cli {

int RunRecordsCheck(const CommonFlags& common, std::vector<std::string> files) {
  std::string root = ProjectRoot(common);
  if (files.empty()) files = FilesIn(root, "records", ".json");
  if (files.empty()) return Fail(pg::Status::Invalid(root + "/records: no record files"));
  std::vector<pg::RecordResult> results;
  for (const std::string& file : files) {
    std::string path = std::filesystem::path(file).is_absolute() ? file : root + "/" + file;
    auto record = pg::LoadRecord(path);
    if (!record.ok()) return Fail(record.status().WithContext("records check"));
    record->path = file;
    results.push_back(pg::CheckRecord(*record, root));
  }
  std::cout << (common.json ? pg::RecordResultsJson(results) : pg::RecordResultsText(results));
  bool ok = std::all_of(results.begin(), results.end(), [](const pg::RecordResult& r) { return r.ok(); });
  return static_cast<int>(ok ? pg::ExitCode::kPass : pg::ExitCode::kGateFailed);
}

int RunAnchorsCheck(const CommonFlags& common, std::vector<std::string> docs, bool fix) {
  std::string root = ProjectRoot(common);
  if (docs.empty()) docs = pg::MarkdownFiles(root);
  std::vector<pg::AnchorResult> results;
  for (const std::string& doc : docs) {
    auto text = pg::ReadFile(std::filesystem::path(doc).is_absolute() ? doc : root + "/" + doc);
    if (!text.ok()) return Fail(text.status());
    for (const pg::Anchor& a : pg::ScanAnchors(doc, *text)) results.push_back(pg::CheckAnchor(a, root));
  }
  int stale = 0, gone = 0;
  for (const pg::AnchorResult& r : results) {
    if (r.state == pg::AnchorState::kHolds) {
      if (common.verbose) std::cout << r.Message() << "\n";
      continue;
    }
    std::cout << r.Message() << (fix && r.state == pg::AnchorState::kMoved ? " (fixed)" : "") << "\n";
    ++(r.state == pg::AnchorState::kMoved ? stale : gone);
  }
  if (fix) {
    auto fixed = pg::FixAnchors(results, root);
    if (!fixed.ok()) return Fail(fixed.status());
    stale = 0;
  }
  if (!common.quiet) std::cerr << "anchors: " << results.size() << " checked, " << stale + gone << " stale\n";
  return static_cast<int>(stale + gone == 0 ? pg::ExitCode::kPass : pg::ExitCode::kGateFailed);
}

// Each spec's `## Gates` commands become legs run by the preflight runner, one at a time (two
// specs' gates may share a build directory).
int RunSpecsCheck(const CommonFlags& common, std::vector<std::string> files) {
  std::string root = ProjectRoot(common);
  if (files.empty()) files = FilesIn(root, "specs", ".md");
  if (files.empty()) return Fail(pg::Status::Invalid(root + "/specs: no spec files"));
  std::vector<pg::SpecDoc> specs;
  for (const std::string& file : files) {
    auto text = pg::ReadFile(std::filesystem::path(file).is_absolute() ? file : root + "/" + file);
    if (!text.ok()) return Fail(text.status());
    auto spec = pg::ParseSpec(file, *text);
    if (!spec.ok()) return Fail(spec.status());
    specs.push_back(std::move(spec).value());
  }
  pg::ProgressPrinter progress(std::cerr, UseColor(common.color, STDERR_FILENO), common.verbose);
  pg::PreflightOptions options;
  options.root = root;
  options.suites = {"specs"};
  options.jobs = 1;
  options.cancel_fd = InstallCancelPipe();
  if (!common.quiet) options.on_change = [&](const pg::LegResult& leg, std::string_view state) { progress.OnChange(leg, state); };
  options.on_notice = [&](const std::string& text) { progress.Notice(text); };
  if (common.verbose) options.on_detail = options.on_notice;
  options.own_outputs = pg::OwnOutputFiles({common.junit, common.summary});
  auto report = pg::RunPreflightConfig(options, pg::SpecGatesConfig(specs));
  if (!report.ok()) return Fail(report.status());
  report->verb = "specs check";
  pg::Status written = WriteReports(*report, common);
  if (!written.ok()) return Fail(written);
  return static_cast<int>(report->exit_code);
}

}  // namespace pg::cli
