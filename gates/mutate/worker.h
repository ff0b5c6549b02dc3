// A mutation worker: its own scratch tree, build directory and results folder, driving one
// mutant at a time through apply → build → test → classify → restore.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gates/core/journal.h"
#include "gates/core/status.h"
#include "gates/mutate/catalog.h"
#include "gates/mutate/classify.h"
#include "gates/mutate/commands.h"
#include "gates/mutate/mutant.h"
#include "gates/mutate/reach.h"
#include "gates/mutate/step.h"
#include "gates/mutate/test_map.h"

namespace pg {

// One unit of work: a mutation, or a combo of several applied together.
struct MutantJob {
  std::string id;
  bool generated = false;          // claims nothing: killed by any failure of `tests`
  std::vector<std::string> tests;  // a generated mutant's ctest tests
  const Catalog* catalog = nullptr;
  std::vector<const Mutation*> mutations;
  std::vector<Expectation> expect;  // a combo's: every member's
  bool combo = false;
  bool expect_green = false;
};

struct MutantResult {
  std::string id, catalog;
  bool combo = false;
  std::string files, change, tests;  // what was mutated and which tests were expected to answer
  MutantOutcome outcome = MutantOutcome::kSurvived;
  std::string expected_outcome;  // a documented hole's claim ("survived", "unviable"); empty: red
  std::string detail;            // why it is not as claimed; a build's first error for unviable
  std::string observed;          // the expected test's failure message, on one line
  double build_s = 0, test_s = 0, total_s = 0;
  bool schema = false;         // ran in the schemata's build (no build of its own)
  double restore_build_s = 0;  // rebuilding the restored files (counted as overhead, not build)
  int worker = 0;              // which worker ran it (its scratch tree and build)
  std::string log_dir;         // this mutant's own build and test logs
  bool interrupted = false;    // stopped by Ctrl-C: no outcome
  // A generated mutant's place and edit (specs/mutate-generate.md); absent for declared ones.
  struct Generated {
    std::string file, op, original, replacement, diff;
    int line = 0, column = 0;
    std::vector<std::string> tests;
  };
  std::optional<Generated> generated;
};

// The outcome is what the catalog claims: red (or green for a disarm combo), or the documented
// hole's outcome.
bool IsAsClaimed(const MutantResult& r);

// Fills what a report says about a job before it runs: files, edits ("find" → "replace", or
// the member ids of a combo) and the expected tests.
void DescribeJob(const MutantJob& job, MutantResult* r);

struct TestRun {
  StepResult step;
  std::map<std::string, TestResult> results;
  // Reports that could not be read (empty, cut short, not a report): each a test process
  // that died while writing it, so the run failed; one line each, naming the file.
  std::vector<std::string> broken;
};

// Adds `run` to `into` (which starts with exit code 0): results (a failed one is never
// replaced), wall time, the first non-zero exit code, a timeout or cancel.
void MergeTestRun(const TestRun& run, TestRun* into);
// A test failed, a report was broken, or the command did not end with 0.
bool TestRunFailed(const TestRun& run);

class Worker {
 public:
  // `dir` holds tree/, build-<key>/, results/ and logs/; `root` is the user's tree (read only).
  Worker(int index, std::string root, std::string dir, Journal* journal, int cancel_fd);

