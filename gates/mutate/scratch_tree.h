// Where mutants live: a copy of the user's working tree (tracked and untracked files, nothing
// git ignores, uncommitted edits included) made into a repository of its own, so that "restored"
// can be checked as "git status is clean". The user's tree is never written.
#pragma once

#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

// Copies `root`'s working tree into `dir` (created; must not exist) and commits it there.
Status MakeScratchTree(const std::string& root, const std::string& dir);

// Makes `dir` a scratch copy of `root` as it is now. An existing copy is updated in place,
// file by file and only where the content differs, so unchanged files keep their timestamps
// and the worker's build stays incremental; a new one is built aside and renamed into place.
Status SyncScratchTree(const std::string& root, const std::string& dir);

// Makes each of `carry` (paths git ignores, relative to `root`) in `dir` a symbolic link to
// `root`'s copy, or removes the link when `root` has none: installed packages a catalog's tests
// read, without copying them.
Status LinkCarried(const std::string& root, const std::string& dir,
                   const std::vector<std::string>& carry);

}  // namespace pg
