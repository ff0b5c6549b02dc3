// `proofgate preflight [SUITE...]`: the named suites of preflight/suites.json, and --list.
#include "gates/runner/preflight.h"

#include <poll.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "gates/cli/cli.h"
#include "gates/config/suite_config.h"
#include "gates/contention/load_meter.h"
#include "gates/contention/snapshot.h"
#include "gates/core/exit_code.h"
#include "gates/core/file_io.h"
#include "gates/core/own_outputs.h"
#include "gates/report/progress.h"
#include "gates/report/writers.h"

namespace pg::cli {
namespace {

pg::StatusOr<std::string> ResolveRoot(const CommonFlags& common, const PreflightFlags& flags) {
  std::string start = common.dir.empty() ? std::filesystem::current_path().string() : common.dir;
  std::error_code ec;
  if (!common.dir.empty() && !std::filesystem::is_directory(start, ec))
    return pg::Status::Invalid("-C " + start + ": not a directory");
  start = std::filesystem::absolute(start).lexically_normal().string();
  // -C DIR is `cd DIR`: the root holding preflight/suites.json is found above DIR. A --config
  // of its own names its file relative to DIR itself.
  if (flags.config != pg::kDefaultConfig) return start;
  return pg::FindRoot(start);
}

// The last line of <log-dir>/legs.jsonl: a file without it is a run that did not end (killed
// outright), and its lines are the legs that finished before.
void EndStream(pg::AppendingFile& stream, const std::string& log_dir, const pg::RunReport& report) {
  std::string line = std::string("{\"run_ended\": true, \"exit_code\": ") +
                     std::to_string(static_cast<int>(report.exit_code)) +
                     ", \"interrupted\": " + (report.interrupted ? "true" : "false") + "}\n";
  (void)stream.Append(log_dir + "/legs.jsonl", line);
}

int ListSuites(const std::string& root, const PreflightFlags& flags) {
  std::string path =
      std::filesystem::path(flags.config).is_absolute() ? flags.config : root + "/" + flags.config;
  auto config = pg::LoadSuiteConfig(path);
  if (!config.ok()) return Fail(config.status());
  for (const pg::Suite& suite : config->suites) {
    std::cout << suite.name << ":";
    for (const std::string& leg : suite.legs) std::cout << " " << leg;
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

int RunPreflightVerb(const CommonFlags& common, const PreflightFlags& flags) {
  auto root = ResolveRoot(common, flags);
  if (!root.ok()) return Fail(root.status());
  if (flags.list) return ListSuites(*root, flags);
  pg::ProgressPrinter progress(std::cerr, UseColor(common.color, STDERR_FILENO), common.verbose,
                               LiveFd(common));
  pg::PreflightOptions options;
  options.root = *root;
  options.config_path = flags.config;
  options.suites = flags.suites;
  options.legs = flags.legs;
  options.jobs = flags.jobs;
  options.use_cache = !flags.no_cache;
  options.file_set = flags.staged          ? pg::FileSet::kStaged
                     : !flags.base.empty() ? pg::FileSet::kBase
                                           : pg::FileSet::kAll;
  options.base = flags.base;
  options.retry_contended = !flags.no_retry_contended;
  options.blame_base = flags.blame_base;
  options.allow_inherited = flags.allow_inherited;
  if (!flags.shard.empty()) {
    pg::Status shard = ParseShard(flags.shard, &options.shard_index, &options.shard_count);
    if (!shard.ok()) return Fail(shard);
    options.shard_index += 1;  // the report says K of N as the user wrote it
  }
  options.log_dir = flags.log_dir.empty() ? "" : std::filesystem::absolute(flags.log_dir).string();
  options.cancel_fd = InstallCancelPipe();
  if (!common.quiet) {
    options.on_change = [&](const pg::LegResult& leg, std::string_view state) {
      progress.OnChange(leg, state);
    };
    options.on_progress = [&](const std::string& text) { progress.Notice(text); };
    options.on_plan = [&](const std::vector<pg::PlannedLeg>& legs, int jobs) {
      progress.OnPlan(legs, jobs);
    };
  }
  options.on_notice = [&](const std::string& text) { progress.Notice(text); };
  std::string stream_dir;  // where each finished leg was appended, as it finished
  pg::AppendingFile stream;
  options.on_finished = [&](const pg::LegResult& leg, const std::string& log_dir) {
    std::error_code ec;  // a --log-dir used before holds an earlier run's stream: start afresh
    if (stream_dir.empty()) std::filesystem::remove(log_dir + "/legs.jsonl", ec);
    stream_dir = log_dir;
    pg::Status appended = stream.Append(log_dir + "/legs.jsonl", pg::LegJsonLine(leg));
    if (!appended.ok()) progress.Notice(appended.message());
  };
  if (common.verbose) options.on_detail = options.on_notice;
  options.own_outputs = pg::OwnOutputFiles(ReportFiles(common));
  auto report = pg::RunPreflight(options);
  progress.Close();
  if (!report.ok()) return Fail(report.status());
  if (!stream_dir.empty()) EndStream(stream, stream_dir, *report);
  pg::Status written = WriteReports(*report, common);
  if (!written.ok()) return Fail(written);
  return static_cast<int>(report->exit_code);
}

}  // namespace pg::cli