  int index() const { return index_; }
  // Called as each step starts, with this worker's index and the step ("baseline build" is
  // "build", a mutant's is "M3 test"): what live progress shows.
  void OnStep(std::function<void(int worker, const std::string& step)> hook) {
    on_step_ = std::move(hook);
  }
  // Brings the scratch tree up to the user's tree, configures a new build directory, builds.
  // A step that fails fills `problem` with its first error (a broken baseline proves nothing).
  Status Prepare(const Catalog& c, std::string* problem, bool* interrupted);
  // What the build's list command prints (for ctest: its JSON listing).
  StatusOr<std::string> ListTests(const Catalog& c);
  // The built tree's tests by the names users write (gates/mutate/test_map.h), found once per
  // Prepare; only for the default ctest commands (a catalog's own list/test commands name
  // their tests themselves).
  StatusOr<const TestMap*> Tests(const Catalog& c);
  // Runs the catalog's test command for `tests` (none: every test) on the tree as it is;
  // results from gtest JSON and ctest JUnit files written into the results folder.
  // `mutant` switches one schema mutant on; `fail_fast` stops at the first failing test;
  // `reached` names the file the schemata's switches record reach into (gates/mutate/reach.h).
  StatusOr<TestRun> RunTests(const Catalog& c, const std::vector<std::string>& tests,
                             double timeout_s, const std::string& log = "", int mutant = 0,
                             bool fail_fast = false, const std::string& reached = "");
  // One mutant, restored and verified before this returns; an error means the scratch tree
  // could not be proven restored and nothing more may run in it.
  // `timeout_s` limits the expected tests, `build_timeout_s` the build (past it: unviable).
  StatusOr<MutantResult> Run(const MutantJob& job, double timeout_s, double build_timeout_s);
  // Generated catalogs (specs/mutate-generate.md): every schema applied and built once. A
  // schema the compiler refuses loses the mutants its errors point at and is built again
  // (SchemaSearch). `settled`: the points another worker's search left out, tried first in
  // one build. Returns the mutants the build holds (none: nothing applied) and what it cost.
  StatusOr<std::set<int>> ApplySchemata(const Catalog& c, double build_timeout_s, std::string* note,
                                        const std::set<int>* settled = nullptr);
  // The points the applied schemata leave out: what a later worker's `settled` is.
  const std::set<int>& schemata_off() const { return schema_off_; }
  // `tests` (ctest names) as `reach` records them: the cases of a ctest test it split one by
  // one (GTEST_FILTER narrows the test to each), any other test as itself.
  StatusOr<std::vector<std::string>> ReachUnits(const Catalog& c,
                                                const std::vector<std::string>& tests,
                                                const ReachRecord& reach);
  // `tests` (reach units, fastest first) in batches that run as one process each: the cases
  // of one ctest test together, in the order their fastest case comes.
  StatusOr<std::vector<std::vector<std::string>>> Batches(const Catalog& c,
                                                          const std::vector<std::string>& tests);
  // The applied schemata's run with no mutant on, each of `tests` alone (one unit for a
  // catalog's own test command), recording which mutants each reaches: the baseline. A ctest
  // test of several gtest cases is then recorded case by case as `grain` says, or as
  // `split_as` lists (a later recording run keeps the first one's grain).
  StatusOr<TestRun> RecordReach(const Catalog& c, const std::vector<std::string>& tests,
                                ReachGrain grain, const std::set<std::string>* split_as,
                                ReachRecord* reach);
  // RecordReach `runs` times, the records united (gates/mutate/reach.h's UniteReach); the tests
  // whose points differed between runs go to *wandered. The first run is the baseline.
  StatusOr<TestRun> RecordReachRuns(const Catalog& c, const std::vector<std::string>& tests,
                                    int runs, ReachGrain grain, ReachRecord* reach,
                                    std::vector<std::string>* wandered);
  // A mutant of the applied schemata: the tests of it that `reach` says reached its point
  // (all of them with no record), with PROOFGATE_MUTANT set; nothing is built.
  StatusOr<MutantResult> RunInSchema(const MutantJob& job, double timeout_s, double floor_s,
                                     const ReachRecord& reach);
  // Of the tests that read the sources (reach.sources), those of `job` that reached its point:
  // what must judge it in a build of its own when it survives the schemata's tests.
  StatusOr<std::vector<std::string>> SourceReadersOf(const MutantJob& job,
                                                     const ReachRecord& reach);
  // Puts the schemata's files back (proven as any mutant's are) and rebuilds them.
  Status RemoveSchemata(const Catalog& c);
  bool schemata_applied() const { return schema_.has_value(); }
  // Wall time of the last Prepare's build: what a mutant's build limit is measured against.
  double prepared_build_s() const { return prepared_build_s_; }

  std::string tree() const { return dir_ + "/tree"; }
  std::string BuildDir(const Catalog& c) const;

 private:
  // What a command's {tree}, {build}, {results} and {tests_*} stand for in this worker.
  Placeholders Where(const Catalog& c, std::vector<std::string> tests = {}) const;
  std::string Log(const std::string& step) const { return dir_ + "/logs/" + step + ".log"; }
  // Each mutant keeps its own logs: logs/<id>/build.log, test.log.
  std::string MutantLog(const std::string& id, const std::string& step) const;
  StatusOr<StepResult> Step(const std::vector<std::string>& argv, const Placeholders& p,
                            const std::string& log, double timeout_s);
  // Placeholders for running `tests`: for the default ctest command, cases become the ctest
  // tests that hold them plus a GTEST_FILTER.
  StatusOr<Placeholders> ForTests(const Catalog& c, const std::vector<std::string>& tests);
  // One unit of the recording run: its points, time and colour into *reach.
  StatusOr<TestRun> RecordUnit(const Catalog& c, const std::vector<std::string>& tests,
                               const std::string& unit, const std::string& file,
                               ReachRecord* reach);
  // Whether ctest test `t` (recorded whole in *reach) is recorded again case by case.
  StatusOr<bool> Splits(const Catalog& c, const std::string& t, size_t cases, ReachGrain grain,
                        const std::set<std::string>* split_as, const ReachRecord& reach);
  int index_;
  std::function<void(int, const std::string&)> on_step_;
  std::string root_, dir_;
  Journal* journal_;
  int cancel_fd_;
  double prepared_build_s_ = 0;
  std::optional<TestMap> tests_;         // reset by Prepare
  std::optional<AppliedMutant> schema_;  // the schemata, while applied
  std::set<int> schema_off_;             // the points they leave out
  bool schema_logs_swept_ = false;       // the last run's schema-build logs are gone
};

}  // namespace pg
