// A journal of files about to be written: before mutate changes a scratch file, or `preflight
// --staged` sets an unstaged change aside, the original bytes, their sha256 and the mode are
// saved (or that the file was not there), so a run killed at any instant (SIGKILL included)
// can be undone by RecoverJournal. Every journal write is a temporary file renamed into place: an entry is
// either whole or absent, and an entry is only written once its original bytes are.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace pg {

class Journal {
 public:
  explicit Journal(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  // Records `path` (absolute) before it is written: `original` is what it holds now.
  Status Record(const std::string& path, const std::string& original, unsigned mode);
  // Records that `path` (absolute) is absent before something is written there.
  Status RecordAbsent(const std::string& path);
  // `path` is verified back to its original: drop its entry.
  Status Forget(const std::string& path);

 private:
  std::string dir_;
};

struct Recovered {
  std::string path;
  bool rewritten = false;  // false: the file already held its original bytes
  bool gone = false;       // its scratch tree no longer exists (removed by gc or by hand)
};

// What recovery does with a file whose folder is gone: mutate's scratch tree was removed (gc),
// so there is nothing to put back; a user's folder is made again.
enum class MissingFolder { kDropEntry, kCreate };

// Puts every journaled file back to its original bytes and mode (a file that was absent is
// removed), checks each by sha256, and empties the journal. kInternal when a saved original is
// corrupt (its entry is kept).
StatusOr<std::vector<Recovered>> RecoverJournal(const std::string& dir, MissingFolder missing = MissingFolder::kDropEntry);

}  // namespace pg
