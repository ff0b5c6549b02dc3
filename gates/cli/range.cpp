// `proofgate range BASE..HEAD`: the range gates over each commit of a range.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "gates/cli/cli.h"
#include "gates/config/json_source.h"
#include "gates/config/suite_config.h"
#include "gates/core/exit_code.h"
#include "gates/merge/merge_gate.h"
#include "gates/report/progress.h"

namespace pg::cli {

namespace {

// " (4 commits; commit-style, change-size, spec-order)": what a verdict covered, gates in the
// order they ran; empty when nothing was checked.
std::string Checked(const std::vector<pg::GateFinding>& findings) {
  std::set<std::string> commits;
  std::vector<std::string> gates;
  for (const pg::GateFinding& f : findings) {
    commits.insert(f.commit);
    if (std::find(gates.begin(), gates.end(), f.gate) == gates.end()) gates.push_back(f.gate);
  }
  if (commits.empty()) return "";
  std::string out =
      " (" + std::to_string(commits.size()) + (commits.size() == 1 ? " commit; " : " commits; ");
  for (size_t i = 0; i < gates.size(); ++i) out += (i ? ", " : "") + gates[i];
  return out + ")";
}

}  // namespace

// One line per finding that failed (every one with -v), then the verdict; or one JSON document.
void Print(const CommonFlags& common, const std::string& range,
           const std::vector<pg::GateFinding>& findings, bool ok) {
  if (common.json) {
    pg::Json doc = {{"schema_version", 1},
                    {"tool", "proofgate"},
                    {"verb", "range"},
                    {"range", range},
                    {"ok", ok},
                    {"findings", pg::Json::array()}};
    for (const pg::GateFinding& f : findings) {
      doc["findings"].push_back({{"commit", f.commit},
                                 {"summary", f.summary},
                                 {"gate", f.gate},
                                 {"ok", f.ok},
                                 {"message", f.message}});
    }
    std::cout << JsonText(doc, 2) << "\n";
  } else {
    for (const pg::GateFinding& f : findings) {
      if (f.ok && !common.verbose) continue;
      std::cout << f.commit.substr(0, 12) << "  " << f.gate << "  " << (f.ok ? "pass" : "FAIL")
                << "  " << f.summary << (f.message.empty() ? "" : "\n    " + f.message) << "\n";
    }
    std::cout << "range " << range << ": " << (ok ? "pass" : "fail") << Checked(findings) << "\n";
  }
}

// Thresholds: suites.json's "range" object when the repository has one, then the flags given.
int RunRange(const CommonFlags& common, RangeFlags flags) {
  std::string root = ProjectRoot(common);
  if (flags.range.find("..") == std::string::npos) {
    return Fail(pg::Status::Invalid("range " + flags.range +
                                    ": expected BASE..HEAD, e.g. main..HEAD or HEAD~3..HEAD"));
  }
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
    if (!flags.set.count("issues")) o.issues = t.issues;
    o.trailers = t.trailers;
  }
  if (!flags.gates.empty()) {
    flags.options.gates.clear();
    std::stringstream list(flags.gates);
    for (std::string gate; std::getline(list, gate, ',');) flags.options.gates.insert(gate);
  }
  auto findings = pg::RunRangeGates(root, flags.range, flags.options);
  if (!findings.ok()) return Fail(findings.status());
  std::vector<pg::ResultClass> results;
  for (const pg::GateFinding& f : *findings)
    results.push_back(f.ok ? pg::ResultClass::kPass : pg::ResultClass::kFail);
  if (findings->empty()) {
    std::cerr << "range: nothing checked: " << flags.range << " has no commits"
              << (flags.allow_empty ? " (--allow-empty: accepted)" : "") << "\n";
    if (!flags.allow_empty) results.push_back(pg::ResultClass::kUnproven);
  }
  pg::ExitCode code = pg::RunExitCode(results);
  bool ok = code == pg::ExitCode::kPass;
  Print(common, flags.range, *findings, ok);
  return static_cast<int>(code);
}

}  // namespace pg::cli
