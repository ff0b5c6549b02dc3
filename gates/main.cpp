// proofgate CLI: flags → library calls → exit code. Nothing here decides a verdict.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <iostream>
#include <memory>
#include <sstream>

#include "anchors/anchors.h"
#include "config/json_source.h"
#include "config/suite_config.h"
#include "contention/load_meter.h"
#include "contention/snapshot.h"
#include "core/exit_code.h"
#include "core/file_io.h"
#include "merge/merge_gate.h"
#include "range/range_gates.h"
#include "records/record.h"
#include "specs/spec_doc.h"
#include "report/progress.h"
#include "report/writers.h"
#include "runner/preflight.h"

namespace {

struct CommonFlags {
  std::string dir;
  std::string color = "auto";
  bool quiet = false;
  bool verbose = false;
  bool json = false;
  std::string junit;
  std::string summary;
};

struct PreflightFlags {
  std::vector<std::string> suites;
  std::string config = pg::kDefaultConfig;
  int jobs = 0;
  bool no_cache = false;
  bool list = false;
  bool no_retry_contended = false;
  std::string log_dir;
};

struct LoadFlags {
  bool watch = false;
  double interval_s = 1;
};

int g_cancel_write = -1;

void OnSignal(int) {
  char byte = 1;
  [[maybe_unused]] ssize_t n = write(g_cancel_write, &byte, 1);
}

// SIGINT/SIGTERM become a readable fd the scheduler polls, so legs are stopped in order.
int InstallCancelPipe() {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  g_cancel_write = fds[1];
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return fds[0];
}

int Fail(const pg::Status& status) {
  std::cerr << "proofgate: " << status.message() << "\n";
  return static_cast<int>(pg::ExitCodeFor(status));
}

bool UseColor(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  return isatty(fd) && getenv("NO_COLOR") == nullptr;
}

pg::Status WriteReports(const pg::RunReport& report, const CommonFlags& common) {
  if (common.json) {
    std::cout << pg::RunReportJson(report);
  } else {
    pg::WriteRunTable(report, std::cout, UseColor(common.color, STDOUT_FILENO));
  }
  std::cout.flush();
  if (!common.junit.empty()) PG_RETURN_IF_ERROR(pg::WriteFileAtomic(common.junit, pg::RunReportJunit(report)));
  if (!common.summary.empty()) {
    PG_RETURN_IF_ERROR(pg::WriteFileAtomic(common.summary, pg::RunReportMarkdown(report)));
  }
  return pg::Status();
}

pg::StatusOr<std::string> ResolveRoot(const CommonFlags& common, const PreflightFlags& flags) {
  std::string start = common.dir.empty() ? std::filesystem::current_path().string() : common.dir;
  if (!common.dir.empty() || flags.config != pg::kDefaultConfig) {
    std::error_code ec;
    if (!std::filesystem::is_directory(start, ec)) return pg::Status::Invalid("-C " + start + ": not a directory");
    return std::filesystem::absolute(start).lexically_normal().string();
  }
  return pg::FindRoot(start);
}

int ListSuites(const std::string& root, const PreflightFlags& flags) {
  std::string path = std::filesystem::path(flags.config).is_absolute() ? flags.config : root + "/" + flags.config;
  auto config = pg::LoadSuiteConfig(path);
  if (!config.ok()) return Fail(config.status());
  for (const pg::Suite& suite : config->suites) {
    std::cout << suite.name << ":";
    for (const std::string& leg : suite.legs) std::cout << " " << leg;
    std::cout << "\n";
  }
  return 0;
}

int RunPreflightVerb(const CommonFlags& common, const PreflightFlags& flags) {
  auto root = ResolveRoot(common, flags);
  if (!root.ok()) return Fail(root.status());
  if (flags.list) return ListSuites(*root, flags);
  pg::ProgressPrinter progress(std::cerr, UseColor(common.color, STDERR_FILENO), common.verbose);
  pg::PreflightOptions options;
  options.root = *root;
  options.config_path = flags.config;
  options.suites = flags.suites;
  options.jobs = flags.jobs;
  options.use_cache = !flags.no_cache;
  options.retry_contended = !flags.no_retry_contended;
  options.log_dir = flags.log_dir.empty() ? "" : std::filesystem::absolute(flags.log_dir).string();
  options.cancel_fd = InstallCancelPipe();
  if (!common.quiet) {
    options.on_change = [&](const pg::LegResult& leg, std::string_view state) { progress.OnChange(leg, state); };
    options.on_progress = [&](const std::string& text) { progress.Notice(text); };
  }
  options.on_notice = [&](const std::string& text) { progress.Notice(text); };
  auto report = pg::RunPreflight(options);
  if (!report.ok()) return Fail(report.status());
  pg::Status written = WriteReports(*report, common);
  if (!written.ok()) return Fail(written);
  return static_cast<int>(report->exit_code);
}

// One reading per interval: two snapshots `interval_s` apart; only proofgate itself is "own".
int RunLoadVerb(const CommonFlags& common, const LoadFlags& flags) {
  int cancel = InstallCancelPipe();
  pg::RealProcSource proc;
  std::set<int> cpus = pg::AllowedCpus();
  pg::Snapshot previous = pg::TakeSnapshot(proc, {}, cpus);
  do {
    pollfd pfd{cancel, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(flags.interval_s * 1000)) > 0) break;
    pg::Snapshot now = pg::TakeSnapshot(proc, {}, cpus);
    pg::LoadMeter meter(0);
    meter.Add(previous);
    meter.Add(now);
    pg::LoadEvidence e = meter.Evidence();
    std::cout << (common.json ? pg::LoadReadingJson(e) : pg::LoadReadingText(e)) << std::flush;
    previous = now;
  } while (flags.watch);
  return 0;
}

