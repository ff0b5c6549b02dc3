#include "gates/mutate/step.h"

#include <cstdio>

#include "gates/runner/supervisor.h"

namespace pg {

StatusOr<StepResult> RunStep(const StepSpec& spec) {
  std::remove(spec.log_path.c_str());
  Supervisor supervisor(spec.launcher ? *spec.launcher : RealLauncher(), spec.kill_grace_s);
  PG_RETURN_IF_ERROR(
      supervisor.Start(SpawnSpec{spec.argv, spec.cwd, spec.env, spec.log_path, ""}, spec.timeout_s)
          .status());
  StepResult result;
  int cancel_fd = spec.cancel_fd;
  while (true) {
    bool cancel = false;
    std::vector<SupervisedExit> ended = supervisor.Wait(cancel_fd, &cancel);
    if (cancel) {
      result.cancelled = true;
      supervisor.StopAll();
      cancel_fd = -1;  // stays readable: the stop is under way
    }
    if (ended.empty()) continue;
    result.exit_code = ended.front().info.exit_code;
    result.timed_out = ended.front().timed_out;
    result.wall_s = ended.front().wall_s;
    return result;
  }
}

}  // namespace pg
