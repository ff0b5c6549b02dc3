// A short command run to completion for its output: toolchain probes, record observers, test
// listings. Supervised as every child is (gates/runner/supervisor.h).
#pragma once

#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/runner/process.h"

namespace pg {

struct Captured {
  ExitInfo exit;
  std::string output;  // stdout and stderr together, or stdout alone when asked for apart
  std::string errors;  // stderr, when asked for apart
};

// kIo when the program cannot start, or has not finished `timeout_s` after it started (it
// is then stopped, SIGTERM then SIGKILL, with what it started).
// `apart`: stderr into `errors` instead of `output` (a record's observed value is its stdout).
StatusOr<Captured> RunCapture(const std::vector<std::string>& argv, const std::string& cwd,
                              double timeout_s, bool apart = false);

}  // namespace pg
