#include "gates/range/range_gates.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

#include "gates/config/suite_config.h"
#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/range/ownership_gates.h"
#include "gates/runner/input_glob.h"
#include "gates/runner/preflight.h"
#include "gates/runner/tree_checkout.h"

namespace pg {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// Characters, not bytes: a subject with "→" is one column per code point.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

bool InScope(const std::string& path, const std::string& scope) {
  if (scope.find_first_of("*?[") != std::string::npos) return GlobMatch(scope, path);
  if (!scope.empty() && scope.back() == '/') return path.starts_with(scope);
  return path == scope || path.starts_with(scope + "/");
}

GateFinding ChangeSize(const git::Commit& c, const std::vector<git::FileChange>& changes,
                       const RangeOptions& o) {
  size_t lines = 0, files = 0;
  for (const git::FileChange& f : changes) {
    bool excluded = false;
    for (const std::string& glob : o.exclude) excluded = excluded || GlobMatch(glob, f.path);
    if (excluded) continue;
    lines += f.added + f.removed;
    ++files;
  }
  GateFinding g{c.id, c.summary, "change-size", true, ""};
  std::vector<std::string> problems;
  if (lines > o.max_lines)
    problems.push_back(std::to_string(lines) + " lines changed (max " +
                       std::to_string(o.max_lines) + ")");
  if (files > o.max_files)
    problems.push_back(std::to_string(files) + " files touched (max " +
                       std::to_string(o.max_files) + ")");
  g.ok = problems.empty();
  g.message =
      g.ok ? std::to_string(lines) + " lines, " + std::to_string(files) + " files" : Join(problems);
  return g;
}

struct SpecBirth {
  std::string path;
  std::vector<std::string> scope;
  int added_at = -1;  // index of the commit in the range that added it; -1: before the range
};

StatusOr<std::vector<SpecBirth>> SpecsAtHead(
    const std::string& workdir, const std::vector<git::Commit>& commits,
    const std::vector<std::vector<git::FileChange>>& changes) {
  std::vector<SpecBirth> specs;
  PG_ASSIGN_OR_RETURN(std::vector<std::string> files,
                      git::FilesIn(workdir, commits.back().id, "specs"));
  for (const std::string& path : files) {
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".md") != 0) continue;
    PG_ASSIGN_OR_RETURN(std::string text, git::FileAt(workdir, commits.back().id, path));
    SpecBirth s{path, ScopePaths(text), -1};
    for (size_t i = 0; i < changes.size() && s.added_at < 0; ++i) {
      for (const git::FileChange& f : changes[i]) {
        if (f.path == path && f.status == 'A') s.added_at = static_cast<int>(i);
      }
    }
    specs.push_back(std::move(s));
  }
  return specs;
}

bool SpecScopes(const SpecBirth& s, const std::string& path) {
  if (path == s.path) return false;
  return std::any_of(s.scope.begin(), s.scope.end(),
                     [&](const std::string& scope) { return InScope(path, scope); });
}

// A spec that existed when commit `index` was made (older than the range, or added by then)
// and has `path` in scope: the change was made under it.
bool OwnedThen(const std::vector<SpecBirth>& specs, size_t index, const std::string& path) {
  return std::any_of(specs.begin(), specs.end(), [&](const SpecBirth& s) {
    return s.added_at <= static_cast<long>(index) && SpecScopes(s, path);  // -1: before the range
  });
}

GateFinding SpecOrder(const git::Commit& c, size_t index,
                      const std::vector<git::FileChange>& changes,
                      const std::vector<SpecBirth>& specs,
                      const std::vector<git::Commit>& commits) {
  GateFinding g{c.id, c.summary, "spec-order", true, ""};
  std::vector<std::string> problems;
  for (const SpecBirth& s : specs) {
    if (s.added_at <= static_cast<long>(index))
      continue;  // proofgate: no-mutate (a spec owns its own scope: OwnedThen skips its paths too)
    for (const git::FileChange& f : changes) {
      if (OwnedThen(specs, index, f.path)) continue;
      for (const std::string& scope : s.scope) {
        if (f.path != s.path && InScope(f.path, scope)) {
          problems.push_back("touches " + f.path + " (scope of " + s.path +
                             ") before that spec was added in " +
                             commits[s.added_at].id.substr(0, 12));
          break;
        }
      }
    }
  }
  g.ok = problems.empty();
  g.message = Join(problems);
  return g;
}

