// Gates over each commit of BASE..HEAD: commit style, change size, spec before code,
// tree-compiles (each commit's own tree built with its own build leg; verdicts cached by tree),
// required trailers and owed owners (ownership_gates.h).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/core/status.h"

namespace pg {

struct RangeOptions {
  std::set<std::string> gates{"commit-style", "change-size", "spec-order"};
  size_t subject_max = 72, body_max = 72;
  size_t max_lines = 2000, max_files = 60;
  std::vector<std::string> exclude;  // globs of files change-size does not count
  std::string build_leg =
      "build";  // tree-compiles: the leg (and its needs) of each commit's suites.json
  std::vector<TrailerRule> trailers;  // trailers: what each commit must carry
  std::string issues;                 // owed-owners: the issue snapshot (relative to the root)
};

struct GateFinding {
  std::string commit;  // full id
  std::string summary;
  std::string gate;
  bool ok = true;
  std::string message;  // why it failed, in words
};

// kInvalidInput for an unknown gate or a range git cannot resolve.
StatusOr<std::vector<GateFinding>> RunRangeGates(const std::string& workdir,
                                                 const std::string& range,
                                                 const RangeOptions& options);

// The commit-style problems of one message (empty: fine).
std::vector<std::string> CommitStyleProblems(const std::string& message, size_t subject_max,
                                             size_t body_max);

// The leading path of each "- " line under "## Scope".
std::vector<std::string> ScopePaths(const std::string& spec_text);

}  // namespace pg
