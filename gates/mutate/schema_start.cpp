#include "gates/mutate/schema_start.h"

#include <algorithm>

namespace pg {

std::string BaselineProblem(const std::vector<std::string>& tests, const TestRun& run,
                            bool listed) {
  if (run.step.timed_out) return "the expected tests did not finish";
  for (const std::string& t : tests) {
    auto it = run.results.find(t);
    if (it == run.results.end() && listed) continue;
    if (it == run.results.end())
      return t + " did not run on the unmutated tree (is it a test of this build?)";
    if (it->second.failed) {
      // A ctest test's JUnit entry carries no message (only its output): its failing gtest case,
      // when one says why.
      std::string name = t;
      const TestResult* why = &it->second;
      auto says = [](const TestResult& r) {
        return !r.output_only && !r.messages.empty() && !r.messages.front().empty();
      };
      for (const auto& [n, r] : run.results) {
        if (!says(*why) && r.failed && says(r)) name = n, why = &r;
      }
      // The whole assertion (gtest's "Expected equality" spans several lines), up to 40 lines.
      std::string first = why->messages.empty() ? "" : why->messages.front();
      size_t cut = 0;
      for (int line = 0; line < 40 && cut != std::string::npos; ++line)
        cut = first.find('\n', cut + 1);
      return name + " fails on the unmutated tree: " + first.substr(0, cut);
    }
  }
  if (!run.broken.empty())
    return "a test process died on the unmutated tree: " + run.broken.front();
  return "";
}

std::vector<std::string> SelectedTests(const std::vector<MutantJob>& jobs) {
  std::vector<std::string> tests;
  std::set<std::string> seen;
  for (const MutantJob& job : jobs) {
    for (const Expectation& e : job.expect) {
      if (seen.insert(e.test).second) tests.push_back(e.test);
    }
    for (const std::string& t : job.tests) {
      if (seen.insert(t).second) tests.push_back(t);
    }
  }
  return tests;
}

namespace {

// The tests that read the sources and the ctest tests that run them (whole, they fail alike).
std::set<std::string> ReadersAndTheirCtests(Worker& w, const Catalog& c,
                                            const std::set<std::string>& readers) {
  std::set<std::string> out = readers;
  auto map = w.Tests(c);
  for (const std::string& r : readers) {
    if (map.ok() && !(*map)->CtestOf(r).empty()) out.insert((*map)->CtestOf(r));
  }
  return out;
}

// The selection less the tests that read the sources and the ctest tests that run them.
std::vector<std::string> WithoutReaders(Worker& w, const Catalog& c, std::vector<std::string> tests,
                                        const std::set<std::string>& readers) {
  std::set<std::string> drop = ReadersAndTheirCtests(w, c, readers);
  tests.erase(std::remove_if(tests.begin(), tests.end(),
                             [&](const std::string& t) { return drop.count(t) > 0; }),
              tests.end());
  return tests;
}

// Tests red in the schemata with no mutant on that pass alone on the unmutated tree read the
// sources, which the schemata rewrite: found by running them with the schemata removed, which
// are then applied again (the same build: ccache serves it). Each test on its own: one red on
// the unmutated tree too (flaky, or red) is no reader, and stays red. False when none reads.
StatusOr<bool> FindReaders(Worker& first, const Catalog& c, double build_s, SchemaStart* out) {
  std::vector<std::string> failed(out->reach.failed.begin(), out->reach.failed.end());
  if (failed.empty() || out->reach.points.count(""))
    return false;  // a whole command reads nothing apart
  PG_RETURN_IF_ERROR(first.RemoveSchemata(c));
  PG_ASSIGN_OR_RETURN(TestRun plain, first.RunTests(c, failed, 0));
  std::string note;
  std::set<int> settled = first.schemata_off();  // the search's outcome: one build this time
  PG_ASSIGN_OR_RETURN(std::set<int> again, first.ApplySchemata(c, build_s, &note, &settled));
  if (again != out->numbers)
    return Status::Internal("the schemata built differently the second time: " + note);
  out->interrupted = plain.step.cancelled;
  if (out->interrupted || plain.step.timed_out) return false;
  std::vector<std::string> readers;
  for (const std::string& t : failed) {
    auto it = plain.results.find(t);
    if (it != plain.results.end() && !it->second.failed) readers.push_back(t);
  }
  if (readers.empty()) return false;
  out->reach.sources.insert(readers.begin(), readers.end());
  out->note += "; " + std::to_string(readers.size()) +
               " test(s) fail in the schemata but pass on the unmutated tree " +
               "(they read the sources; first: " + readers.front() +
               "): they judge survivors in a build of their own";
  return true;
}

// What `run` (the schemata's, no mutant on) has red beside the tests that read the sources:
// `problem` stays when none reads them. A reader's ctest test leaves the check whole, so its
// cases that failed and read nothing (red alone, flaky) are named by themselves.
Status SourceReaders(Worker& first, const Catalog& c, double build_s,
                     const std::vector<std::string>& tests, const TestRun& run, SchemaStart* out,
                     std::string* problem) {
  PG_ASSIGN_OR_RETURN(bool readers, FindReaders(first, c, build_s, out));
  if (!readers) return Status();
  std::vector<std::string> red;
  for (const std::string& t : out->reach.failed) {
    if (!out->reach.sources.count(t)) red.push_back(t);
  }
  *problem = BaselineProblem(red, run, true);
  if (problem->empty())
    *problem = BaselineProblem(WithoutReaders(first, c, tests, out->reach.sources), run, true);
  return Status();
}

}  // namespace

// Worker 0 builds the catalog's schemata and runs the selected tests with no mutant on: green,
// or nothing runs in the schemata, which are removed again (the unmutated tree's own run then
// tells a red tree from a rewrite that changed what the code does).
StatusOr<SchemaStart> SchemataOnFirst(const MutateOptions& o, Worker& first,
                                      const std::vector<MutantJob>& jobs, double build_s) {
  SchemaStart out;
  const Catalog& c = *jobs.front().catalog;
  if (!o.schemata || c.schemata.empty()) return out;
  PG_ASSIGN_OR_RETURN(out.numbers, first.ApplySchemata(c, build_s, &out.note));
  if (out.numbers.empty()) return out;
  std::vector<std::string> tests = SelectedTests(jobs);
  std::vector<std::string> wandered;
  PG_ASSIGN_OR_RETURN(
      TestRun run,
      o.reach ? first.RecordReachRuns(c, tests, o.reach_runs, o.reach_grain, &out.reach, &wandered)
              : first.RunTests(c, tests, 0));
  if (!wandered.empty()) {
    out.note += "; " + std::to_string(wandered.size()) +
                " test(s) reached different points on the " + std::to_string(o.reach_runs) +
                " recording runs (first: " + wandered.front() +
                "): each counts what it reached on any";
  }
  out.interrupted = run.step.cancelled;
  std::string problem = out.interrupted ? "interrupted" : BaselineProblem(tests, run, true);
  if (!problem.empty() && !out.interrupted && !out.reach.failed.empty()) {
    PG_RETURN_IF_ERROR(SourceReaders(first, c, build_s, tests, run, &out, &problem));
  }
  if (!problem.empty() && !out.interrupted && out.reach.recorded) {
    // Tests that pass together but not one at a time (an order they depend on) lose reach,
    // not the schemata.
    PG_ASSIGN_OR_RETURN(run, first.RunTests(c, tests, 0));
    out.interrupted = run.step.cancelled;
    // Readers stay out of the schemata: cases run in their ctest test's one process here.
    std::set<std::string> sources = ReadersAndTheirCtests(first, c, out.reach.sources);
    std::string together =
        out.interrupted ? "interrupted"
                        : BaselineProblem(WithoutReaders(first, c, tests, sources), run, true);
    if (together.empty())
      out.note +=
          "; the tests fail one at a time (" + problem + "): every mutant runs all its tests";
    out.reach = ReachRecord();
    out.reach.sources = std::move(sources);
    problem = together;
  }
  if (problem.empty()) {
    out.baseline = std::move(run);
    return out;
  }
  out.reach = ReachRecord();
  out.note = "the schematized build is not green with no mutant on (" + problem +
             "): every mutant gets a build of its own";
  PG_RETURN_IF_ERROR(first.RemoveSchemata(c));
  out.numbers.clear();
  return out;
}

// How the recording run ran `tests`: what the baseline's notice says about reach.
std::string Grain(const ReachRecord& reach, size_t tests) {
  if (!reach.recorded) return "";
  std::string out = ", each alone to record which mutants it reaches";
  if (reach.points.count("")) return out;
  return out + " (" + std::to_string(tests - reach.split.size()) + " whole, " +
         std::to_string(reach.split.size()) + " case by case)";
}

}  // namespace pg
