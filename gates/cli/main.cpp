// proofgate CLI: flags → library calls → exit code. Nothing here decides a verdict; the verbs
// live in gates/cli/, and this file is the only one that includes CLI11.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "gates/cli/cli.h"
#include "gates/core/exit_code.h"
#include "gates/core/integer_text.h"
#include "gates/report/writers.h"
#include "gates/runner/preflight.h"

namespace {

using namespace pg::cli;

void AddCommonFlags(CLI::App& app, CommonFlags& common) {
  app.add_option("-C", common.dir, "Run as if started in DIR (the repository root)");
  app.add_option("--color", common.color, "Colour output: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("-q,--quiet", common.quiet, "No progress lines on stderr");
  app.add_flag("-v,--verbose", common.verbose, "Print argv of each leg and the output of red ones");
  app.add_flag("--json", common.json, "Print one JSON document on stdout instead of the table");
  app.add_option("--junit", common.junit, "Also write JUnit XML to FILE");
  app.add_option("--summary", common.summary, "Also write a Markdown summary to FILE");
  app.add_option("--html", common.html,
                 "Also write the run as one self-contained HTML page to FILE");
  app.add_option("--codequality", common.codequality,
                 "Also write GitLab Code Quality JSON to FILE");
  app.add_option("--ci", common.ci,
                 "CI integration: auto (GITHUB_ACTIONS=true: GitHub), github, gitlab or none")
      ->check(CLI::IsMember({"auto", "github", "gitlab", "none"}));
  app.add_option("--progress", common.progress,
                 "Progress on stderr: auto (a status line on a terminal), tty or plain")
      ->check(CLI::IsMember({"auto", "tty", "plain"}));
}

// "-j 0" answered in words (CLI11's PositiveNumber prints its range as two doubles).
CLI::Validator WholeNumberFromOne(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        std::optional<long> n = pg::ParseInteger(text);
        if (n && *n >= 1 && *n <= 4096) return "";
        return what + " must be a whole number from 1 to 4096, got " + text;
      },
      "1..4096");
}

// A duration flag: any finite number of seconds > 0 (a century or more is no limit:
// gates/core/seconds.h); "1e999" and "inf" are refused naming the flag, not printed as 309 digits.
CLI::Validator FiniteSeconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        double v = std::strtod(text.c_str(), &end);
        bool whole = end && *end == '\0' && end != text.c_str();
        if (whole && errno == 0 && std::isfinite(v) && v > 0) return "";
        return "must be a finite number of seconds > 0, got " +
               text;  // CLI11 names the flag before it
      },
      "SECONDS");
}

// The report flags each verb writes; one it would silently drop is refused instead.
const std::map<std::string, std::set<std::string>> kReports = {
    {"preflight", {"--json", "--junit", "--summary", "--html"}},
    {"specs check", {"--json", "--junit", "--summary", "--html"}},
    {"gate", {"--json", "--junit", "--summary", "--html"}},
    {"merge-reports", {"--json", "--junit", "--summary", "--html", "--codequality"}},
    {"mutate", {"--json", "--junit", "--summary", "--html", "--codequality"}},
    {"records check", {"--json"}},
    {"range", {"--json"}},
    {"load", {"--json"}},
    {"prove", {"--json", "--html"}},
    {"anchors check", {"--codequality"}},
    {"init", {}},
    {"gc", {}},
    {"install", {}},
    {"uninstall", {}}};

std::string FullName(const CLI::App* command) {
  const CLI::App* parent = command->get_parent();
  return parent && parent->get_parent() ? parent->get_name() + " " + command->get_name()
                                        : command->get_name();
}

std::string CommonFlagsHelp(const std::string& verb) {
  std::string help =
      "\nCommon flags (before or after the verb): -C DIR (as cd DIR), --color auto|always|never, "
      "--progress auto|tty|plain, --ci auto|github|gitlab|none, -q, -v";
  auto it = kReports.find(verb);
  for (const std::string& flag : it == kReports.end() ? std::set<std::string>{} : it->second) {
    help += ", " + flag + (flag == "--json" ? "" : " FILE");
  }
  return help;
}

std::string IgnoredReportFlag(const std::string& verb, const CommonFlags& common) {
  auto it = kReports.find(verb);
  if (it == kReports.end()) return "";
  for (auto [flag, given] : {std::pair{"--json", common.json},
                             {"--junit", !common.junit.empty()},
                             {"--summary", !common.summary.empty()},
                             {"--html", !common.html.empty()},
                             {"--codequality", !common.codequality.empty()}}) {
    if (given && !it->second.count(flag))
      return std::string(flag) + ": `proofgate " + verb + "` does not write it";
  }
  return "";
}

