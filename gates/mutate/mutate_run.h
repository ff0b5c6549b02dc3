// `proofgate mutate`: select mutants from catalogs, prove the unmutated baseline green, then
// run every mutant on a pool of workers and collect what each did.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gates/core/journal.h"
#include "gates/core/status.h"
#include "gates/mutate/catalog.h"
#include "gates/mutate/worker.h"

namespace pg {

struct MutateOptions {
  std::string root;      // the user's working tree: read, never written
  std::string work_dir;  // workers' trees and builds, the journal, the lock
  std::vector<Catalog> catalogs;
  std::vector<std::string> ids;          // empty: every mutation and combo
  int shard_index = 0, shard_count = 1;  // this run takes jobs i with i % count == index
  int jobs = 1;
  double min_timeout_s = 20;   // a mutant's tests get max(5 × baseline, this)
  double build_timeout_s = 0;  // a mutant's build limit; 0: max(3 × the baseline build, 600 s)
  int cancel_fd = -1;
  std::function<void(const MutantResult&)> on_result;
  std::function<void(const std::string&)> on_notice;
  std::function<void(int worker, const std::string& step)>
      on_step;                                      // each worker's step as it starts
  std::function<void(size_t mutants)> on_selected;  // how many mutants will run
  // Runs once the work directory is locked and recovered, before jobs are selected, with
  // worker 0: `mutate --generate` builds the tree there and adds the catalog it finds.
  std::function<Status(Worker& first, std::vector<Catalog>* catalogs)> discover;
  bool discover_only = false;  // stop after `discover` (--list): no baseline, no mutant
  bool schemata =
      true;  // run a catalog's schemata (generated ones have them); false: a build per mutant
  bool reach =
      true;  // in the schemata, a mutant runs only the tests that reached it (gates/mutate/reach.h)
  int reach_runs = 1;  // recording runs: a test reaches a point when it did on any of them
  ReachGrain reach_grain = ReachGrain::kAuto;  // which ctest tests are recorded case by case
};

struct MutateReport {
  std::vector<MutantResult> results;  // in catalog order
  std::string baseline_problem;       // set: stopped before any mutant ran
  double baseline_build_s = 0;        // the unmutated tree's build on worker 0 (the last catalog's)
  bool interrupted = false;
  std::vector<Recovered> recovered;      // left behind by an earlier, killed run
  std::string tree_hash;                 // the user's tree the mutants were made from
  int shard_index = 1, shard_count = 1;  // K of N (1-based), as --shard said
  std::vector<std::string> merged_from;  // merge-reports: the shards' files, in shard order
  std::string error;                     // set: the run stopped on this error
  int error_exit_code = 0;               // and the process exits with this code
};

// Mutations, then combos, of each catalog in order; `ids` filter, then the shard. An unknown
// id is kInvalidInput; so is a selection that leaves nothing to run.
StatusOr<std::vector<MutantJob>> SelectJobs(const std::vector<Catalog>& catalogs,
                                            const std::vector<std::string>& ids, int shard_index,
                                            int shard_count);

StatusOr<MutateReport> RunMutate(const MutateOptions& options);

// The JSON report (MutateReportJson) of the last run in `work_dir`: rewritten as each mutant
// finishes, marked interrupted until the run ends, so what a killed run finished is kept.
std::string FinishedReportPath(const std::string& work_dir);

// `proofgate mutate --recover`: puts back every journaled file, then brings each worker's tree
// back in line with the user's tree.
StatusOr<std::vector<Recovered>> RecoverMutate(const std::string& root,
                                               const std::string& work_dir);

}  // namespace pg
