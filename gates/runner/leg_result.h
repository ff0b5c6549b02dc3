// The result model every report writer reads: one LegResult per leg, one RunReport per run.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gates/contention/load_meter.h"
#include "gates/contention/load_timeline.h"
#include "gates/core/exit_code.h"

namespace pg {

// kInherited: failed, and fails the same way on the base revision (--blame-base).
enum class Outcome { kPass, kFail, kTimeout, kContended, kSkipped, kError, kInherited };

std::string_view OutcomeName(Outcome outcome);

// An earlier attempt of a leg that was rerun (a timing leg that failed under foreign load).
struct Attempt {
  Outcome outcome = Outcome::kFail;
  double started_s = 0;  // since the run started
  std::optional<int> exit_code;
  int signal = 0;
  double wall_s = 0;
  double cpu_s = 0;
  std::string note;
  std::string output_tail;
  LoadEvidence load;
};

struct LegResult {
  std::string name;
  std::vector<std::string> argv;
  std::string cwd;
  Outcome outcome = Outcome::kSkipped;
  bool cached = false;           // a pass reused from the cache; nothing ran
  bool no_files = false;         // skipped: none of its files is in the run's file set (no failure)
  std::optional<int> exit_code;  // absent when it did not exit normally
  int signal = 0;                // the signal that ended it, 0 if none
  double started_s = 0;          // since the run started
  double wall_s = 0;
  double cpu_s = 0;
  std::string output_tail;
  std::string log_path;
  std::string note;                // why skipped / error / timeout / inherited, in words
  std::string base_log_path;       // --blame-base: the log of the same leg on the base revision
  std::string tree_hash;           // the tree it ran on (or whose pass it reused)
  std::vector<std::string> fixed;  // a fixer's: the files it rewrote (relative to the working tree)
  bool timing = false;
  LoadEvidence load;              // of the attempt this result reports
  std::vector<Attempt> attempts;  // earlier attempts, oldest first
};

// A leg a run will report, and how long its last passing run took (none: it never passed
// here): what live progress estimates the time left from.
struct PlannedLeg {
  std::string name;
  std::optional<double> expected_s;
  bool cached = false;  // its pass is reused: nothing will run
};

// A path whose content differs between the tree a run started on and the one it ended on.
struct TreeChange {
  std::string path;
  std::string change;  // "added", "deleted" or "changed"
};

// "zconf.h deleted, gen/v.h added", at most `most` of them, then "and N more".
std::string TreeChangesText(const std::vector<TreeChange>& changes, size_t most = 5);

struct RunReport {
  int schema_version = 1;
  std::string verb = "preflight";
  std::vector<std::string> suites;
  std::string root;
  std::string config_path;
  std::string run_id;
  std::string started_at;  // ISO 8601 UTC
  double wall_s = 0;
  std::string tree_hash;                 // empty outside git
  std::string tree_hash_after;           // differs from tree_hash when the tree changed mid-run
  std::vector<TreeChange> tree_changes;  // and then how, in path order
  bool index_changed = false;  // --staged: the index changed mid-run, not by a fixer's staging
  std::string toolchain;       // fingerprint
  bool cache_enabled = false;
  bool interrupted = false;
  bool allow_inherited = false;  // --allow-inherited: inherited failures do not fail the run
  int shard_index = 0;           // --shard K/N: K (1-based); 0 when the run is not a shard
  int shard_count = 0;
  std::vector<std::string> shard_assigned;  // the legs this shard was dealt
  std::vector<std::string> merged_from;     // merge-reports: the shards' files, in shard order
  std::vector<LegResult> legs;
  std::vector<LoadPoint> load_timeline;  // the machine's load through the run (none when merged)
  ExitCode exit_code = ExitCode::kPass;

  // Counts of legs per outcome, in OutcomeName order, for summaries.
  int Count(Outcome outcome) const;
};

// What a leg's outcome means for its run (an inherited failure passes with --allow-inherited).
ResultClass ClassOf(Outcome outcome, bool allow_inherited);

// The run's exit code from its leg outcomes and whether the tree changed under it.
ExitCode VerdictOf(const RunReport& report);

}  // namespace pg