// Each verb: its subcommand and what runs when it was the one parsed.
struct Verb {
  CLI::App* command;
  std::function<int()> run;
};
using Verbs = std::vector<Verb>;

void AddPreflight(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<PreflightFlags>();
  CLI::App* preflight =
      app.add_subcommand("preflight", "Run named suites of legs (default: \"default\")");
  preflight->add_option("suites", flags->suites,
                        "Suites to run (a name no suite has may name a leg)");
  preflight
      ->add_option("--leg", flags->legs,
                   "Run this leg and what it needs (repeatable; no suite then runs unless named)")
      ->allow_extra_args(false);  // `--leg b default`: one leg, then a suite name, not two legs
  preflight->add_option("--config", flags->config, "Suites file, relative to the root");
  preflight->add_option("-j,--jobs", flags->jobs, "Legs run at once (default: CPUs)")
      ->check(WholeNumberFromOne("legs run at once"));
  preflight->add_flag("--no-cache", flags->no_cache, "Run every leg even if a pass is cached");
  preflight->add_flag("--list", flags->list, "List the suites and their legs, run nothing");
  preflight->add_option("--log-dir", flags->log_dir,
                        "Write leg logs here instead of <git-dir>/proofgate/logs");
  preflight->add_flag(
      "--no-retry-contended", flags->no_retry_contended,
      "Report timing legs that failed under foreign load as contended, without a rerun");
  preflight->add_option("--blame-base", flags->blame_base,
                        "Rerun failed legs on REF's tree; the same failure there is \"inherited\"");
  preflight->add_flag("--allow-inherited", flags->allow_inherited,
                      "Inherited failures do not fail the run");
  preflight->add_option("--shard", flags->shard,
                        "Run shard K of N (K/N, 1-based) of the suites' legs, for CI jobs");
  CLI::Option* staged = preflight->add_flag(
      "--staged", flags->staged,
      "Run on the staged content (unstaged changes set aside); legs' files match staged files");
  CLI::Option* base = preflight->add_option(
      "--base", flags->base, "Legs' files match the files changed since REF's merge base");
  CLI::Option* all = preflight->add_flag("--all-files", flags->all_files,
                                         "Legs' files match every file of the tree (the default)");
  staged->excludes(base)->excludes(all);
  base->excludes(all);
  verbs.push_back(Verb{preflight, [&common, flags] { return RunPreflightVerb(common, *flags); }});
  auto load_flags = std::make_shared<LoadFlags>();
  CLI::App* load = app.add_subcommand(
      "load", "Print the machine's current load reading (foreign share, signals)");
  load->add_flag("--watch", load_flags->watch, "Print a reading every interval until interrupted");
  load->add_option("--interval", load_flags->interval_s, "Seconds per reading (default 1)")
      ->check(FiniteSeconds());
  verbs.push_back(Verb{load, [&common, load_flags] { return RunLoadVerb(common, *load_flags); }});
}

// `records check`, `anchors check`, `specs check`: a noun with one verb, files as arguments.
void AddChecks(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto fix = std::make_shared<bool>(false);
  auto add = [&](const char* noun, const char* about, const char* check_about) {
    CLI::App* parent = app.add_subcommand(noun, about);
    parent->require_subcommand(1);
    CLI::App* check = parent->add_subcommand("check", check_about);
    check->add_option("files", *files, "Files (default: all of this kind)");
    return check;
  };
  CLI::App* records = add("records", "Pinned values: each observed field against its own constant",
                          "Observe every field and check it and the relations");
  verbs.push_back(Verb{records, [&common, files] { return RunRecordsCheck(common, *files); }});
  CLI::App* anchors = add("anchors", "path:line anchors in Markdown, re-verified against the tree",
                          "Check every anchor (default: all *.md files)");
  anchors->add_flag("--fix", *fix, "Rewrite stale line numbers in place");
  auto allow_empty = std::make_shared<bool>(false);
  anchors->add_flag("--allow-empty", *allow_empty,
                    "Pass when the files hold no anchor (default: fail, nothing was checked)");
  verbs.push_back(Verb{anchors, [&common, files, fix, allow_empty] {
                         return RunAnchorsCheck(common, *files, *fix, *allow_empty);
                       }});
  CLI::App* specs = add("specs", "Specs: required sections, and their ## Gates run verbatim",
                        "Check every spec (default: specs/*.md) and run its gates");
  verbs.push_back(Verb{specs, [&common, files] { return RunSpecsCheck(common, *files); }});
}

