// Fixer legs (`"stage_fixed": true`, lefthook's name): they may rewrite their files, so a run
// starts with them, one at a time, and the other legs verify the tree they leave. Which of
// their changes are fixes, and how a fixer's result says so.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/core/status.h"
#include "gates/runner/leg_result.h"

namespace pg {

// The lock every fixer holds: two fixers may rewrite one file, so they never run together.
inline constexpr const char* kFixersLock = "proofgate: fixers";
void OneFixerAtATime(std::vector<Leg>* legs);

// The run's first pass: the fixers among `legs` and every leg they need, in `legs`' order
// (needs come first). Empty when no leg is a fixer.
std::vector<const Leg*> FixerPass(const std::vector<const Leg*>& legs);

// What the tree gained while one leg of the fixer pass had it: from a fixer's start to the next
// fixer's start (or the pass's end); `leg` is empty for what changed before the first fixer.
struct FixerRun {
  std::string leg;
  std::vector<TreeChange> changes;
};

// The fixer pass's changes sorted: a change is a fix when the fixer it happened under passed
// and may rewrite that path (`fixable`: leg → files relative to the root; `root_prefix` is the
// root relative to the working tree, "" or "app/"); anything else (a file outside the fixer's
// files, one in `set_aside`, a failed fixer's) is not. Paths are relative to the working tree.
struct Fixes {
  std::map<std::string, std::vector<std::string>> by_leg;
  std::map<std::string, std::vector<std::string>>
      dropped;                   // its own files set aside: no fix, named
  std::vector<std::string> all;  // every fixed path once, sorted
  std::vector<TreeChange> not_fixes;
};
Fixes SortFixes(const std::vector<FixerRun>& runs,
                const std::map<std::string, std::vector<std::string>>& fixable,
                const std::map<std::string, LegResult>& results, const std::string& root_prefix,
                const std::set<std::string>& set_aside);

// Stages `paths` (relative to the working tree `workdir`; a path that is gone is staged as
// removed) as `git add` does, by git itself: libgit2 runs no filter drivers (git-lfs, a clean
// command), and the commit must hold what git would have made of the file. The index is the
// one git gave the hook (GIT_INDEX_FILE); under `git commit PATH` that is a temporary one, and
// the repository's index that git installs after the commit (`<gitdir>/index.lock`) gets them
// too, or it would stage the undoing of the fix.
Status StageFixes(const std::string& workdir, const std::string& gitdir,
                  const std::vector<std::string>& paths);

// What a fixer's note says of the fixes dropped because the file had unstaged changes; `alone`
// when the note has nothing before it.
std::string DroppedNote(const std::vector<std::string>& paths, bool alone);

// "fixed 2 files: src/a.cpp, src/b.cpp", at most five named (" (staged)" goes before the colon).
std::string FixNote(const std::vector<std::string>& fixed);

}  // namespace pg
