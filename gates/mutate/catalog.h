// Mutation catalogs: declared source mutations, each with the tests it must turn red and the
// failure message (an anchored regex) that proves it red for the claimed reason.
#pragma once

#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/mutate/schema.h"

namespace pg {

// Where a spec's generated mutation table starts and ends.
inline constexpr const char* kMutationTableBegin = "<!-- proofgate:mutations -->";
inline constexpr const char* kMutationTableEnd = "<!-- /proofgate:mutations -->";

// The generated table's place in a spec: from just after a line that is exactly the begin
// marker to the start of the next line that is exactly the end marker. Markers quoted inside
// prose do not count (a spec may well describe them). False when there is no such pair.
bool FindMutationTable(const std::string& text, size_t* begin, size_t* end);

struct Expectation {
  std::string test;     // as the results name it: "Suite.Name" for gtest, a Catch2 or pytest name
  std::string message;  // ECMAScript regex, multiline (^ and $ at line boundaries)
};

struct Mutation {
  std::string id;
  std::string file;  // relative to the root
  std::string find, replace;
  int occurrence = 0;  // 1-based; 0: `find` must occur exactly once
  size_t offset = 0;   // where the chosen occurrence starts (filled by validation)
  std::vector<Expectation> expect;
  std::string note;
  // A documented hole: "survived" or "unviable" is this mutant's claim instead of red (empty).
  std::string expect_outcome;
  // A generated mutant (`mutate --generate`, specs/mutate-generate.md) claims nothing: it is
  // killed when any of `tests` (ctest names) fails, survived when all pass.
  bool generated = false;
  std::vector<std::string> tests;
  int line = 0, column = 0;
  std::string op, change, diff;  // operator name; the one-line change; a unified diff
  int schema_number = 0;         // its switch value in its file's schema (0: none)
};

struct Combo {
  std::string id;
  std::vector<std::string> apply;
  bool expect_green = true;
};

struct Catalog {
  std::string path;
  std::vector<std::string> build_targets;
  std::vector<std::string> configure, build_command, test_command;  // empty: CMake + ctest defaults
  std::vector<std::string>
      list_command;  // prints one test name per line (prove); empty: ctest's listing
  std::string spec;  // the spec whose generated mutation table this catalog's results rewrite
  std::vector<std::string> affected_by;  // globs: a change there can affect every mutant here
  std::vector<std::string> carry;  // ignored paths linked into scratch trees (installed packages)
  std::vector<Mutation> mutations;
  std::vector<Combo> combos;
  std::vector<Schema> schemata;  // generated catalogs: one per file, every mutant compiled in
};

// Parses and validates against the files under `root`; errors are kInvalidInput "path:line:col:".
StatusOr<Catalog> ParseCatalog(const std::string& path, const std::string& text,
                               const std::string& root);
StatusOr<Catalog> LoadCatalog(const std::string& path, const std::string& root);

}  // namespace pg
