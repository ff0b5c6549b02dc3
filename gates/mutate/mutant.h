// A mutant: one or more declared mutations applied together to a scratch tree's files,
// remembering each file's original bytes. Restoring checks every file by sha256 and the tree
// by `git status`; the journal (when given) holds the originals while the mutant exists.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "gates/core/journal.h"
#include "gates/core/status.h"
#include "gates/mutate/catalog.h"

namespace pg {

class AppliedMutant {
 public:
  // Mutations in the same file are applied from the last offset to the first, so each one's
  // located offset stays valid; overlapping edits are refused.
  static StatusOr<AppliedMutant> Apply(const std::string& tree,
                                       const std::vector<const Mutation*>& mutations,
                                       Journal* journal);
  // Writes the originals back, then proves it: sha256 per file, a clean tree, journal emptied.
  Status Restore();

 private:
  struct File {
    std::string path, original, sha256;
    unsigned perms = 0644;
  };
  Status Write(const File& f, const std::string& content) const;
  std::vector<File> files_;
  std::string tree_;
  std::set<std::string> before_;  // what git status showed before the mutant was applied
  Journal* journal_ = nullptr;
};

}  // namespace pg
