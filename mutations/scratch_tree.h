// Where mutants live: a copy of the user's working tree (tracked and untracked files, nothing
// git ignores, uncommitted edits included) made into a repository of its own, so that "restored"
// can be checked as "git status is clean". The user's tree is never written.
#pragma once

#include <string>

#include "core/status.h"
#include "mutations/catalog.h"

namespace pg {

// Copies `root`'s working tree into `dir` (created; must not exist) and commits it there.
Status MakeScratchTree(const std::string& root, const std::string& dir);

// One mutation applied to a scratch tree's file, remembering the original bytes.
class AppliedMutation {
 public:
  static StatusOr<AppliedMutation> Apply(const std::string& tree, const Mutation& m);
  // Writes the original bytes back and checks them (content hash) and the tree (git status).
  Status Restore();

 private:
  Status Write(const std::string& content);
  std::string path_, original_, original_hash_, tree_;
  unsigned perms_ = 0644;
};

}  // namespace pg
