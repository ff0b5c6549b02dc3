// `proofgate merge-reports`: CI shards' JSON reports (`preflight --shard K/N --json`,
// `mutate --shard K/N --json`) read back and combined into one verdict. The shard bookkeeping
// and preflight's legs live here; mutate's results merge in gates/mutate/mutate_merge.h.
#pragma once

#include <string>
#include <vector>

#include "gates/config/json_source.h"
#include "gates/core/exit_code.h"
#include "gates/runner/leg_result.h"

namespace pg {

// What every shard report says about itself.
struct ShardHeader {
  std::string path;  // the file, for messages
  std::string verb, tree_hash, toolchain;
  std::vector<std::string> suites;
  int index = 0, count = 0;  // 1-based K of N; 0 when the report is not a shard
};

// Why reports cannot be merged, said in `message`: an `error` (kInvalidInput, exit 2: not one
// run's shards) or a stale `result` (one run's shards that checked different trees, exit 5).
struct Refusal {
  Status error;
  ResultClass result = ResultClass::kPass;
  std::string message;
  bool ok() const { return error.ok() && result == ResultClass::kPass; }
};

// The header of a proofgate JSON report; anything else is kInvalidInput naming the file.
StatusOr<ShardHeader> ReadShardHeader(const JsonSource& doc);

// Checks that `shards` are one run's shards 1..N, each once: same verb, suites, count,
// toolchain and tree. `order` gets the positions of `shards` in index order.
Refusal CheckShards(const std::vector<ShardHeader>& shards, std::vector<size_t>* order);

// A preflight JSON report (RunReportJson's schema) read back.
StatusOr<RunReport> RunReportFromJson(const JsonSource& doc);

// Shards (in index order) into one report: legs by name in first-seen order, a leg that ran in
// several shards keeping its worst outcome; the exit code recomputed as for one run.
RunReport MergeRunReports(const std::vector<RunReport>& shards,
                          const std::vector<std::string>& paths);

}  // namespace pg