GateFinding TreeCompiles(const std::string& workdir, const git::Commit& c, const RangeOptions& o) {
  GateFinding g{c.id, c.summary, "tree-compiles", false, ""};
  auto dir = CheckoutTree(workdir, c.id);
  if (!dir.ok()) {
    g.message = dir.status().message();
    return g;
  }
  // A commit from before the project used proofgate has no suites.json (or no build leg): it is
  // built with HEAD's leg, and the finding says so.
  std::string borrowed;
  auto config = LoadSuiteConfig(*dir + "/" + kDefaultConfig, kDefaultConfig);
  if (!config.ok() || !config->FindLeg(o.build_leg)) {
    auto head = LoadSuiteConfig(workdir + "/" + kDefaultConfig, kDefaultConfig);
    if (!head.ok() || !head->FindLeg(o.build_leg)) {
      g.message =
          "no leg \"" + o.build_leg + "\" in this commit's " + kDefaultConfig + " nor in HEAD's";
      return g;
    }
    borrowed =
        " with HEAD's leg \"" + o.build_leg + "\" (this commit's " + kDefaultConfig + " has none)";
    config = std::move(head);
  }
  config->suites.push_back(Suite{"tree-compiles", {o.build_leg}});
  PreflightOptions options;
  options.root = *dir;
  options.suites = {"tree-compiles"};
  auto report = RunPreflightConfig(options, *config);
  if (!report.ok()) {
    g.message = report.status().message();
    return g;
  }
  g.ok = report->exit_code == ExitCode::kPass;
  bool cached = std::all_of(report->legs.begin(), report->legs.end(),
                            [](const LegResult& l) { return l.cached; });
  for (const LegResult& l : report->legs) {
    if (l.outcome != Outcome::kPass)
      g.message +=
          (g.message.empty() ? "" : "; ") + l.name + ": " + l.note + " (log " + l.log_path + ")";
  }
  if (g.ok)
    g.message = cached ? "cached pass of tree " + c.tree_id.substr(0, 12)
                       : "built in " + std::to_string(static_cast<int>(report->wall_s)) + " s";
  g.message += borrowed;
  return g;
}

const std::set<std::string> kGates = {"commit-style",  "change-size", "spec-order",
                                      "tree-compiles", "trailers",    "owed-owners"};

StatusOr<std::set<long>> LoadIssues(const std::string& workdir, const RangeOptions& o) {
  if (!o.gates.count("owed-owners")) return std::set<long>{};
  if (o.issues.empty()) {
    return Status::Invalid(
        "owed-owners needs an issue snapshot: set \"issues\" under \"range\" in " +
        std::string(kDefaultConfig) + " or pass --issues FILE");
  }
  std::string path = o.issues[0] == '/' ? o.issues : workdir + "/" + o.issues;
  PG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseIssueSnapshot(o.issues, text);
}

// Issue references in the message; for the last commit, every spec's Owed items as they land.
StatusOr<GateFinding> OwedOwners(const std::string& workdir, const git::Commit& c, bool last,
                                 const std::set<long>& issues) {
  std::vector<std::string> problems = IssueRefProblems(c.message, issues);
  if (last) {
    PG_ASSIGN_OR_RETURN(std::vector<std::string> files, git::FilesIn(workdir, c.id, "specs"));
    for (const std::string& path : files) {
      if (path.size() < 3 || path.compare(path.size() - 3, 3, ".md") != 0) continue;
      PG_ASSIGN_OR_RETURN(std::string text, git::FileAt(workdir, c.id, path));
      for (std::string& p : OwedProblems(path, text, issues)) problems.push_back(std::move(p));
    }
  }
  return GateFinding{c.id, c.summary, "owed-owners", problems.empty(), Join(problems)};
}

}  // namespace

