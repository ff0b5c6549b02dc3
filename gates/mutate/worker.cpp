#include "gates/mutate/worker.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "gates/core/file_io.h"
#include "gates/mutate/commands.h"
#include "gates/mutate/junit_results.h"
#include "gates/mutate/mutant.h"
#include "gates/mutate/reach.h"
#include "gates/mutate/scratch_tree.h"
#include "gates/report/writers.h"
#include "gates/runner/capture.h"
#include "gates/runner/clock.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

std::vector<std::string> TestNames(const std::vector<Expectation>& expect) {
  std::vector<std::string> names;
  for (const Expectation& e : expect) {
    if (std::find(names.begin(), names.end(), e.test) == names.end()) names.push_back(e.test);
  }
  return names;
}

std::vector<std::string> TestsOf(const MutantJob& job) {
  return job.generated ? job.tests : TestNames(job.expect);
}

// A generated mutant's id holds a path and colons: its log folder gets a name of plain bytes.
std::string LogName(const std::string& id) {
  std::string out = id;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  }
  return out;
}

// A limit as "20 s" or "1e+10 s": any finite number, never an int's overflow (--min-timeout
// 1e10 was "a limit of -2147483648 s").
std::string LimitText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

// Generated mutants claim nothing: any failing test (or a test command that fails without a
// report saying which) kills them; all passing is a survivor.
void JudgeGenerated(const TestRun& run, MutantResult* r) {
  std::string failed;
  for (const auto& [name, result] : run.results) {
    if (result.failed && !result.alias && failed.empty()) failed = name;
  }
  if (!failed.empty() || run.step.exit_code != 0 || !run.broken.empty()) {
    r->outcome = MutantOutcome::kKilled;
    r->observed = !failed.empty() ? "failed: " + failed
                  : !run.broken.empty()
                      ? run.broken.front()
                      : "the test command exited " + std::to_string(run.step.exit_code);
    return;
  }
  r->outcome = MutantOutcome::kSurvived;
  auto cases = std::count_if(run.results.begin(), run.results.end(),
                             [](const auto& e) { return !e.second.alias; });
  r->detail = "every test passed (" + std::to_string(cases) + " result(s))";
}

std::string LogText(const std::string& path) {
  auto text = ReadFile(path);
  return text.ok() ? *text : "";
}

// Outcome from the expected tests' reports; a timeout or Ctrl-C overrides them.
void Judge(const MutantJob& job, const TestRun& run, double timeout_s, MutantResult* r) {
  if (run.step.cancelled) {
    r->interrupted = true;
    return;
  }
  if (run.step.timed_out) {
    r->outcome = MutantOutcome::kTimeout;
    r->detail = "the tests ran past the mutant's limit of " + LimitText(timeout_s);
    return;
  }
  if (job.generated) return JudgeGenerated(run, r);
  Classification c =
      job.expect_green ? ClassifyGreen(job.expect, run.results) : Classify(job.expect, run.results);
  // A process that died writing its report failed, whatever the other reports say.
  if (!run.broken.empty() &&
      (c.outcome == MutantOutcome::kSurvived || c.outcome == MutantOutcome::kGreenAsClaimed)) {
    c.outcome = job.expect_green ? MutantOutcome::kNotGreen : MutantOutcome::kRedOther;
  }
  r->outcome = c.outcome;
  r->detail = c.detail;
  r->observed = c.observed;
  if (run.step.exit_code != 0 && run.results.empty()) {
    r->detail += "; the test command exited " + std::to_string(run.step.exit_code) +
                 " without a gtest report";
  }
  for (const std::string& b : run.broken) r->detail += "; " + b;
}

