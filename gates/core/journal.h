// A journal of files about to be written: before mutate changes a scratch file, or `preflight
// --staged` sets an unstaged change aside, the original (a file's bytes and mode, a link's
// target, or that nothing was there) is saved with its sha256, so a run killed at any instant
// (SIGKILL included) can be undone by RecoverJournal. Every journal write is a temporary file
// renamed into place: an entry is either whole or absent, and an entry is only written once
// its original bytes are.
#pragma once

#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

// What a path holds, as one comparable string: "absent", "link:<target>", "dir" or
// "file:<sha256>:<mode>".
std::string FileState(const std::string& path);

class Journal {
 public:
  explicit Journal(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }

  // Records `path` (absolute) before it is written: `original` is what it holds now.
  Status Record(const std::string& path, const std::string& original, unsigned mode);
  // Records that `path` (absolute) is absent before something is written there.
  Status RecordAbsent(const std::string& path);
  // Records that `path` is a symbolic link to `target`.
  Status RecordLink(const std::string& path, const std::string& target);
  // Records the state (FileState) the writer left `path` in: recovery then puts the original
  // back only while the path is still in that state, so what someone wrote after a kill wins.
  Status RecordWritten(const std::string& path, const std::string& state);
  // `path` is verified back to its original: drop its entry.
  Status Forget(const std::string& path);

 private:
  std::string dir_;
};

struct Recovered {
  std::string path;
  bool rewritten = false;    // false: the file already held its original bytes
  bool gone = false;         // its scratch tree no longer exists (removed by gc or by hand)
  bool kept_theirs = false;  // changed since it was written: what is there stays
  std::string kept{};        // ... and the original went here (empty: it was no file)
  std::string moved{};       // a directory in the original's way was moved here
};

// What recovery does with a file whose folder is gone: mutate's scratch tree was removed (gc),
// so there is nothing to put back; a user's folder is made again.
enum class MissingFolder { kDropEntry, kCreate };

// Puts every journaled path back as it was (a file's bytes and mode, a link, or nothing),
// checks each by sha256, and empties the journal; originals it may not put back, and
// directories in their way, go to <dir>.kept/. Every entry is tried; the first error is
// returned (kInternal when a saved original is corrupt: its entry is kept).
StatusOr<std::vector<Recovered>> RecoverJournal(const std::string& dir,
                                                MissingFolder missing = MissingFolder::kDropEntry);

}  // namespace pg
