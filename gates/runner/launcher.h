// What the supervisor (gates/runner/supervisor.h) starts children through. The real launcher spawns
// processes (gates/runner/process.h); tests use a fake one whose children exit in fake time, as
// ninja's FakeCommandRunner does, so nothing about time limits needs a real sleep.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/runner/clock.h"
#include "gates/runner/process.h"

namespace pg {

// A started child. Its process group is its own: a signal to the group reaches all it started.
class Process {
 public:
  virtual ~Process() = default;
  virtual pid_t pid() const = 0;
  // Reaps the child if it has exited; true when `out` was filled.
  virtual bool TryReap(ExitInfo* out) = 0;
  virtual void SignalGroup(int sig) = 0;
  // After the reap: kills what the child left in its group, then every process re-parented to
  // proofgate whose environment carries the child's token (gates/runner/adoption.h).
  virtual void CleanUp() = 0;
};

class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  virtual const Clock& clock() const = 0;
  // Starts `spec` with `token` as PROOFGATE_LEG_TOKEN; kIo when the program cannot start.
  virtual StatusOr<std::unique_ptr<Process>> Start(const SpawnSpec& spec,
                                                   const std::string& token) = 0;
  // Returns once one of `running` can be reaped, `until` has passed, or `cancel_fd` (when
  // >= 0) is readable; true in the last case. `running` holds this launcher's processes only.
  virtual bool Wait(const std::vector<Process*>& running, Clock::time_point until,
                    int cancel_fd) = 0;
};

// Real processes on the steady clock. The first call makes proofgate the child subreaper, so
// what leaves a child's tree is re-parented to proofgate and the clean-up can reach it.
ProcessLauncher& RealLauncher();

}  // namespace pg