// A documented hole passes while it holds and is reported the day a test closes it.
void Settle(const MutantJob& job, MutantResult* r) {
  r->expected_outcome =
      job.combo || job.mutations.empty() ? "" : job.mutations.front()->expect_outcome;
  if (r->expected_outcome.empty()) return;
  std::string got(MutantOutcomeName(r->outcome));
  bool killed =
      r->outcome == MutantOutcome::kRedAsClaimed || r->outcome == MutantOutcome::kRedOther;
  if (IsAsClaimed(*r)) {
    r->detail = "documented: " + r->expected_outcome;
  } else if (r->expected_outcome == "survived" && killed) {
    r->detail = "expected survivor now killed (" + got + "): update the catalog";
  } else {
    r->detail = "expected " + r->expected_outcome + ", got " + got + ": update the catalog" +
                (r->detail.empty() ? "" : " (" + r->detail + ")");
  }
}

}  // namespace

bool IsAsClaimed(const MutantResult& r) {
  if (r.generated)
    return r.outcome == MutantOutcome::kKilled || r.outcome == MutantOutcome::kUnviable;
  return r.expected_outcome.empty() ? AsClaimed(r.outcome)
                                    : MutantOutcomeName(r.outcome) == r.expected_outcome;
}

void DescribeJob(const MutantJob& job, MutantResult* r) {
  if (job.generated && job.mutations.size() == 1) {
    const Mutation& m = *job.mutations.front();
    r->files = m.file;
    r->change = m.change;
    r->tests = job.tests.size() <= 3 ? "" : std::to_string(job.tests.size()) + " tests";
    for (size_t i = 0; i < job.tests.size() && job.tests.size() <= 3; ++i)
      r->tests += (i ? ", " : "") + job.tests[i];
    r->generated = MutantResult::Generated{m.file, m.op,   m.find,   m.replace,
                                           m.diff, m.line, m.column, job.tests};
    return;
  }
  for (const Mutation* m : job.mutations) {
    if (r->files.find(m->file) == std::string::npos)
      r->files += (r->files.empty() ? "" : ", ") + m->file;
    r->change += (r->change.empty() ? ""
                  : job.combo       ? " + "
                                    : "; ") +
                 (job.combo ? m->id : m->find + " → " + m->replace);
  }
  for (const std::string& t : TestNames(job.expect)) r->tests += (r->tests.empty() ? "" : ", ") + t;
}

Worker::Worker(int index, std::string root, std::string dir, Journal* journal, int cancel_fd)
    : index_(index),
      root_(std::move(root)),
      dir_(std::move(dir)),
      journal_(journal),
      cancel_fd_(cancel_fd) {}

std::string Worker::MutantLog(const std::string& id, const std::string& step) const {
  return dir_ + "/logs/" + LogName(id) + "/" + step + ".log";
}

std::string Worker::BuildDir(const Catalog& c) const { return dir_ + "/build-" + ConfigureKey(c); }

Placeholders Worker::Where(const Catalog& c, std::vector<std::string> tests) const {
  Placeholders p;
  p.tree = tree();
  p.build = BuildDir(c);
  p.results = dir_ + "/results";
  p.tests = std::move(tests);
  return p;
}

StatusOr<StepResult> Worker::Step(const std::vector<std::string>& argv, const Placeholders& p,
                                  const std::string& log, double timeout_s) {
  if (on_step_) {
    std::string step = log.substr(std::min(log.size(), dir_.size() + 6));  // past "<dir>/logs/"
    if (step.size() > 4 && step.compare(step.size() - 4, 4, ".log") == 0)
      step.resize(step.size() - 4);
    std::replace(step.begin(), step.end(), '/', ' ');
    on_step_(index_, step);
  }
  return RunStep(StepSpec{argv, tree(), StepEnv(p), log, timeout_s, cancel_fd_});
}

StatusOr<const TestMap*> Worker::Tests(const Catalog& c) {
  if (!tests_) {
    PG_ASSIGN_OR_RETURN(std::string listing, ListTests(c));
    PG_ASSIGN_OR_RETURN(std::vector<CtestTest> ctest, ParseCtestTests(listing));
    PG_ASSIGN_OR_RETURN(TestMap map, TestMap::Discover(ctest));
    tests_ = std::move(map);
  }
  return &*tests_;
}

StatusOr<Placeholders> Worker::ForTests(const Catalog& c, const std::vector<std::string>& tests) {
  if (!c.test_command.empty() || !c.list_command.empty() || tests.empty()) return Where(c, tests);
  PG_ASSIGN_OR_RETURN(const TestMap* map, Tests(c));
  TestSelection s = map->Select(tests);
  Placeholders p = Where(c, s.ctest_names);
  p.gtest_filter_env = s.gtest_filter;
  return p;
}

