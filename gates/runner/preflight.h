// `proofgate preflight`: load suites.json, choose legs, reuse cached passes, run the rest,
// store new passes, and hand back one RunReport for the writers.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/contention/proc_source.h"
#include "gates/core/status.h"
#include "gates/runner/leg_files.h"
#include "gates/runner/leg_result.h"

namespace pg {

inline constexpr char kDefaultConfig[] = "preflight/suites.json";

struct PreflightOptions {
  std::string root;                          // absolute repository root
  std::string config_path = kDefaultConfig;  // relative to root, or absolute
  std::vector<std::string> suites;           // empty (and no `legs`): {"default"}
  std::vector<std::string> legs;             // --leg: these legs alone, with their needs
  int jobs = 0;                              // 0: the CPUs this process may use
  bool use_cache = true;
  FileSet file_set = FileSet::kAll;  // what legs' `files` match: --all-files, --staged, --base
  std::string base;                  // --base REF
  std::string log_dir;               // empty: <git-dir>/proofgate/logs/<run-id>
  int cancel_fd = -1;                // readable: stop every leg (wired to SIGINT/SIGTERM by main)
  bool retry_contended = true;       // false: report contended timing legs without a rerun
  std::string blame_base;            // a revision: failed legs rerun there (gates/runner/blame.h)
  std::string blame_repo;            // where blame_base is resolved (empty: root)
  bool allow_inherited = false;      // inherited failures do not fail the run
  int shard_index = 0, shard_count = 0;  // run shard K (1-based) of N; 0: every leg
  const ProcSource* proc = nullptr;      // null: the real /proc (tests pass recorded readings)
  std::vector<std::string>
      own_outputs;  // absolute: files proofgate writes, never hashed (gates/core/own_outputs.h)
  std::function<void(const LegResult&, std::string_view state)> on_change;
  // Each leg as it reaches its outcome (cached legs first), with the run's log directory: the
  // CLI appends it to <log-dir>/legs.jsonl, so a run killed outright still says what finished.
  std::function<void(const LegResult&, const std::string& log_dir)> on_finished;
  // The legs the run will report, once chosen, and how many it runs at once.
  std::function<void(const std::vector<PlannedLeg>&, int jobs)> on_plan;
  std::function<void(const std::string&)> on_notice;    // warnings worth a line on stderr
  std::function<void(const std::string&)> on_progress;  // "waiting for quiet: 3s foreign=87%"
  std::function<void(const std::string&)> on_detail;    // -v only: how the run was set up
};

StatusOr<RunReport> RunPreflight(const PreflightOptions& options);

// The same run over a config built in memory (`proofgate specs check` makes one from specs/).
StatusOr<RunReport> RunPreflightConfig(const PreflightOptions& options, const SuiteConfig& config);

// The nearest directory at or above `start` that holds preflight/suites.json.
StatusOr<std::string> FindRoot(const std::string& start);

// CPUs this process may run on (its affinity mask), at least 1.
int AvailableCpus();

}  // namespace pg
