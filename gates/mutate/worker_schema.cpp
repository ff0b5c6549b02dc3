// Worker's schemata (specs/mutate-generate.md): applied and built once, the green run that
// records which tests reach which mutant, and their removal.
#include <filesystem>
#include <map>
#include <utility>

#include "gates/core/file_io.h"
#include "gates/mutate/commands.h"
#include "gates/mutate/schema.h"
#include "gates/mutate/schema_search.h"
#include "gates/mutate/worker.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

// The schemata as whole-file edits of the tree, without `off`; `built` keeps each file's
// rendered text and points for mapping the compiler's errors back to points.
StatusOr<std::vector<Mutation>> SchemaEdits(const std::string& tree, const Catalog& c,
                                            const std::set<int>& off,
                                            std::map<std::string, SchemaText>* built,
                                            std::set<int>* numbers) {
  std::vector<Mutation> edits;
  for (const Schema& s : c.schemata) {
    PG_ASSIGN_OR_RETURN(std::string original, ReadFile(tree + "/" + s.file));
    SchemaText rendered = RenderSchema(original, s, off);
    if (rendered.numbers.empty()) continue;
    Mutation m;
    m.id = "schema:" + s.file;
    m.file = s.file;
    m.find = original;
    m.replace = rendered.text;
    edits.push_back(std::move(m));
    numbers->insert(rendered.numbers.begin(), rendered.numbers.end());
    (*built)[s.file] = std::move(rendered);
  }
  return edits;
}

std::string Built(size_t mutants, size_t files, double wall_s, const SchemaSearch& search) {
  std::string out = std::to_string(mutants) + " mutant(s) in one build of " +
                    std::to_string(files) + " schematized file(s) (" +
                    std::to_string(static_cast<int>(wall_s)) + " s)";
  if (search.dropped().empty()) return out;
  out += "; " + std::to_string(search.dropped().size()) + " left to one build each";
  if (search.found() == 0) return out;
  return out + " (" + std::to_string(search.found()) +
         " found by halving a file's points: its errors lay outside every point)";
}

// Removes the schema-build logs of the run before, once a run: a search's logs are this run's.
void SweepSchemaLogs(const std::string& logs) {
  std::error_code ec;
  for (fs::directory_iterator it(logs, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.starts_with("schema-build-") && name.ends_with(".log")) fs::remove(it->path(), ec);
  }
}

}  // namespace

// Builds until one passes: the errors' points leave, and a file whose errors lie outside every
// point is halved to the points that cause them (SchemaSearch, within its budget of builds).
// A halving's probes build only what the whole build before them failed to (Ninja's FAILED
// outputs): every schematized file is rewritten each round, and a whole probe would compile
// and link them all again. Only a whole build settles the schemata.
StatusOr<std::set<int>> Worker::ApplySchemata(const Catalog& c, double build_timeout_s,
                                              std::string* note, const std::set<int>* settled) {
  if (!std::exchange(schema_logs_swept_, true)) SweepSchemaLogs(dir_ + "/logs");
  SchemaSearch search(c.schemata);
  Placeholders p = Where(c);
  std::optional<std::set<int>> given =
      settled ? std::optional<std::set<int>>(*settled) : std::nullopt;
  for (int round = 0; round < 1000;
       ++round) {  // SchemaSearch ends first: each build drops or halves
    std::map<std::string, SchemaText> built;
    std::set<int> numbers, off = given ? *given : search.Off();
    PG_ASSIGN_OR_RETURN(std::vector<Mutation> edits, SchemaEdits(tree(), c, off, &built, &numbers));
    if (edits.empty() && !search.halving()) break;
    if (edits.empty()) {  // the probes left no point in: nothing to build, nothing failed
      search.Learn("", built);
      continue;
    }
    std::vector<const Mutation*> pointers;
    for (const Mutation& m : edits) pointers.push_back(&m);
    PG_ASSIGN_OR_RETURN(AppliedMutant applied, AppliedMutant::Apply(tree(), pointers, journal_));
    std::string log = Log("schema-build-" + std::to_string(round));
    std::vector<std::string> argv =
        search.halving() ? OutputsBuildArgv(c, p, search.probes()) : std::vector<std::string>{};
    bool probe = !argv.empty();
    auto step = Step(probe ? argv : KeepGoingBuildArgv(c, p), p, log, build_timeout_s);
    if (step.ok() && step->ok() && !search.halving()) {
      schema_ = std::move(applied);
      schema_off_ = std::move(off);
      *note = Built(numbers.size(), edits.size(), step->wall_s, search);
      return numbers;
    }
    PG_RETURN_IF_ERROR(applied.Restore());
    if (!step.ok()) return step.status();
    if (step->cancelled) return std::set<int>{};
    if (given) {  // the settled points do not build here: search as the other worker did
      given.reset();
      continue;
    }
    auto read = ReadFile(log);
    if (!search.LearnBuild(read.ok() ? *read : "", step->ok() || !read.ok(), probe, built)) break;
  }
  *note = "the schemata did not build: every mutant gets a build of its own";
  auto rebuilt = Step(BuildArgv(c, p), p, Log("schema-restore-build"), build_timeout_s);
  return rebuilt.ok() ? std::set<int>{} : StatusOr<std::set<int>>(rebuilt.status());
}

Status Worker::RemoveSchemata(const Catalog& c) {
  if (!schema_) return Status();
  Status restored = schema_->Restore();
  schema_.reset();
  PG_RETURN_IF_ERROR(restored);
  Placeholders p = Where(c);
  return Step(BuildArgv(c, p), p, Log("schema-restore-build"), 0).status();
}