Status Worker::Prepare(const Catalog& c, std::string* problem, bool* interrupted) {
  PG_RETURN_IF_ERROR(MakeDirs(dir_ + "/logs"));
  PG_RETURN_IF_ERROR(SyncScratchTree(root_, tree()));
  PG_RETURN_IF_ERROR(LinkCarried(root_, tree(), c.carry));
  Placeholders p = Where(c);
  tests_.reset();
  std::error_code ec;
  // A configure that never finished leaves no cache: configure again rather than build half.
  if (!fs::exists(BuildDir(c) + "/CMakeCache.txt", ec) || !c.configure.empty()) {
    PG_ASSIGN_OR_RETURN(StepResult configured, Step(ConfigureArgv(c, p), p, Log("configure"), 0));
    *interrupted = configured.cancelled;
    if (!configured.ok()) {
      *problem = "configure failed: " + FirstError(LogText(Log("configure"))) +
                 " (log: " + Log("configure") + ")";
      return Status();
    }
  }
  PG_ASSIGN_OR_RETURN(StepResult built, Step(BuildArgv(c, p), p, Log("build"), 0));
  prepared_build_s_ = built.wall_s;
  *interrupted = built.cancelled;
  if (!built.ok())
    *problem = "the unmutated tree does not build: " + FirstError(LogText(Log("build"))) +
               " (log: " + Log("build") + ")";
  // The unmutated build names the tests; a mutant's build (which may break listing) never does.
  bool default_commands = c.test_command.empty() && c.list_command.empty();
  if (built.ok() && !built.cancelled && default_commands) {
    auto listed = Tests(c);
    if (!listed.ok())
      *problem = "the unmutated build's tests cannot be listed: " + listed.status().message();
  }
  return Status();
}

StatusOr<TestRun> Worker::RunTests(const Catalog& c, const std::vector<std::string>& tests,
                                   double timeout_s, const std::string& log, int mutant,
                                   bool fail_fast, const std::string& reached) {
  std::string results = dir_ + "/results";
  std::error_code ec;
  fs::remove_all(results, ec);
  PG_RETURN_IF_ERROR(MakeDirs(results));
  PG_ASSIGN_OR_RETURN(Placeholders p, ForTests(c, tests));
  p.mutant = mutant;
  p.fail_fast = fail_fast;
  p.reached = reached;
  TestRun run;
  PG_ASSIGN_OR_RETURN(run.step,
                      Step(TestArgv(c, p), p, log.empty() ? Log("test") : log, timeout_s));
  // gtest's JSON first: a case both reports name keeps gtest's own failure messages.
  std::vector<fs::path> reports;
  for (const auto& f : fs::directory_iterator(results, ec)) {
    if (f.path().extension() == ".json" || f.path().extension() == ".xml")
      reports.push_back(f.path());
  }
  std::sort(reports.begin(), reports.end(), [](const fs::path& a, const fs::path& b) {
    return std::make_pair(a.extension() != ".json", a) <
           std::make_pair(b.extension() != ".json", b);
  });
  for (const fs::path& f : reports) {
    PG_ASSIGN_OR_RETURN(std::string text, ReadFile(f.string()));
    std::string name = "results/" + f.filename().string();
    Status added = f.extension() == ".json" ? AddGtestJson(name, text, &run.results)
                                            : AddJunit(name, text, &run.results);
    // A process that crashed while writing its report (uriparser's runner: "double free" in
    // teardown, a 0-byte JSON) failed its test; the run goes on, the other reports still say which.
    if (!added.ok()) {
      run.broken.push_back(added.message() +
                           (text.empty() ? " (empty: its test process died before writing it)"
                                         : " (cut short, or not a test report)"));
    }
  }
  return run;
}

