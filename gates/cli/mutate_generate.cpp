// `proofgate mutate --generate`: build the tree once, find mutants with libclang, run each on the
// declared engine's workers (specs/mutate-generate.md).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "gates/cli/cli.h"
#include "gates/config/suite_config.h"
#include "gates/core/exit_code.h"
#include "gates/core/file_io.h"
#include "gates/core/own_outputs.h"
#include "gates/generate/discover.h"
#include "gates/git/git.h"
#include "gates/mutate/commands.h"
#include "gates/mutate/mutate_report.h"
#include "gates/mutate/mutate_run.h"

namespace pg::cli {
namespace {

// What the generated catalog builds and tests with: suites.json's "commands" when it says, else
// CMake + ctest (a test_command of its own is run whole for each mutant); and the files it
// never parses.
Status Settings(const std::string& root, Catalog* c, DiscoverOptions* d) {
  c->path = "(generated)";
  std::error_code ec;
  if (!std::filesystem::exists(root + "/" + kDefaultConfig, ec)) return Status();
  PG_ASSIGN_OR_RETURN(SuiteConfig config,
                      LoadSuiteConfig(root + "/" + kDefaultConfig, kDefaultConfig));
  ScratchCommands own;
  own.FillFrom(config.commands);
  std::tie(c->build_targets, c->configure, c->build_command, c->test_command, c->list_command) =
      std::tie(own.build_targets, own.configure, own.build_command, own.test_command,
               own.list_command);
  // libclang reads the compile database: a CMake configure of suites.json (`proofgate init`
  // writes one) that does not ask for it gets the flag, as the default configure has it.
  bool cmake =
      !c->configure.empty() && std::filesystem::path(c->configure.front()).filename() == "cmake";
  bool exported = std::any_of(c->configure.begin(), c->configure.end(), [](const std::string& a) {
    return a.find("CMAKE_EXPORT_COMPILE_COMMANDS") != std::string::npos;
  });
  if (cmake && !exported) c->configure.push_back("-DCMAKE_EXPORT_COMPILE_COMMANDS=ON");
  d->exclude = config.generate.exclude;
  return Status();
}

// What discovery leaves for the verb to say after the run returns.
struct Found {
  std::string problem;  // the unmutated tree does not build or list its tests
  size_t count = 0;
  bool over_limit = false;
  std::vector<Mutation> mutations;
};

// The tests a generated mutant can run: the build's ctest listing, or, for a project tested by
// its own command, that command whole: one test that reaches every file.
StatusOr<std::vector<CtestTest>> TestsOf(Worker& w, const Catalog& c,
                                         const std::function<void(const std::string&)>& notice) {
  if (c.test_command.empty() && c.list_command.empty()) {
    PG_ASSIGN_OR_RETURN(std::string listing, w.ListTests(c));
    return ParseCtestTests(listing);
  }
  if (notice)
    notice(
        "each mutant runs the whole test command (\"test_command\": no ctest listing to choose "
        "tests from)");
  return std::vector<CtestTest>{{"(test_command)", {}, "", {}}};
}

// Where the compilation database is: the build directory's (CMake's), else the scratch tree's
// own (`bear -- make` writes it where the build runs); neither is a problem saying how to get one.
std::string DatabaseDir(Worker& w, const Catalog& c, std::string* problem) {
  std::error_code ec;
  for (const std::string& dir : {w.BuildDir(c), w.tree()}) {
    if (std::filesystem::exists(dir + "/compile_commands.json", ec)) return dir;
  }
  *problem = "no compile_commands.json in " + w.BuildDir(c) + " nor in the scratch tree " +
             w.tree() +
             ": CMake writes one with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON (proofgate adds it to a "
             "CMake configure); "
             "another build can run under bear (\"build_command\": [\"bear\", \"--\", \"make\"]), "
             "which writes it "
             "where the build runs";
  return "";
}

// Worker 0 builds the tree (its ctest listing, if it is tested through ctest, is the test map),
// then libclang finds the mutants in the build's compile commands.
Status Discover(Worker& w, std::vector<Catalog>* catalogs, const Catalog& base,
                const DiscoverOptions& d, const MutateFlags& flags,
                const std::function<void(const std::string&)>& notice, Found* found) {
  catalogs->push_back(base);
  Catalog& c = catalogs->back();
  bool interrupted = false;
  PG_RETURN_IF_ERROR(w.Prepare(c, &found->problem, &interrupted));
  if (interrupted) return Status::Invalid("interrupted while building the unmutated tree");
  if (!found->problem.empty()) return Status();
  PG_ASSIGN_OR_RETURN(std::vector<CtestTest> tests, TestsOf(w, c, notice));
  std::string database = DatabaseDir(w, c, &found->problem);
  if (!found->problem.empty()) return Status();
  PG_ASSIGN_OR_RETURN(Discovered discovered, DiscoverMutants(d, w.tree(), database, tests));
  for (const std::string& n : discovered.notices) {
    if (notice) notice(n);
  }
  found->count = discovered.mutations.size();
  found->mutations = discovered.mutations;
  found->over_limit =
      flags.max_mutants > 0 && found->count > static_cast<size_t>(flags.max_mutants) && !flags.list;
  if (!found->over_limit) c.mutations = std::move(discovered.mutations);
  if (!found->over_limit) c.schemata = std::move(discovered.schemata);
  if (notice) notice(std::to_string(found->count) + " generated mutant(s)");
  return Status();
}

void List(const std::vector<Mutation>& mutations) {
  for (const Mutation& m : mutations) {
    std::cout << m.id << "  " << m.change << "  runs " << m.tests.size() << " test(s)\n";
  }
}

// Each survivor with its diff and the tests that let it live: what a reviewer acts on.
void ShowSurvivors(const MutateReport& report) {
  for (const MutantResult& r : report.results) {
    if (r.outcome != MutantOutcome::kSurvived || !r.generated) continue;
    std::cout << "\nsurvived: " << r.id << "\n"
              << r.generated->diff << "tests that ran (" << r.generated->tests.size() << "):";
    for (size_t i = 0; i < r.generated->tests.size() && i < 10; ++i)
      std::cout << " " << r.generated->tests[i];
    std::cout << (r.generated->tests.size() > 10 ? " …" : "") << "\n";
  }
}

MutateOptions Options(const std::string& root, const MutateFlags& flags) {
  MutateOptions o;
  o.root = root;
  o.ids = flags.ids;
  o.jobs = flags.jobs;
  o.min_timeout_s = flags.min_timeout_s;
  o.build_timeout_s = flags.build_timeout_s;
  o.discover_only = flags.list;
  o.schemata = !flags.no_schemata;
  o.reach = !flags.no_reach;
  o.reach_runs = flags.reach_runs;
  o.reach_grain = flags.reach_grain == "case"    ? ReachGrain::kCase
                  : flags.reach_grain == "ctest" ? ReachGrain::kCtest
                                                 : ReachGrain::kAuto;
  return o;
}

// The flags, suites.json's settings and the commands, in that order: a bad flag is named first.
Status Checked(const std::string& root, const MutateFlags& flags, Catalog* base,
               DiscoverOptions* d) {
  if (!flags.operators.empty()) {
    PG_ASSIGN_OR_RETURN(d->ops, ParseOperators(flags.operators));
  }
  PG_RETURN_IF_ERROR(Settings(root, base, d));
  PG_RETURN_IF_ERROR(CheckDiscoverOptions(*d));
  return CheckScratchCommands(root, base->configure, "a catalog");
}

}  // namespace

int RunGenerateVerb(const CommonFlags& common, const MutateFlags& flags) {
  std::string root = ProjectRoot(common);
  DiscoverOptions d{root, flags.generate_paths, flags.in_diff, AllOperators(), {}};
  Catalog base;
  Status checked = Checked(root, flags, &base, &d);
  MutateOptions o = Options(root, flags);
  if (checked.ok()) checked = ParseShard(flags.shard, &o.shard_index, &o.shard_count);
  auto work_dir = MutateWorkDir(root, flags);
  if (checked.ok()) checked = work_dir.status();
  if (!checked.ok()) return Fail(checked);
  o.work_dir = *work_dir;
  o.cancel_fd = InstallCancelPipe();
  std::unique_ptr<StepProgress> progress = WireMutateProgress(common, &o);
  Found found;
  o.discover = [&](Worker& w, std::vector<Catalog>* catalogs) {
    return Discover(w, catalogs, base, d, flags, o.on_notice, &found);
  };
  auto tree = git::WorkingTreeHash(root, InsideTree(root, OwnOutputFiles(ReportFiles(common))));
  auto report = RunMutate(o);
  if (progress) progress->Close();
  if (!report.ok()) return Fail(report.status());
  if (!found.problem.empty()) {
    std::cout << "baseline not green: " << found.problem << "\n";
    return static_cast<int>(ExitCodeOf(ResultClass::kFail));
  }
  if (flags.list) return List(found.mutations), static_cast<int>(ExitCodeOf(ResultClass::kPass));
  if (found.over_limit) {
    std::cerr << "mutate: " << found.count << " generated mutants, more than --max-mutants "
              << flags.max_mutants << ": narrow them with PATHS, --in-diff or --operators\n";
    return static_cast<int>(ExitCodeOf(ResultClass::kUnproven));  // nothing ran
  }
  if (found.count == 0) {
    std::cerr << "mutate: no generated mutant: this run checked nothing"
              << (flags.allow_empty ? " (--allow-empty)" : "") << "\n";
    return static_cast<int>(
        ExitCodeOf(flags.allow_empty ? ResultClass::kPass : ResultClass::kUnproven));
  }
  report->tree_hash = tree.ok() ? *tree : "";
  report->shard_index = o.shard_index + 1;
  report->shard_count = o.shard_count;
  if (common.json)
    std::cout << MutateReportJson(*report);
  else
    WriteMutateTable(*report, std::cout, UseColor(common.color, STDOUT_FILENO)),
        ShowSurvivors(*report);
  std::cout.flush();
  Status written =
      common.junit.empty() ? Status() : WriteFileAtomic(common.junit, MutateReportJunit(*report));
  if (written.ok() && !flags.sarif.empty())
    written = WriteFileAtomic(flags.sarif, MutateReportSarif(*report));
  if (written.ok()) written = WriteMutateReports(*report, common);
  if (!written.ok()) return Fail(written);
  return MutateExitCode(*report);
}

}  // namespace pg::cli