StatusOr<std::vector<std::string>> Worker::ReachUnits(const Catalog& c,
                                                      const std::vector<std::string>& tests,
                                                      const ReachRecord& reach) {
  if (!c.test_command.empty() || !c.list_command.empty() || reach.split.empty()) return tests;
  PG_ASSIGN_OR_RETURN(const TestMap* map, Tests(c));
  std::vector<std::string> units;
  for (const std::string& t : tests) {
    std::vector<std::string> cases =
        reach.split.count(t) ? map->CasesOf(t) : std::vector<std::string>{};
    if (cases.empty()) units.push_back(t);
    units.insert(units.end(), cases.begin(), cases.end());
  }
  return units;
}

StatusOr<std::vector<std::vector<std::string>>> Worker::Batches(
    const Catalog& c, const std::vector<std::string>& tests) {
  std::vector<std::vector<std::string>> batches;
  if (!c.test_command.empty() || !c.list_command.empty()) {
    for (const std::string& t : tests) batches.push_back({t});
    return batches;
  }
  PG_ASSIGN_OR_RETURN(const TestMap* map, Tests(c));
  std::map<std::string, size_t> at;  // ctest test → its batch
  for (const std::string& t : tests) {
    std::string owner = map->CtestOf(t);
    auto [it, fresh] = at.emplace(owner.empty() ? t : owner, batches.size());
    if (fresh) batches.emplace_back();
    batches[it->second].push_back(t);
  }
  return batches;
}

StatusOr<TestRun> Worker::RecordUnit(const Catalog& c, const std::vector<std::string>& tests,
                                     const std::string& unit, const std::string& file,
                                     ReachRecord* reach) {
  std::string log = unit.empty() ? Log("test") : Log("reach-" + fs::path(file).filename().string());
  PG_ASSIGN_OR_RETURN(TestRun run, RunTests(c, tests, 0, log, 0, false, file));
  if (run.step.cancelled) return run;
  PG_ASSIGN_OR_RETURN(reach->points[unit], ReadReached(file));
  reach->seconds[unit] = run.step.wall_s;
  if (TestRunFailed(run)) reach->failed.insert(unit);
  return run;
}

// A whole run that failed is split so that the failing case is known by name (it may read the
// sources); otherwise the grain decides, and `auto` weighs the split's cost against what it
// saves, measuring a process start with a filter no case matches.
StatusOr<bool> Worker::Splits(const Catalog& c, const std::string& t, size_t cases,
                              ReachGrain grain, const std::set<std::string>* split_as,
                              const ReachRecord& reach) {
  if (cases < 2) return false;
  if (split_as) return split_as->count(t) > 0;
  if (grain != ReachGrain::kAuto) return grain == ReachGrain::kCase;
  if (reach.failed.count(t)) return true;
  Placeholders p = Where(c, {t});
  p.gtest_filter_env = "-*";
  PG_ASSIGN_OR_RETURN(StepResult start, Step(TestArgv(c, p), p, Log("reach-start"), 0));
  return SplitPays(cases, reach.points.at(t).size(), reach.seconds.at(t), start.wall_s);
}

// The baseline in the schemata, one ctest test at a time so that each writes its own reach
// file, then the cases of those split one at a time. A failing test does not stop it: the
// baseline's problem names the first failure, and every test must have run for that to be
// the whole story.
StatusOr<TestRun> Worker::RecordReach(const Catalog& c, const std::vector<std::string>& tests,
                                      ReachGrain grain, const std::set<std::string>* split_as,
                                      ReachRecord* reach) {
  std::string dir = dir_ + "/reached";
  std::error_code ec;
  fs::remove_all(dir, ec);
  PG_RETURN_IF_ERROR(MakeDirs(dir));
  if (!c.test_command.empty() || !c.list_command.empty() || tests.empty()) {
    PG_ASSIGN_OR_RETURN(TestRun run, RecordUnit(c, tests, "", dir + "/0", reach));
    reach->recorded = !run.step.cancelled;
    return run;
  }
  PG_ASSIGN_OR_RETURN(const TestMap* map, Tests(c));
  TestRun all;
  all.step.exit_code = 0;
  int files = 0;
  auto record = [&](const std::string& unit) -> StatusOr<bool> {
    PG_ASSIGN_OR_RETURN(TestRun run,
                        RecordUnit(c, {unit}, unit, dir + "/" + std::to_string(files++), reach));
    MergeTestRun(run, &all);
    return !run.step.cancelled;
  };
  for (const std::string& t : tests) {
    PG_ASSIGN_OR_RETURN(bool going, record(t));
    if (!going) return all;
    std::vector<std::string> cases = map->CasesOf(t);
    PG_ASSIGN_OR_RETURN(bool split, Splits(c, t, cases.size(), grain, split_as, *reach));
    if (!split) continue;
    double whole_s = reach->seconds[t];
    reach->points.erase(t), reach->seconds.erase(t), reach->failed.erase(t), reach->split.insert(t);
    for (const std::string& one : cases) {
      PG_ASSIGN_OR_RETURN(going, record(one));
      if (!going) return all;
      reach->whole[one] = whole_s;
    }
  }
  reach->recorded = true;
  return all;
}

StatusOr<TestRun> Worker::RecordReachRuns(const Catalog& c, const std::vector<std::string>& tests,
                                          int runs, ReachGrain grain, ReachRecord* reach,
                                          std::vector<std::string>* wandered) {
  PG_ASSIGN_OR_RETURN(TestRun first, RecordReach(c, tests, grain, nullptr, reach));
  for (int k = 1; k < runs && !first.step.cancelled; ++k) {
    ReachRecord again;
    PG_ASSIGN_OR_RETURN(TestRun run, RecordReach(c, tests, grain, &reach->split, &again));
    first.step.cancelled = run.step.cancelled;
    if (!run.step.cancelled) UniteReach(again, reach, wandered);
  }
  return first;
}

}  // namespace pg