StatusOr<std::string> Worker::ListTests(const Catalog& c) {
  Placeholders p = Where(c);
  std::vector<std::string> argv = ListArgv(c, p);
  PG_ASSIGN_OR_RETURN(Captured listed, RunCapture(argv, tree(), 600));
  if (listed.exit.exit_code != 0)
    return Status::Invalid("\"" + argv.front() + "\" could not list the tests: " + listed.output);
  return listed.output;
}

StatusOr<MutantResult> Worker::Run(const MutantJob& job, double timeout_s, double build_timeout_s) {
  auto start = SteadyClock().Now();
  MutantResult r;
  r.id = job.id;
  r.catalog = job.catalog->path;
  r.combo = job.combo;
  DescribeJob(job, &r);
  r.worker = index_;
  r.log_dir = dir_ + "/logs/" + LogName(job.id);
  PG_RETURN_IF_ERROR(MakeDirs(r.log_dir));
  PG_ASSIGN_OR_RETURN(AppliedMutant mutant, AppliedMutant::Apply(tree(), job.mutations, journal_));
  Placeholders p = Where(*job.catalog);
  std::string build_log = MutantLog(job.id, "build");
  auto built = Step(BuildArgv(*job.catalog, p), p, build_log, build_timeout_s);
  if (built.ok()) r.build_s = built->wall_s;
  if (built.ok() && built->cancelled) {
    r.interrupted = true;
  } else if (built.ok() && built->timed_out) {
    r.outcome = MutantOutcome::kUnviable;
    r.detail = "the build ran past the mutant's limit of " + LimitText(build_timeout_s);
  } else if (built.ok() && !built->ok() && job.generated && !ToolRejected(LogText(build_log))) {
    // It compiled and linked; what failed ran it: a test the build runs itself (jsoncpp's
    // POST_BUILD unit tests), which the schemata's test run of the same mutant would fail too.
    r.outcome = MutantOutcome::kKilled;
    r.observed = "the build failed running what it built: " + FailedStep(LogText(build_log));
  } else if (built.ok() && !built->ok()) {
    r.outcome = MutantOutcome::kUnviable;
    r.detail = FirstError(LogText(build_log));
  } else if (built.ok()) {
    auto tested = RunTests(*job.catalog, TestsOf(job), timeout_s, MutantLog(job.id, "test"), 0,
                           job.generated);
    if (!tested.ok()) built = tested.status();
    if (tested.ok()) r.test_s = tested->step.wall_s;
    if (tested.ok()) Judge(job, *tested, timeout_s, &r);
  }
  Status restored = mutant.Restore();  // before anything else, whatever happened above
  if (!restored.ok()) return restored;
  if (!built.ok()) return built.status();
  // The restored files are rebuilt now, so the next mutant's build time is its own and the
  // scratch build matches the tree between mutants.
  if (!r.interrupted) {
    auto rebuilt =
        Step(BuildArgv(*job.catalog, p), p, MutantLog(job.id, "restore-build"), build_timeout_s);
    if (rebuilt.ok()) r.restore_build_s = rebuilt->wall_s;
  }
  Settle(job, &r);
  r.total_s = SteadyClock().Since(start);
  return r;
}

namespace {

// A generated mutant's tests as its report shows them: the ones its run used.
void ShowTests(const std::vector<std::string>& tests, MutantResult* r) {
  r->tests = tests.empty()       ? "none reached it"
             : tests.size() <= 3 ? ""
                                 : std::to_string(tests.size()) + " tests";
  for (size_t i = 0; i < tests.size() && tests.size() <= 3; ++i)
    r->tests += (i ? ", " : "") + tests[i];
  if (r->generated) r->generated->tests = tests;
}

}  // namespace

void MergeTestRun(const TestRun& run, TestRun* into) {
  // A ctest test run once per case reports under its own name each time: a failure stays.
  for (const auto& [name, result] : run.results) {
    auto [it, added] = into->results.emplace(name, result);
    if (!added && !it->second.failed) it->second = result;
  }
  into->broken.insert(into->broken.end(), run.broken.begin(), run.broken.end());
  if (into->step.exit_code == 0) into->step.exit_code = run.step.exit_code;
  into->step.timed_out = into->step.timed_out || run.step.timed_out;
  into->step.cancelled = into->step.cancelled || run.step.cancelled;
  into->step.wall_s += run.step.wall_s;
}

