#include "changes/affected_mutants.h"

#include <algorithm>

#include "changes/test_bodies.h"
#include "core/file_io.h"
#include "git/git.h"
#include "runner/input_glob.h"

namespace pg {
namespace {

// gtest cases of the changed files whose bodies differ from `base`'s (or are new): a changed
// test changes what its mutants prove; its unchanged neighbours do not.
std::map<std::string, std::string> ChangedTests(const std::string& root, const std::string& base,
                                                const std::set<std::string>& changed) {
  std::map<std::string, std::string> where;
  for (const std::string& file : changed) {
    auto text = ReadFile(root + "/" + file);
    if (!text.ok()) continue;
    auto before = git::FileAt(root, base, file);
    std::map<std::string, std::string> old = before.ok() ? GtestBodies(*before) : std::map<std::string, std::string>{};
    for (const auto& [name, body] : GtestBodies(*text)) {
      auto it = old.find(name);
      if (it == old.end() || it->second != body) where.emplace(name, file);
    }
  }
  return where;
}

std::string Reason(const MutantJob& job, const std::set<std::string>& changed, const std::map<std::string, std::string>& tests) {
  if (changed.count(job.catalog->path)) return "its catalog " + job.catalog->path + " changed";
  for (const std::string& glob : job.catalog->affected_by) {
    auto hit = std::find_if(changed.begin(), changed.end(), [&](const std::string& f) { return GlobMatch(glob, f); });
    if (hit != changed.end()) return *hit + " changed (the catalog's affected_by " + glob + ")";
  }
  for (const Mutation* m : job.mutations) {
    if (changed.count(m->file)) return m->file + " changed";
  }
  for (const Expectation& e : job.expect) {
    auto it = tests.find(e.test);
    if (it != tests.end()) return "its test " + e.test + " changed (" + it->second + ")";
  }
  return "";
}

}  // namespace

StatusOr<std::set<std::string>> ChangedSince(const std::string& root, const std::string& ref) {
  PG_ASSIGN_OR_RETURN(std::string base, git::ResolveCommit(root, ref));
  PG_ASSIGN_OR_RETURN(std::vector<git::Commit> commits, git::WalkRange(root, base + "..HEAD"));
  std::set<std::string> changed;
  for (const git::Commit& c : commits) {
    PG_ASSIGN_OR_RETURN(std::vector<git::FileChange> files, git::CommitChanges(root, c.id));
    for (const git::FileChange& f : files) changed.insert(f.path);
  }
  PG_ASSIGN_OR_RETURN(std::vector<std::string> dirty, git::Dirty(root));
  changed.insert(dirty.begin(), dirty.end());
  return changed;
}

std::vector<MutantJob> AffectedJobs(const std::string& root, const std::string& base, const std::vector<MutantJob>& jobs,
                                    const std::set<std::string>& changed, std::map<std::string, std::string>* why) {
  std::map<std::string, std::string> tests = ChangedTests(root, base, changed);
  std::vector<MutantJob> picked;
  for (const MutantJob& job : jobs) {
    std::string reason = Reason(job, changed, tests);
    if (reason.empty()) continue;
    (*why)[job.id] = reason;
    picked.push_back(job);
  }
  return picked;
}

}  // namespace pg