void AddRange(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<RangeFlags>();
  CLI::App* range = app.add_subcommand("range", "Gates over each commit of BASE..HEAD");
  range->add_option("range", flags->range, "BASE..HEAD")->required();
  range->add_flag("--allow-empty", flags->allow_empty,
                  "Pass a range with no commits (default: fail, nothing was checked)");
  range->add_option("--gate", flags->gates,
                    "Comma-separated: commit-style,change-size,spec-order (default), "
                    "tree-compiles, trailers, owed-owners");
  auto threshold = [&](const char* flag, const char* key, auto* value, const char* about) {
    range->add_option(flag, *value, about)->each([flags, key](const std::string&) {
      flags->set.insert(key);
    });
  };
  threshold("--subject-max", "subject_max", &flags->options.subject_max,
            "Longest subject line (72)");
  threshold("--body-max", "body_max", &flags->options.body_max, "Longest body line (72)");
  threshold("--max-lines", "max_lines", &flags->options.max_lines,
            "Most lines changed per commit (2000)");
  threshold("--max-files", "max_files", &flags->options.max_files,
            "Most files touched per commit (60)");
  threshold("--exclude", "exclude", &flags->options.exclude, "Globs change-size does not count");
  threshold("--build-leg", "build_leg", &flags->options.build_leg,
            "tree-compiles: the leg that builds a tree (build)");
  threshold("--issues", "issues", &flags->options.issues,
            "owed-owners: the tracker's issue snapshot (JSON)");
  verbs.push_back(Verb{range, [&common, flags] { return RunRange(common, *flags); }});
}

void AddGate(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<GateFlags>();
  CLI::App* gate =
      app.add_subcommand("gate", "Gate the merged tree that would land, or verify that verdict");
  auto* onto = gate->add_option("--onto", flags->onto,
                                "Merge HEAD into REF and run the suites on the result");
  auto* verify = gate->add_option("--verify", flags->verify,
                                  "Pass only if HEAD's verdict is for what would land on REF now");
  onto->excludes(verify);
  gate->add_option("suites", flags->suites, "Suites to run (default: \"default\")");
  gate->add_option("-j,--jobs", flags->jobs, "Legs run at once (default: CPUs)")
      ->check(WholeNumberFromOne("legs run at once"));
  gate->add_flag(
      "--blame-base", flags->blame,
      "Rerun failed legs on the --onto revision; the same failure there is \"inherited\"");
  gate->add_flag("--allow-inherited", flags->allow_inherited,
                 "Inherited failures do not fail the gate");
  gate->callback([flags] {
    if (flags->onto.empty() && flags->verify.empty())
      throw CLI::RequiredError("--onto or --verify");
  });
  verbs.push_back(Verb{gate, [&common, flags] { return RunGate(common, *flags); }});
}

