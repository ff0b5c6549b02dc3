// Legs that run for their files: a run's file set (every file, the staged ones, or those
// changed since a base), each leg's `files` globs matched against it, and `{files}` in its
// argv expanded, in batches that fit the OS's argument limits.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/core/status.h"

namespace pg {

enum class FileSet { kAll, kStaged, kBase };

struct RunFiles {
  FileSet set = FileSet::kAll;
  std::string base;                // kBase: the revision given to --base
  std::vector<std::string> files;  // relative to the root, sorted
  // "staged file", "file changed since main", "file": what the skip reasons name.
  std::string Noun() const;
};

// The file set of the repository at `root` (kAll outside git: the files under the root).
StatusOr<RunFiles> ListRunFiles(const std::string& root, FileSet set, const std::string& base);

// Whether `path` is one of a leg's `files`: a glob with a '/' is matched against the whole
// path, one without against each file's name as well ("*.cpp" matches src/a.cpp).
bool FilesGlobMatch(const std::string& glob, const std::string& path);

// How much argv a command may have: the whole of it (arguments, their NULs and pointers) and
// one argument (Linux's MAX_ARG_STRLEN: a `sh -c` string is one argument).
struct ArgLimits {
  size_t total = 0;
  size_t one = 0;
};
// This process's limits: half of ARG_MAX less its environment, and 128 KiB - 1 for one.
ArgLimits SystemArgLimits();

// The legs as a run runs them, in the same order: a leg with `files` or `{files}` whose globs
// match nothing is in `no_files` with its reason; `{files}` is expanded (paths relative to the
// leg's cwd); a leg whose files fit no single command becomes batches NAME#1, NAME#2, ..., and
// a leg that needed it needs each of them.
// A fixer (`stage_fixed`) is in `fixable` with the files it may rewrite, relative to the root:
// its matched files (a batch's own), or the whole set when it names none.
struct FileLegs {
  std::vector<Leg> legs;
  std::map<std::string, std::string> no_files;  // leg → why it has nothing to check
  std::map<std::string, std::vector<std::string>> fixable;
};
StatusOr<FileLegs> ExpandFileLegs(const std::vector<const Leg*>& legs, const RunFiles& files,
                                  const ArgLimits& limits);

}  // namespace pg
