// The schemata's start on worker 0: the catalog's mutants compiled into one build, the
// selected tests run with every mutant off (recording which points each reaches), and what
// is red there told apart: tests that read the rewritten sources, tests red only alone, a
// red tree. Its baseline, or none: then every mutant gets a build of its own.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/mutate/mutant_job.h"
#include "gates/mutate/mutate_run.h"
#include "gates/mutate/reach.h"
#include "gates/mutate/worker.h"

namespace pg {

// What worker 0's schemata came to: the mutants compiled in, and their run with no mutant on
// when it was green (it is then the baseline: every switch off is the unmutated program).
struct SchemaStart {
  std::set<int> numbers;
  std::optional<TestRun> baseline;
  ReachRecord reach;  // recorded by that run (unless --no-reach)
  std::string note;
  bool interrupted = false;
};

// The whole selection's expected tests must pass on the unmutated tree, and all must exist.
// `listed`: the tests come from the build's own listing (generated mutants), so one without a
// result was skipped (GTEST_SKIP, a missing tool), not misnamed. "" when they do.
std::string BaselineProblem(const std::vector<std::string>& tests, const TestRun& run, bool listed);

// Every test the jobs name, each once, in the jobs' order.
std::vector<std::string> SelectedTests(const std::vector<MutantJob>& jobs);

// Worker 0 builds the catalog's schemata and runs the selected tests with no mutant on.
StatusOr<SchemaStart> SchemataOnFirst(const MutateOptions& o, Worker& first,
                                      const std::vector<MutantJob>& jobs, double build_s);

// How the recording run ran `tests`: what the baseline's notice says about reach.
std::string Grain(const ReachRecord& reach, size_t tests);

}  // namespace pg