void AddMutate(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<MutateFlags>();
  CLI::App* mutate =
      app.add_subcommand("mutate", "Apply declared mutations; prove each test reddens as claimed");
  mutate->add_option("--catalog", flags->catalogs, "Catalog files (default: mutations/*.json)");
  auto* list = mutate->add_flag("--list", flags->list,
                                "Validate the catalogs and list their mutants; run nothing");
  auto* recover =
      mutate->add_flag("--recover", flags->recover,
                       "Put back every file an interrupted run left mutated (sha256-checked)");
  list->excludes(recover);
  mutate->add_option("--id", flags->ids, "Run only this mutation or combo (repeatable)");
  mutate->add_option("--shard", flags->shard, "Run shard K of N (K/N, 1-based)");
  mutate
      ->add_option("-j,--jobs", flags->jobs,
                   "Workers, each with its own scratch tree and build (default 1)")
      ->check(WholeNumberFromOne("workers"));
  mutate
      ->add_option("--min-timeout", flags->min_timeout_s,
                   "Floor of a mutant's test time limit in s (default 20)")
      ->check(FiniteSeconds());
  mutate
      ->add_option("--build-timeout", flags->build_timeout_s,
                   "A mutant's build limit in s (default: max(3 x the baseline build, 600)); past "
                   "it: unviable")
      ->check(FiniteSeconds());
  mutate->add_option("--work-dir", flags->work_dir,
                     "Scratch trees, builds and journal (default <git-dir>/proofgate/mutate)");
  mutate->add_flag("--no-spec-update", flags->no_spec_update,
                   "Leave the specs' generated tables as they are");
  mutate->add_option("--changed-since", flags->changed_since,
                     "Only the mutants a change since REF can affect: their file, catalog, "
                     "expected tests or affected_by");
  auto* affected = mutate->add_flag(
      "--affected", flags->affected,
      "Only the mutants a change since each spec table's verified commit can affect");
  affected->excludes(mutate->get_option("--changed-since"));
  mutate->add_flag(
      "--allow-empty", flags->allow_empty,
      "With --changed-since or --affected: no affected mutant passes (default: fails)");
  mutate
      ->add_option("--max-mutants", flags->max_mutants,
                   "Refuse to run more mutants than N (exit 1 before building)")
      ->check(WholeNumberFromOne("mutants"));
  auto* generate =
      mutate
          ->add_option(
              "--generate", flags->generate_paths,
              "Mutants found by a C++ parser in the compiled files under PATHS (default: all)")
          ->expected(0, -1);
  generate->excludes(mutate->get_option("--catalog"))->excludes(recover)->excludes(affected);
  generate->excludes(mutate->get_option("--changed-since"));
  mutate
      ->add_option("--in-diff", flags->in_diff,
                   "With --generate: only mutants on lines changed since the merge base with BASE")
      ->needs(generate);
  mutate
      ->add_option("--operators", flags->operators,
                   "With --generate: a comma list of "
                   "relational,equality,arithmetic,logical,negate,not,constant,"
                   "return,call (default: all)")
      ->needs(generate);
  mutate
      ->add_option("--sarif", flags->sarif,
                   "With --generate: write the survivors to FILE as SARIF 2.1.0")
      ->needs(generate);
  mutate
      ->add_flag(
          "--no-schemata", flags->no_schemata,
          "With --generate: build each mutant on its own instead of all of a file's in one schema")
      ->needs(generate);
  mutate
      ->add_flag("--no-reach", flags->no_reach,
                 "With --generate: run every selected test for every mutant, not only the tests "
                 "that reached it "
                 "(for tests that are not deterministic)")
      ->needs(generate);
  mutate
      ->add_option("--reach-runs", flags->reach_runs,
                   "With --generate: record which tests reach each mutant N times and unite them "
                   "(default 1; more "
                   "where tests' paths depend on timing or earlier runs)")
      ->check(WholeNumberFromOne("recording runs"))
      ->needs(generate)
      ->excludes(mutate->get_option("--no-reach"));
  mutate
      ->add_option("--reach-grain", flags->reach_grain,
                   "With --generate: record a ctest test's gtest cases one by one (case), never "
                   "(ctest), or when "
                   "the mutants it reaches save more than that costs (auto, the default)")
      ->check(CLI::IsMember({"auto", "case", "ctest"}))
      ->needs(generate)
      ->excludes(mutate->get_option("--no-reach"));
  verbs.push_back(Verb{mutate, [&common, flags, generate] {
                         if (generate->count() == 0) return RunMutateVerb(common, *flags);
                         flags->generate = true;
                         return RunGenerateVerb(common, *flags);
                       }});
}

void AddProve(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<ProveFlags>();
  CLI::App* prove = app.add_subcommand(
      "prove", "Prove a change: new tests red before, green after; nothing lost or broken");
  prove->add_option("--base", flags->base, "The revision the change is measured against")
      ->required();
  prove->add_option("--head", flags->head, "The revision holding the change (default HEAD)");
  prove->add_option("--tests", flags->tests, "Only the added or changed tests this regex finds");
  prove->add_flag("--allow-empty", flags->allow_empty,
                  "Pass a change that adds or changes no test (default: fail, it proves nothing)");
  prove->add_option("--work-dir", flags->work_dir,
                    "Trees and builds (default <git-dir>/proofgate/prove)");
  verbs.push_back(Verb{prove, [&common, flags] { return RunProveVerb(common, *flags); }});
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* merge =
      app.add_subcommand("merge-reports", "Combine the JSON reports of CI shards into one verdict");
  merge
      ->add_option("files", *files,
                   "JSON reports of `preflight --shard K/N` or `mutate --shard K/N`")
      ->required();
  verbs.push_back(Verb{merge, [&common, files] { return RunMergeReportsVerb(common, *files); }});
}

}  // namespace

