// proofgate's view of git. This is the only file of ours that includes <git2.h>.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace pg::git {

struct Repo {
  std::string workdir;  // with a trailing '/'
  std::string gitdir;   // with a trailing '/'
};

// The repository containing `path`; kInvalidInput when there is none.
StatusOr<Repo> Discover(const std::string& path);

// The git tree id of what is in the working directory now: HEAD plus staged, unstaged and
// untracked (not ignored) changes. Objects are hashed into an in-memory store, so neither
// the index file nor the object database is written. Equals HEAD^{tree} on a clean tree.
StatusOr<std::string> WorkingTreeHash(const std::string& workdir);

// The git blob id (hex) of `data`: a content hash that needs no repository.
std::string HashBytes(std::string_view data);

// Creates a repository at `path` (tests and scratch trees).
Status Init(const std::string& path);
// Stages everything (respecting .gitignore) and commits it on HEAD; returns the commit id.
StatusOr<std::string> CommitAll(const std::string& workdir, const std::string& message);

}  // namespace pg::git
