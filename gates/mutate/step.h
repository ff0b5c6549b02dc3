// One step of a mutant's life (configure, build, test) as a supervised child: its own process
// group, output to a log, a time limit, and Ctrl-C honoured at once (gates/runner/supervisor.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/core/status.h"
#include "gates/runner/launcher.h"
#include "gates/runner/log_scan.h"

namespace pg {

struct StepSpec {
  std::vector<std::string> argv;
  std::string cwd;
  std::vector<std::pair<std::string, std::string>> env;
  std::string log_path;                      // truncated, then stdout and stderr
  double timeout_s = 0;                      // 0: none
  int cancel_fd = -1;                        // readable: stop now
  double kill_grace_s = kDefaultKillGraceS;  // SIGTERM, then SIGKILL this much later
  ProcessLauncher* launcher = nullptr;       // null: real processes
};

struct StepResult {
  int exit_code = -1;  // -1 when killed
  bool timed_out = false;
  bool cancelled = false;
  double wall_s = 0;
  bool ok() const { return exit_code == 0 && !timed_out && !cancelled; }
};

// kIo when the program cannot be started.
StatusOr<StepResult> RunStep(const StepSpec& spec);

}  // namespace pg
