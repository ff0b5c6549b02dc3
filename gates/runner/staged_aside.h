// `preflight --staged`: the unstaged changes of tracked files set aside, so the legs see what a
// commit would hold, and put back byte for byte however the run ends. What is set aside is
// journaled first (core/journal.h): a run killed outright is undone by the next preflight.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace pg {

class StagedAside {
 public:
  // Sets aside the unstaged changes in `workdir` (with a trailing '/'); `state_dir` is
  // <git-dir>/proofgate. kInvalidInput while another `--staged` run holds the repository, for
  // unmerged paths, and for a symbolic link with unstaged changes.
  static StatusOr<std::unique_ptr<StagedAside>> Begin(const std::string& workdir, const std::string& state_dir);
  StagedAside(const StagedAside&) = delete;
  StagedAside& operator=(const StagedAside&) = delete;
  ~StagedAside();  // puts back what PutBack did not (an error path)

  // Puts every set-aside file back; `dropped` gets each one a leg changed in the meantime
  // (the user's version wins, the leg's change is gone).
  Status PutBack(std::vector<std::string>* dropped);
  const std::vector<std::string>& files() const { return files_; }

 private:
  StagedAside(std::string workdir, std::string journal_dir, int lock_fd)
      : workdir_(std::move(workdir)), journal_dir_(std::move(journal_dir)), lock_fd_(lock_fd) {}
  Status SetAside();

  std::string workdir_, journal_dir_;
  int lock_fd_ = -1;
  std::vector<std::string> files_;  // relative to workdir_
  bool put_back_ = false;
};

// Puts back what a `--staged` run killed outright set aside (when no run holds the repository):
// the files it rewrote, relative paths.
StatusOr<std::vector<std::string>> RecoverStaged(const std::string& state_dir);

}  // namespace pg
