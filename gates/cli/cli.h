// What the proofgate CLI's verbs share: flags common to all, exit-code plumbing, reports.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/mutate/mutate_run.h"
#include "gates/range/range_gates.h"
#include "gates/report/ci_output.h"
#include "gates/report/step_progress.h"
#include "gates/runner/leg_result.h"
#include "gates/runner/preflight.h"

namespace pg::cli {

struct CommonFlags {
  std::string dir;
  std::string color = "auto";
  bool quiet = false;
  bool verbose = false;
  bool json = false;
  std::string junit;
  std::string summary;
  std::string html;               // --html FILE: the run as one self-contained page
  std::string codequality;        // --codequality FILE: GitLab Code Quality JSON
  std::string ci = "auto";        // --ci auto|github|gitlab|none
  std::string progress = "auto";  // --progress auto|tty|plain
};

struct PreflightFlags {
  std::vector<std::string> suites;
  std::vector<std::string> legs;  // --leg NAME (repeatable)
  std::string config = pg::kDefaultConfig;
  int jobs = 0;
  bool no_cache = false;
  bool list = false;
  bool no_retry_contended = false;
  std::string log_dir;
  std::string blame_base;
  bool allow_inherited = false;
  std::string shard;  // "K/N"; empty: every leg
  bool staged = false,
       all_files = false;  // the file set legs' `files` match (gates/runner/leg_files.h)
  std::string base;
};

struct LoadFlags {
  bool watch = false;
  double interval_s = 1;
};

struct RangeFlags {
  std::string range;
  bool allow_empty = false;  // a range with no commits passes, said so
  std::string gates;
  pg::RangeOptions options;
  std::set<std::string> set;  // thresholds given on the command line
};

struct MutateFlags {
  std::vector<std::string> catalogs, ids;
  bool list = false, recover = false, no_spec_update = false;
  std::string shard = "1/1";
  int jobs = 1;
  double min_timeout_s = 20;
  double build_timeout_s = 0;
  std::string work_dir;
  std::string changed_since;  // REF: only the mutants a change since REF can affect
  bool allow_empty = false;   // with --changed-since: none affected is a pass, said so
  bool affected = false;      // --changed-since each catalog's table's verified commit
  int max_mutants = 0;        // refuse a larger selection (0: no bound)
  bool generate =
      false;  // --generate [PATHS]: mutants found by libclang (specs/mutate-generate.md)
  std::vector<std::string> generate_paths;
  std::string in_diff, operators;
  bool no_schemata = false;          // a build per generated mutant, as without schemata
  bool no_reach = false;             // every selected test for every generated mutant
  int reach_runs = 1;                // recording runs, their reach united
  std::string reach_grain = "auto";  // auto, case or ctest: which tests reach records case by case
  std::string sarif;                 // --sarif FILE: survivors as SARIF 2.1.0 results
};

struct ProveFlags {
  std::string base, head = "HEAD", tests, work_dir;
  bool allow_empty = false;
};

struct GateFlags {
  std::string onto, verify;
  std::vector<std::string> suites;
  int jobs = 0;
  bool blame = false;  // --blame-base: failed legs rerun on the --onto revision
  bool allow_inherited = false;
};

// "K/N" with 1 <= K <= N into a 0-based index and the count.
Status ParseShard(const std::string& text, int* index, int* count);
// SIGINT/SIGTERM become a readable fd the scheduler polls, so legs are stopped in order.
int InstallCancelPipe();
// Prints the status's message and returns the exit code for it.
int Fail(const Status& status);
// The message of the last Fail: what `--json` reports when a verb ends before its report.
std::string& LastFailure();
bool UseColor(const std::string& mode, int fd);
// Where live progress draws its status line: stderr's fd with --progress tty, or auto on a
// terminal; -1 for plain lines (and with -q, which prints no progress at all).
int LiveFd(const CommonFlags& common);
Status WriteReports(const RunReport& report, const CommonFlags& common);
// The report files a run writes (absolute or relative as given): kept out of tree hashes.
std::vector<std::string> ReportFiles(const CommonFlags& common);
// What the CI system reads (specs/reports.md): --codequality's file, and under GitHub Actions
// the log groups and annotations on stderr and the Markdown appended to the step summary.
Status EmitCi(const CommonFlags& common, const std::string& markdown,
              const std::vector<Annotation>& annotations, const std::string& groups);
// The directory records, specs and anchors are relative to: -C, else the preflight root, else here.
std::string ProjectRoot(const CommonFlags& common);
// root/dir/*ext, relative to root, sorted: the default inputs of records and specs check.
std::vector<std::string> FilesIn(const std::string& root, const std::string& dir,
                                 const std::string& ext);
struct Input {
  std::string name, path;  // as the user or the listing named it; where it is read from
};
// The files a check reads: those `given` (relative to the root unless absolute), else
// root/dir/*ext; none at all is invalid input naming the folder and `what` was looked for.
StatusOr<std::vector<Input>> CheckInputs(const std::string& root, std::vector<std::string> given,
                                         const std::string& dir, const std::string& ext,
                                         const std::string& what);

// mutate's --summary, --html, --codequality and CI output (its table, JSON and JUnit are the
// verb's own: merge-reports and the two mutate verbs print them differently).
Status WriteMutateReports(const MutateReport& report, const CommonFlags& common);
// mutate's progress on stderr, wired into `o`: plain lines, or the live status line; none with -q.
// Close it before the report is printed.
std::unique_ptr<StepProgress> WireMutateProgress(const CommonFlags& common, MutateOptions* o);

// The verbs.
int RunPreflightVerb(const CommonFlags& common, const PreflightFlags& flags);
int RunLoadVerb(const CommonFlags& common, const LoadFlags& flags);
int RunRecordsCheck(const CommonFlags& common, std::vector<std::string> files);
int RunAnchorsCheck(const CommonFlags& common, std::vector<std::string> docs, bool fix,
                    bool allow_empty);
int RunSpecsCheck(const CommonFlags& common, std::vector<std::string> files);
int RunMutateVerb(const CommonFlags& common, const MutateFlags& flags);
int RunGenerateVerb(const CommonFlags& common, const MutateFlags& flags);
// Where mutate keeps its scratch trees: --work-dir, else <git-dir>/proofgate/mutate.
StatusOr<std::string> MutateWorkDir(const std::string& root, const MutateFlags& flags);
int RunProveVerb(const CommonFlags& common, const ProveFlags& flags);
int RunMergeReportsVerb(const CommonFlags& common, const std::vector<std::string>& files);
int RunRange(const CommonFlags& common, RangeFlags flags);
int RunGate(const CommonFlags& common, const GateFlags& flags);
int RunInitVerb(const CommonFlags& common, const std::string& kind);
struct GcFlags {
  bool keep_cache = false, dry_run = false;
};
int RunGcVerb(const CommonFlags& common, const GcFlags& flags);
struct HookFlags {
  std::string hook = "pre-commit";
  std::string suite = "default";
  bool force = false;
};
int RunInstallVerb(const CommonFlags& common, const HookFlags& flags);
int RunUninstallVerb(const CommonFlags& common, const HookFlags& flags);

}  // namespace pg::cli
