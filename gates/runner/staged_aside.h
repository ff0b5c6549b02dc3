// `preflight --staged`: the unstaged changes of tracked files set aside, so the legs see what a
// commit would hold, and put back byte for byte however the run ends. What is set aside is
// journaled first (gates/core/journal.h): a run killed outright is undone by the next preflight,
// which leaves alone any file edited since the kill.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gates/core/journal.h"
#include "gates/core/status.h"

namespace pg {

class StagedAside {
 public:
  // Sets aside the unstaged changes in `workdir` (with a trailing '/'); `state_dir` is
  // <git-dir>/proofgate. kInvalidInput while another `--staged` run holds the repository, and
  // for unmerged paths. A killed run's journal is recovered first (recovered()).
  static StatusOr<std::unique_ptr<StagedAside>> Begin(const std::string& workdir,
                                                      const std::string& state_dir);
  StagedAside(const StagedAside&) = delete;
  StagedAside& operator=(const StagedAside&) = delete;
  ~StagedAside();  // puts back what PutBack did not (an error path)

  // Puts every set-aside file back; `notes` gets a line for each one a leg changed in the
  // meantime (the user's version wins, the leg's change is gone) and each folder a leg put in
  // one's way (moved aside).
  Status PutBack(std::vector<std::string>* notes);
  const std::vector<std::string>& files() const { return files_; }
  const std::vector<Recovered>& recovered() const { return recovered_; }

 private:
  StagedAside(std::string workdir, std::string journal_dir, int lock_fd)
      : workdir_(std::move(workdir)), journal_dir_(std::move(journal_dir)), lock_fd_(lock_fd) {}
  Status SetAside();
  void RemoveFoldersItMade() const;

  std::string workdir_, journal_dir_;
  int lock_fd_ = -1;
  std::vector<std::string> files_;              // relative to workdir_
  std::map<std::string, std::string> written_;  // file → the state the index's version left it in
  std::map<std::string, std::string> made_;     // file → the topmost folder checking it out made
  std::vector<Recovered> recovered_;
  bool put_back_ = false;
};

// Puts back what a `--staged` run killed outright set aside (when no run holds the repository).
StatusOr<std::vector<Recovered>> RecoverStaged(const std::string& state_dir);

// One line each for what recovery did: "a.txt: put back ...", "a.txt: edited since ...".
std::vector<std::string> RecoveryNotes(const std::vector<Recovered>& recovered,
                                       const std::string& workdir);

}  // namespace pg
