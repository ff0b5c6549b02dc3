#include "gates/runner/fixers.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "gates/core/file_io.h"
#include "gates/runner/capture.h"

namespace fs = std::filesystem;

namespace pg {

void OneFixerAtATime(std::vector<Leg>* legs) {
  for (Leg& leg : *legs) {
    if (leg.stage_fixed) leg.locks.push_back(kFixersLock);
  }
}

std::vector<const Leg*> FixerPass(const std::vector<const Leg*>& legs) {
  std::set<std::string> wanted;
  for (auto it = legs.rbegin(); it != legs.rend(); ++it) {  // a leg's needs come before it
    if (!(*it)->stage_fixed && !wanted.count((*it)->name)) continue;
    wanted.insert((*it)->name);
    wanted.insert((*it)->needs.begin(), (*it)->needs.end());
  }
  std::vector<const Leg*> out;
  for (const Leg* leg : legs) {
    if (wanted.count(leg->name)) out.push_back(leg);
  }
  return out;
}

namespace {

enum class Kind { kFix, kDropped, kNot };

Kind KindOf(const FixerRun& run, const TreeChange& change,
            const std::map<std::string, std::vector<std::string>>& fixable,
            const std::map<std::string, LegResult>& results, const std::string& root_prefix,
            const std::set<std::string>& set_aside) {
  auto files = fixable.find(run.leg);
  auto result = results.find(run.leg);
  if (files == fixable.end() || result == results.end() || result->second.outcome != Outcome::kPass)
    return Kind::kNot;
  if (change.path.compare(0, root_prefix.size(), root_prefix) != 0) return Kind::kNot;
  std::string rel = change.path.substr(root_prefix.size());
  if (!std::binary_search(files->second.begin(), files->second.end(), rel))
    return Kind::kNot;  // the run's files are sorted
  return set_aside.count(change.path) ? Kind::kDropped : Kind::kFix;
}

}  // namespace

Fixes SortFixes(const std::vector<FixerRun>& runs,
                const std::map<std::string, std::vector<std::string>>& fixable,
                const std::map<std::string, LegResult>& results, const std::string& root_prefix,
                const std::set<std::string>& set_aside) {
  Fixes out;
  std::set<std::string> all;
  for (const FixerRun& run : runs) {
    for (const TreeChange& change : run.changes) {
      Kind kind = KindOf(run, change, fixable, results, root_prefix, set_aside);
      if (kind != Kind::kFix) {
        out.not_fixes.push_back(change);
        if (kind == Kind::kDropped) out.dropped[run.leg].push_back(change.path);
        continue;
      }
      out.by_leg[run.leg].push_back(change.path);
      all.insert(change.path);
    }
  }
  out.all.assign(all.begin(), all.end());
  return out;
}

namespace {

Status GitAdd(const std::string& workdir, const std::string& index, const std::string& pathspec) {
  std::vector<std::string> argv = {"git", "--literal-pathspecs", "add",
                                   "--pathspec-from-file=" + pathspec, "--pathspec-file-nul"};
  if (!index.empty()) argv.insert(argv.begin(), {"env", "GIT_INDEX_FILE=" + index});
  auto added = RunCapture(argv, workdir, 300);
  if (!added.ok()) return added.status();
  if (added->exit.exit_code != 0) return Status::Io("git add: " + added->output);
  return Status();
}

}  // namespace

Status StageFixes(const std::string& workdir, const std::string& gitdir,
                  const std::vector<std::string>& paths) {
  if (paths.empty()) return Status();
  std::string list;
  for (const std::string& p : paths) list += p + '\0';
  std::string pathspec = gitdir + "proofgate/fixes.pathspec";
  PG_RETURN_IF_ERROR(WriteFileAtomic(pathspec, list));
  Status staged = GitAdd(workdir, "", pathspec);
  const char* hooks_index = std::getenv("GIT_INDEX_FILE");
  std::error_code ec;
  if (staged.ok() && hooks_index &&
      fs::path(hooks_index).filename().string().rfind("next-index-", 0) == 0 &&
      fs::exists(gitdir + "index.lock", ec)) {
    staged = GitAdd(workdir, gitdir + "index.lock", pathspec);
  }
  fs::remove(pathspec, ec);
  return staged;
}

std::string DroppedNote(const std::vector<std::string>& paths, bool alone) {
  std::string listed;
  for (const std::string& p : paths) listed += (listed.empty() ? "" : ", ") + p;
  return std::string(alone ? "" : "; ") + "its fix to " + listed +
         " was dropped: unstaged changes there came back (stage or stash them, then commit again)";
}

std::string FixNote(const std::vector<std::string>& fixed) {
  constexpr size_t kNamed = 5;
  std::string note =
      "fixed " + std::to_string(fixed.size()) + (fixed.size() == 1 ? " file" : " files") + ": ";
  for (size_t i = 0; i < fixed.size() && i < kNamed; ++i) {
    note += i ? ", " : "";
    for (char c : fixed[i])
      note += c == '\n' ? "\\n" : c == '\t' ? "\\t" : std::string(1, c);  // one table row
  }
  if (fixed.size() > kNamed) note += " and " + std::to_string(fixed.size() - kNamed) + " more";
  return note;
}

}  // namespace pg
