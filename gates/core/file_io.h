// Whole-file reads and crash-safe writes.
#pragma once

#include <string>

#include "gates/core/status.h"

namespace pg {

// A missing or unreadable file is kInvalidInput: it is always a path the user gave us.
StatusOr<std::string> ReadFile(const std::string& path);
// Writes to a temporary sibling and renames it over `path`, so readers never see half a file.
Status WriteFileAtomic(const std::string& path, const std::string& content);
// Appends `text` to `path` (created if missing) in one write(2): a reader, or a run killed
// mid-append, sees whole earlier lines.
Status AppendToFile(const std::string& path, const std::string& text);
// AppendToFile for a file appended to many times (the legs stream: a line per finished leg):
// opened on the first Append and kept open, each Append still one write(2).
class AppendingFile {
 public:
  AppendingFile() = default;
  ~AppendingFile();
  AppendingFile(const AppendingFile&) = delete;
  AppendingFile& operator=(const AppendingFile&) = delete;
  Status Append(const std::string& path, const std::string& text);

 private:
  std::string path_;
  int fd_ = -1;
};
// Creates `path` and its parents.
Status MakeDirs(const std::string& path);
// `path`, which a walk of the directory `root` found, relative to `root` ("src/a.c"), by its own
// name: std::filesystem::relative resolves symlinks, and names a link by where it leads.
std::string RelativePath(const std::string& path, const std::string& root);

}  // namespace pg