// `install` and `uninstall`: the git hook that runs a suite before each commit or push.
void AddHooks(CLI::App& app, CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<HookFlags>();
  CLI::App* install = app.add_subcommand(
      "install", "Write the git hook that runs a suite before each commit (or push)");
  CLI::App* uninstall = app.add_subcommand(
      "uninstall", "Remove proofgate's git hook (and put back the one it replaced)");
  for (CLI::App* verb : {install, uninstall}) {
    verb->add_option("--hook", flags->hook, "pre-commit (default) or pre-push")
        ->check(CLI::IsMember({"pre-commit", "pre-push"}));
  }
  install->add_option("--suite", flags->suite,
                      "The suite (or leg) the hook runs (default: default)");
  install->add_flag("--force", flags->force,
                    "Move a hook proofgate did not write to <hook>.old instead of refusing");
  verbs.push_back(Verb{install, [&common, flags] { return RunInstallVerb(common, *flags); }});
  verbs.push_back(Verb{uninstall, [&common, flags] { return RunUninstallVerb(common, *flags); }});
}

// Counts what goes to stdout: a verb that ended in an error having written nothing there gets
// an error document under --json instead of an empty stdout.
class CountingBuf : public std::streambuf {
 public:
  explicit CountingBuf(std::streambuf* out) : out_(out) {}
  size_t count() const { return count_; }

 protected:
  int overflow(int c) override {
    count_ += c != EOF;
    return c == EOF ? 0 : out_->sputc(static_cast<char>(c));
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    count_ += static_cast<size_t>(n);
    return out_->sputn(s, n);
  }
  int sync() override { return out_->pubsync(); }

 private:
  std::streambuf* out_;
  size_t count_ = 0;
};

int RunVerb(const Verb& verb, const CommonFlags& common) {
  CountingBuf counting(std::cout.rdbuf());
  std::streambuf* real = std::cout.rdbuf(&counting);
  int code = verb.run();
  std::cout.rdbuf(real);
  auto exit_code = static_cast<pg::ExitCode>(code);
  bool error = exit_code == pg::ExitCode::kInvalidInput || exit_code == pg::ExitCode::kInternal;
  if (common.json && error && counting.count() == 0) {
    std::cout << pg::ErrorReportJson(FullName(verb.command), LastFailure(), exit_code)
              << std::flush;
  }
  return code;
}

int main(int argc, char** argv) {
  CLI::App app{"proofgate: preflight suites, mutation proofs, records and merge gates"};
  app.require_subcommand(1);
  app.fallthrough();
  CommonFlags common;
  AddCommonFlags(app, common);
  Verbs verbs;
  verbs.reserve(16);
  AddPreflight(app, common, verbs);
  AddChecks(app, common, verbs);
  AddRange(app, common, verbs);
  AddGate(app, common, verbs);
  AddMutate(app, common, verbs);
  AddProve(app, common, verbs);
  CLI::App* init = app.add_subcommand(
      "init", "Write a commented preflight/suites.json for the project here (never overwrites)");
  auto init_kind = std::make_shared<std::string>();
  init->add_option("--kind", *init_kind,
                   "The build system to write legs for (default: the one that registers tests)")
      ->check(CLI::IsMember({"cmake", "meson", "cargo", "pytest", "npm", "make"}));
  verbs.push_back(Verb{init, [&common, init_kind] { return RunInitVerb(common, *init_kind); }});
  auto gc_flags = std::make_shared<GcFlags>();
  CLI::App* gc = app.add_subcommand(
      "gc", "What proofgate keeps on disk (scratch trees, builds, logs, cache), and removing it");
  gc->add_flag("--keep-cache", gc_flags->keep_cache, "Keep the cached passes");
  gc->add_flag("--dry-run", gc_flags->dry_run, "Only report sizes");
  verbs.push_back(Verb{gc, [&common, gc_flags] { return RunGcVerb(common, *gc_flags); }});
  AddHooks(app, common, verbs);
  app.set_version_flag("--version", std::string("proofgate ") + PG_VERSION);
  for (const Verb& verb : verbs) verb.command->footer(CommonFlagsHelp(FullName(verb.command)));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(pg::ExitCodeFor(pg::Status::Invalid(e.what())));
  }
  for (const Verb& verb : verbs) {
    if (!verb.command->parsed()) continue;
    std::string refused = IgnoredReportFlag(FullName(verb.command), common);
    if (!refused.empty()) {
      std::cerr << "proofgate: " << refused << "\n";
      return static_cast<int>(pg::ExitCodeFor(pg::Status::Invalid(refused)));
    }
    return RunVerb(verb, common);
  }
  return static_cast<int>(pg::ExitCodeFor(pg::Status::Invalid("no verb")));
}