bool TestRunFailed(const TestRun& run) {
  if (!run.step.ok() || !run.broken.empty()) return true;
  return std::any_of(run.results.begin(), run.results.end(),
                     [](const auto& e) { return e.second.failed; });
}

StatusOr<std::vector<std::string>> Worker::SourceReadersOf(const MutantJob& job,
                                                           const ReachRecord& reach) {
  if (reach.sources.empty()) return std::vector<std::string>{};
  PG_ASSIGN_OR_RETURN(std::vector<std::string> units,
                      ReachUnits(*job.catalog, TestsOf(job), reach));
  units.erase(std::remove_if(units.begin(), units.end(),
                             [&](const std::string& t) { return !reach.sources.count(t); }),
              units.end());
  int number = job.mutations.empty() ? 0 : job.mutations.front()->schema_number;
  return TestsReaching(reach, number, units);
}

// With reach recorded per test, the tests that reached the point run one at a time, the
// fastest first, until one fails or the mutant's limit is spent; a point no test reached
// survives unrun, and the limit is the mutant's own (ReachLimit). Without (a whole-command unit,
// or --no-reach) the tests run in one command under the catalog's limit.
StatusOr<MutantResult> Worker::RunInSchema(const MutantJob& job, double timeout_s, double floor_s,
                                           const ReachRecord& reach) {
  auto start = SteadyClock().Now();
  MutantResult r;
  r.id = job.id;
  r.catalog = job.catalog->path;
  DescribeJob(job, &r);
  r.worker = index_;
  r.schema = true;
  r.log_dir = dir_ + "/logs/" + LogName(job.id);
  PG_RETURN_IF_ERROR(MakeDirs(r.log_dir));
  int number = job.mutations.empty() ? 0 : job.mutations.front()->schema_number;
  std::vector<std::string> tests = TestsOf(job);
  if (reach.recorded && !reach.points.count("")) {
    PG_ASSIGN_OR_RETURN(tests, ReachUnits(*job.catalog, tests, reach));
  }
  tests = TestsReaching(reach, number, tests);
  tests.erase(std::remove_if(tests.begin(), tests.end(),
                             [&](const std::string& t) { return reach.sources.count(t); }),
              tests.end());
  ShowTests(tests, &r);
  if (tests.empty()) {
    r.outcome = MutantOutcome::kSurvived;
    r.detail = "no test reached it: with every mutant off, no selected test executed this code";
    r.total_s = SteadyClock().Since(start);
    return r;
  }
  bool alone = reach.recorded && !reach.points.count("");
  std::vector<std::vector<std::string>> batches = {tests};
  if (alone) {
    PG_ASSIGN_OR_RETURN(batches, Batches(*job.catalog, tests));
    timeout_s = ReachLimit(reach, batches, floor_s, timeout_s);
  }
  TestRun run;
  run.step.exit_code = 0;  // each test's own exit code is merged in: the first that is not 0
  for (size_t k = 0; k < batches.size(); ++k) {
    const std::vector<std::string>& these = batches[k];
    double left = timeout_s - run.step.wall_s;
    if (left <= 0) {
      run.step.timed_out = true;  // the tests before this one spent the mutant's limit
      break;
    }
    std::string log = MutantLog(job.id, k ? "test-" + std::to_string(k + 1) : "test");
    PG_ASSIGN_OR_RETURN(TestRun one, RunTests(*job.catalog, these, left, log, number, true));
    MergeTestRun(one, &run);
    if (TestRunFailed(one)) break;
  }
  r.test_s = run.step.wall_s;
  Judge(job, run, timeout_s, &r);
  if (alone && r.outcome == MutantOutcome::kTimeout) {
    r.detail += " (5 × its tests' " + FormatSeconds(RecordedSeconds(reach, batches)) +
                " in the recording run, at least " + FormatSeconds(floor_s) + ")";
  }
  r.total_s = SteadyClock().Since(start);
  return r;
}

}  // namespace pg
