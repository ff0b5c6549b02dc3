#include "gates/prove/affected_mutants.h"

#include <algorithm>

#include "gates/config/json_source.h"
#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/prove/test_bodies.h"
#include "gates/runner/input_glob.h"

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
    std::map<std::string, std::string> old =
        before.ok() ? GtestBodies(*before) : std::map<std::string, std::string>{};
    for (const auto& [name, body] : GtestBodies(*text)) {
      auto it = old.find(name);
      if (it == old.end() || it->second != body) where.emplace(name, file);
    }
  }
  return where;
}

// A catalog's mutations and combos by id, their notes left out (prose changes no claim).
std::map<std::string, Json> Entries(const Json& doc) {
  std::map<std::string, Json> by_id;
  for (const char* key : {"mutations", "combos"}) {
    if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array()) continue;
    for (Json entry : doc[key]) {
      if (!entry.is_object() || !entry.contains("id") || !entry["id"].is_string()) continue;
      entry.erase("note");
      by_id[entry["id"].get<std::string>()] = entry;
    }
  }
  return by_id;
}

// The entries of a changed catalog that differ from `base`'s: {"*"} when a field all its
// mutants share (build, commands, affected_by) changed or it cannot be compared, so editing one
// mutation's claim reruns that mutation, not its whole catalog.
std::set<std::string> ChangedEntries(const std::string& root, const std::string& base,
                                     const std::string& path) {
  auto before = git::FileAt(root, base, path);
  auto now = ReadFile(root + "/" + path);
  auto old_doc =
      before.ok() ? JsonSource::Parse(path, *before) : StatusOr<JsonSource>(before.status());
  auto new_doc = now.ok() ? JsonSource::Parse(path, *now) : StatusOr<JsonSource>(now.status());
  if (!old_doc.ok() || !new_doc.ok()) return {"*"};
  Json shared_old = old_doc->root(), shared_new = new_doc->root();
  for (Json* doc : {&shared_old, &shared_new}) {
    if (!doc->is_object()) return {"*"};
    for (const char* key : {"mutations", "combos", "description", "spec"}) doc->erase(key);
  }
  if (shared_old != shared_new) return {"*"};
  std::map<std::string, Json> was = Entries(old_doc->root());
  std::set<std::string> changed;
  for (const auto& [id, entry] : Entries(new_doc->root())) {
    auto it = was.find(id);
    if (it == was.end() || it->second != entry) changed.insert(id);
  }
  return changed;
}

std::string Reason(const MutantJob& job, const std::set<std::string>& changed,
                   const std::map<std::string, std::string>& tests,
                   const std::set<std::string>& entries) {
  if (entries.count("*"))
    return "its catalog " + job.catalog->path + " changed (what all its mutants share)";
  if (entries.count(job.id)) return "its entry in " + job.catalog->path + " changed";
  for (const Mutation* m : job.mutations) {
    if (entries.count(m->id))
      return "its member " + m->id + "'s entry in " + job.catalog->path + " changed";
  }
  for (const std::string& glob : job.catalog->affected_by) {
    auto hit = std::find_if(changed.begin(), changed.end(),
                            [&](const std::string& f) { return GlobMatch(glob, f); });
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
    for (const git::FileChange& f : files) {
      changed.insert(f.path);
      if (!f.old_path.empty()) changed.insert(f.old_path);
    }
  }
  PG_ASSIGN_OR_RETURN(std::vector<std::string> dirty, git::Dirty(root));
  changed.insert(dirty.begin(), dirty.end());
  return changed;
}

std::vector<MutantJob> AffectedJobs(const std::string& root, const std::string& base,
                                    const std::vector<MutantJob>& jobs,
                                    const std::set<std::string>& changed,
                                    std::map<std::string, std::string>* why) {
  std::map<std::string, std::string> tests = ChangedTests(root, base, changed);
  std::map<std::string, std::set<std::string>>
      entries;  // by catalog path, for catalogs that changed
  std::vector<MutantJob> picked;
  for (const MutantJob& job : jobs) {
    const std::string& path = job.catalog->path;
    if (changed.count(path) && !entries.count(path))
      entries[path] = ChangedEntries(root, base, path);
    std::string reason =
        Reason(job, changed, tests, changed.count(path) ? entries[path] : std::set<std::string>{});
    if (reason.empty()) continue;
    (*why)[job.id] = reason;
    picked.push_back(job);
  }
  return picked;
}

}  // namespace pg