// The directory records, specs and anchors are relative to: -C, else the preflight root, else here.
std::string ProjectRoot(const CommonFlags& common) {
  if (!common.dir.empty()) return std::filesystem::absolute(common.dir).lexically_normal().string();
  auto root = pg::FindRoot(std::filesystem::current_path().string());
  return root.ok() ? *root : std::filesystem::current_path().string();
}

// root/dir/*ext, relative to root, sorted: the default inputs of records and specs check.
std::vector<std::string> FilesIn(const std::string& root, const std::string& dir, const std::string& ext) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root + "/" + dir, ec)) {
    if (e.path().extension() == ext) files.push_back(std::filesystem::relative(e.path(), root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

int RunRecordsCheck(const CommonFlags& common, std::vector<std::string> files) {
  std::string root = ProjectRoot(common);
  if (files.empty()) files = FilesIn(root, "records", ".json");
  if (files.empty()) return Fail(pg::Status::Invalid(root + "/records: no record files"));
  std::vector<pg::RecordResult> results;
  for (const std::string& file : files) {
    std::string path = std::filesystem::path(file).is_absolute() ? file : root + "/" + file;
    auto record = pg::LoadRecord(path);
    if (!record.ok()) return Fail(record.status().WithContext("records check"));
    record->path = file;
    results.push_back(pg::CheckRecord(*record, root));
  }
  std::cout << (common.json ? pg::RecordResultsJson(results) : pg::RecordResultsText(results));
  bool ok = std::all_of(results.begin(), results.end(), [](const pg::RecordResult& r) { return r.ok(); });
  return static_cast<int>(ok ? pg::ExitCode::kPass : pg::ExitCode::kGateFailed);
}

int RunAnchorsCheck(const CommonFlags& common, std::vector<std::string> docs, bool fix) {
  std::string root = ProjectRoot(common);
  if (docs.empty()) docs = pg::MarkdownFiles(root);
  std::vector<pg::AnchorResult> results;
  for (const std::string& doc : docs) {
    auto text = pg::ReadFile(std::filesystem::path(doc).is_absolute() ? doc : root + "/" + doc);
    if (!text.ok()) return Fail(text.status());
    for (const pg::Anchor& a : pg::ScanAnchors(doc, *text)) results.push_back(pg::CheckAnchor(a, root));
  }
  int stale = 0, gone = 0;
  for (const pg::AnchorResult& r : results) {
    if (r.state == pg::AnchorState::kHolds) {
      if (common.verbose) std::cout << r.Message() << "\n";
      continue;
    }
    std::cout << r.Message() << (fix && r.state == pg::AnchorState::kMoved ? " (fixed)" : "") << "\n";
    ++(r.state == pg::AnchorState::kMoved ? stale : gone);
  }
  if (fix) {
    auto fixed = pg::FixAnchors(results, root);
    if (!fixed.ok()) return Fail(fixed.status());
    stale = 0;
  }
  if (!common.quiet) std::cerr << "anchors: " << results.size() << " checked, " << stale + gone << " stale\n";
  return static_cast<int>(stale + gone == 0 ? pg::ExitCode::kPass : pg::ExitCode::kGateFailed);
}

// Each spec's `## Gates` commands become legs run by the preflight runner, one at a time (two
// specs' gates may share a build directory).
int RunSpecsCheck(const CommonFlags& common, std::vector<std::string> files) {
  std::string root = ProjectRoot(common);
  if (files.empty()) files = FilesIn(root, "specs", ".md");
  if (files.empty()) return Fail(pg::Status::Invalid(root + "/specs: no spec files"));
  std::vector<pg::SpecDoc> specs;
  for (const std::string& file : files) {
    auto text = pg::ReadFile(std::filesystem::path(file).is_absolute() ? file : root + "/" + file);
    if (!text.ok()) return Fail(text.status());
    auto spec = pg::ParseSpec(file, *text);
    if (!spec.ok()) return Fail(spec.status());
    specs.push_back(std::move(spec).value());
  }
  pg::ProgressPrinter progress(std::cerr, UseColor(common.color, STDERR_FILENO), common.verbose);
  pg::PreflightOptions options;
  options.root = root;
  options.suites = {"specs"};
  options.jobs = 1;
  options.cancel_fd = InstallCancelPipe();
  if (!common.quiet) options.on_change = [&](const pg::LegResult& leg, std::string_view state) { progress.OnChange(leg, state); };
  options.on_notice = [&](const std::string& text) { progress.Notice(text); };
  auto report = pg::RunPreflightConfig(options, pg::SpecGatesConfig(specs));
  if (!report.ok()) return Fail(report.status());
  report->verb = "specs check";
  pg::Status written = WriteReports(*report, common);
  if (!written.ok()) return Fail(written);
  return static_cast<int>(report->exit_code);
}

struct RangeFlags {
  std::string range;
  std::string gates;
  pg::RangeOptions options;
  std::set<std::string> set;  // thresholds given on the command line
};

// Thresholds: suites.json's "range" object when the repository has one, then the flags given.
int RunRange(const CommonFlags& common, RangeFlags flags) {
  std::string root = ProjectRoot(common);
  if (std::filesystem::exists(root + "/" + pg::kDefaultConfig)) {
    auto config = pg::LoadSuiteConfig(root + "/" + pg::kDefaultConfig, pg::kDefaultConfig);
    if (!config.ok()) return Fail(config.status());
    const pg::RangeThresholds& t = config->range;
    pg::RangeOptions& o = flags.options;
    if (!flags.set.count("subject_max")) o.subject_max = t.subject_max;
    if (!flags.set.count("body_max")) o.body_max = t.body_max;
    if (!flags.set.count("max_lines")) o.max_lines = t.max_lines;
    if (!flags.set.count("max_files")) o.max_files = t.max_files;
    if (!flags.set.count("exclude")) o.exclude = t.exclude;
    if (!flags.set.count("build_leg")) o.build_leg = t.build_leg;
  }
  if (!flags.gates.empty()) {
    flags.options.gates.clear();
    std::stringstream list(flags.gates);
    for (std::string gate; std::getline(list, gate, ',');) flags.options.gates.insert(gate);
  }
  auto findings = pg::RunRangeGates(root, flags.range, flags.options);
  if (!findings.ok()) return Fail(findings.status());
  bool ok = std::all_of(findings->begin(), findings->end(), [](const pg::GateFinding& f) { return f.ok; });
  if (common.json) {
    pg::Json doc = {{"schema_version", 1}, {"tool", "proofgate"}, {"verb", "range"}, {"range", flags.range}, {"ok", ok},
                    {"findings", pg::Json::array()}};
    for (const pg::GateFinding& f : *findings) {
      doc["findings"].push_back({{"commit", f.commit}, {"summary", f.summary}, {"gate", f.gate}, {"ok", f.ok},
                                 {"message", f.message}});
    }
    std::cout << doc.dump(2) << "\n";
  } else {
    for (const pg::GateFinding& f : *findings) {
      if (f.ok && !common.verbose) continue;
      std::cout << f.commit.substr(0, 12) << "  " << f.gate << "  " << (f.ok ? "pass" : "FAIL") << "  " << f.summary
                << (f.message.empty() ? "" : "\n    " + f.message) << "\n";
    }
    std::cout << "range " << flags.range << ": " << (ok ? "pass" : "fail") << "\n";
  }
  return static_cast<int>(ok ? pg::ExitCode::kPass : pg::ExitCode::kGateFailed);
}

void AddCommonFlags(CLI::App& app, CommonFlags& common) {
  app.add_option("-C", common.dir, "Run as if started in DIR (the repository root)");
  app.add_option("--color", common.color, "Colour output: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("-q,--quiet", common.quiet, "No progress lines on stderr");
  app.add_flag("-v,--verbose", common.verbose, "Print argv of each leg and the output of red ones");
  app.add_flag("--json", common.json, "Print one JSON document on stdout instead of the table");
  app.add_option("--junit", common.junit, "Also write JUnit XML to FILE");
  app.add_option("--summary", common.summary, "Also write a Markdown summary to FILE");
}

struct GateFlags {
  std::string onto, verify;
  std::vector<std::string> suites;
  int jobs = 0;
};

int RunGate(const CommonFlags& common, const GateFlags& flags) {
  std::string root = ProjectRoot(common);
  if (!flags.verify.empty()) {
    pg::GateVerification v = pg::VerifyGate(root, flags.verify);
    (v.code == pg::ExitCode::kPass ? std::cout : std::cerr) << "gate: " << v.message << "\n";
    return static_cast<int>(v.code);
  }
  pg::ProgressPrinter progress(std::cerr, UseColor(common.color, STDERR_FILENO), common.verbose);
  pg::PreflightOptions options;
  options.root = root;
  options.suites = flags.suites;
  options.jobs = flags.jobs;
  options.cancel_fd = InstallCancelPipe();
  if (!common.quiet) options.on_change = [&](const pg::LegResult& leg, std::string_view state) { progress.OnChange(leg, state); };
  options.on_notice = [&](const std::string& text) { progress.Notice(text); };
  auto result = pg::GateOnto(flags.onto, options);
  if (!result.ok()) return Fail(result.status());
  if (!result->conflicts.empty()) {
    for (const std::string& path : result->conflicts) std::cerr << "gate: conflict: " << path << "\n";
    std::cerr << "gate: HEAD does not merge into " << flags.onto << " cleanly: nothing ran\n";
    return static_cast<int>(pg::ExitCode::kGateFailed);
  }
  result->report.verb = "gate";
  pg::Status written = WriteReports(result->report, common);
  if (!written.ok()) return Fail(written);
  std::cerr << "gate: merged tree " << result->merged_tree.substr(0, 12) << " (HEAD " << result->head.substr(0, 12)
            << " onto " << flags.onto << " at " << result->base.substr(0, 12) << "): "
            << pg::ExitCodeName(result->report.exit_code) << ", noted under " << pg::kNotesRef << "\n";
  return static_cast<int>(result->report.exit_code);
}

// Each verb: its subcommand and what runs when it was the one parsed.
struct Verb {
  CLI::App* command;
  std::function<int()> run;
};
using Verbs = std::vector<Verb>;

void AddPreflight(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<PreflightFlags>();
  CLI::App* preflight = app.add_subcommand("preflight", "Run named suites of legs (default: \"default\")");
  preflight->add_option("suites", flags->suites, "Suites to run");
  preflight->add_option("--config", flags->config, "Suites file, relative to the root");
  preflight->add_option("-j,--jobs", flags->jobs, "Legs run at once (default: CPUs)")->check(CLI::PositiveNumber);
  preflight->add_flag("--no-cache", flags->no_cache, "Run every leg even if a pass is cached");
  preflight->add_flag("--list", flags->list, "List the suites and their legs, run nothing");
  preflight->add_option("--log-dir", flags->log_dir, "Write leg logs here instead of <git-dir>/proofgate/logs");
  preflight->add_flag("--no-retry-contended", flags->no_retry_contended,
                      "Report timing legs that failed under foreign load as contended, without a rerun");
  verbs.push_back(Verb{preflight, [&common, flags] { return RunPreflightVerb(common, *flags); }});
  auto load_flags = std::make_shared<LoadFlags>();
  CLI::App* load = app.add_subcommand("load", "Print the machine's current load reading (foreign share, signals)");
  load->add_flag("--watch", load_flags->watch, "Print a reading every interval until interrupted");
  load->add_option("--interval", load_flags->interval_s, "Seconds per reading (default 1)")->check(CLI::PositiveNumber);
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
  verbs.push_back(Verb{anchors, [&common, files, fix] { return RunAnchorsCheck(common, *files, *fix); }});
  CLI::App* specs = add("specs", "Specs: required sections, and their ## Gates run verbatim",
                        "Check every spec (default: specs/*.md) and run its gates");
  verbs.push_back(Verb{specs, [&common, files] { return RunSpecsCheck(common, *files); }});
}

void AddRange(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<RangeFlags>();
  CLI::App* range = app.add_subcommand("range", "Gates over each commit of BASE..HEAD");
  range->add_option("range", flags->range, "BASE..HEAD")->required();
  range->add_option("--gate", flags->gates,
                    "Comma-separated: commit-style,change-size,spec-order (default) and tree-compiles");
  auto threshold = [&](const char* flag, const char* key, auto* value, const char* about) {
    range->add_option(flag, *value, about)->each([flags, key](const std::string&) { flags->set.insert(key); });
  };
  threshold("--subject-max", "subject_max", &flags->options.subject_max, "Longest subject line (72)");
  threshold("--body-max", "body_max", &flags->options.body_max, "Longest body line (72)");
  threshold("--max-lines", "max_lines", &flags->options.max_lines, "Most lines changed per commit (2000)");
  threshold("--max-files", "max_files", &flags->options.max_files, "Most files touched per commit (60)");
  threshold("--exclude", "exclude", &flags->options.exclude, "Globs change-size does not count");
  threshold("--build-leg", "build_leg", &flags->options.build_leg, "tree-compiles: the leg that builds a tree (build)");
  verbs.push_back(Verb{range, [&common, flags] { return RunRange(common, *flags); }});
}

void AddGate(CLI::App& app, const CommonFlags& common, Verbs& verbs) {
  auto flags = std::make_shared<GateFlags>();
  CLI::App* gate = app.add_subcommand("gate", "Gate the merged tree that would land, or verify that verdict");
  auto* onto = gate->add_option("--onto", flags->onto, "Merge HEAD into REF and run the suites on the result");
  auto* verify = gate->add_option("--verify", flags->verify, "Pass only if HEAD's verdict is for what would land on REF now");
  onto->excludes(verify);
  gate->add_option("suites", flags->suites, "Suites to run (default: \"default\")");
  gate->add_option("-j,--jobs", flags->jobs, "Legs run at once (default: CPUs)")->check(CLI::PositiveNumber);
  gate->callback([flags] {
    if (flags->onto.empty() && flags->verify.empty()) throw CLI::RequiredError("--onto or --verify");
  });
  verbs.push_back(Verb{gate, [&common, flags] { return RunGate(common, *flags); }});
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"proofgate: preflight suites, mutation proofs, records and merge gates"};
  app.require_subcommand(1);
  app.fallthrough();
  CommonFlags common;
  AddCommonFlags(app, common);
  Verbs verbs;
  verbs.reserve(8);
  AddPreflight(app, common, verbs);
  AddChecks(app, common, verbs);
  AddRange(app, common, verbs);
  AddGate(app, common, verbs);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : static_cast<int>(pg::ExitCode::kInvalidInput);
  }
  for (const Verb& verb : verbs) {
    if (verb.command->parsed()) return verb.run();
  }
  return static_cast<int>(pg::ExitCode::kInvalidInput);
}