std::vector<std::string> CommitStyleProblems(const std::string& message, size_t subject_max,
                                             size_t body_max) {
  std::vector<std::string> lines = Lines(message), problems;
  if (lines.empty() || lines[0].empty()) return {"empty subject"};
  const std::string& subject = lines[0];
  if (Width(subject) > subject_max) {
    problems.push_back("subject is " + std::to_string(Width(subject)) + " characters (max " +
                       std::to_string(subject_max) + ")");
  }
  if (subject.back() == '.') problems.push_back("subject ends with a period");
  if (lines.size() > 1 && !lines[1].empty()) problems.push_back("no blank line after the subject");
  for (size_t i = 2; i < lines.size(); ++i) {
    bool exempt = lines[i].find("://") != std::string::npos || lines[i].rfind("    ", 0) == 0;
    if (!exempt && Width(lines[i]) > body_max) {
      problems.push_back("body line " + std::to_string(i + 1) + " is " +
                         std::to_string(Width(lines[i])) + " characters (max " +
                         std::to_string(body_max) + ")");
    }
  }
  return problems;
}

std::vector<std::string> ScopePaths(const std::string& spec_text) {
  std::vector<std::string> out;
  bool in_scope = false;
  for (const std::string& line : Lines(spec_text)) {
    if (line.rfind("## ", 0) == 0) in_scope = line == "## Scope";
    if (!in_scope || line.rfind("- ", 0) != 0) continue;
    std::string rest = line.substr(2);
    size_t start = rest.find_first_not_of(" `");
    size_t end = rest.find_first_of(" `,", start);
    std::string path = start == std::string::npos ? "" : rest.substr(start, end - start);
    if (!path.empty() && path.find_first_of("/.*") != std::string::npos) out.push_back(path);
  }
  return out;
}

StatusOr<std::vector<GateFinding>> RunRangeGates(const std::string& workdir,
                                                 const std::string& range, const RangeOptions& o) {
  for (const std::string& gate : o.gates) {
    if (!kGates.count(gate)) {
      return Status::Invalid(
          "--gate: unknown gate \"" + gate +
          "\" (commit-style, change-size, spec-order, tree-compiles, trailers, owed-owners)");
    }
  }
  PG_ASSIGN_OR_RETURN(std::set<long> issues, LoadIssues(workdir, o));
  PG_ASSIGN_OR_RETURN(std::vector<git::Commit> commits, git::WalkRange(workdir, range));
  std::vector<std::vector<git::FileChange>> changes;
  for (const git::Commit& c : commits) {
    PG_ASSIGN_OR_RETURN(std::vector<git::FileChange> ch, git::CommitChanges(workdir, c.id));
    changes.push_back(std::move(ch));
  }
  std::vector<SpecBirth> specs;
  if (o.gates.count("spec-order") && !commits.empty()) {
    PG_ASSIGN_OR_RETURN(specs, SpecsAtHead(workdir, commits, changes));
  }
  std::vector<GateFinding> out;
  for (size_t i = 0; i < commits.size(); ++i) {
    const git::Commit& c = commits[i];
    if (o.gates.count("commit-style")) {
      std::vector<std::string> problems = CommitStyleProblems(c.message, o.subject_max, o.body_max);
      out.push_back(GateFinding{c.id, c.summary, "commit-style", problems.empty(), Join(problems)});
    }
    if (o.gates.count("change-size")) out.push_back(ChangeSize(c, changes[i], o));
    if (o.gates.count("spec-order")) out.push_back(SpecOrder(c, i, changes[i], specs, commits));
    if (o.gates.count("tree-compiles")) out.push_back(TreeCompiles(workdir, c, o));
    if (o.gates.count("trailers")) {
      std::vector<std::string> problems = TrailerProblems(c.message, o.trailers);
      out.push_back(GateFinding{c.id, c.summary, "trailers", problems.empty(), Join(problems)});
    }
    if (o.gates.count("owed-owners")) {
      PG_ASSIGN_OR_RETURN(GateFinding g, OwedOwners(workdir, c, i + 1 == commits.size(), issues));
      out.push_back(std::move(g));
    }
  }
  return out;
}

}  // namespace pg
