// `proofgate merge-reports` for mutate's shards: each `mutate --shard K/N --json` report read
// back, then the shards' results in shard order as one report (gates/merge/shard_merge.h
// checks that the files are one run's shards first).
#pragma once

#include <string>
#include <vector>

#include "gates/config/json_source.h"
#include "gates/mutate/mutate_run.h"

namespace pg {

// A mutate JSON report (MutateReportJson's schema) read back; a result without an id or with an
// unknown outcome is kInvalidInput naming its place in the file.
StatusOr<MutateReport> MutateReportFromJson(const JsonSource& doc);

// Shards (in index order) into one report. The same mutant id in two shards is kInvalidInput:
// the shards were cut from different selections. A shard's baseline problem keeps its number.
StatusOr<MutateReport> MergeMutateReports(const std::vector<MutateReport>& shards,
                                          const std::vector<std::string>& paths);

}  // namespace pg
