#include "mutations/step.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>

#include "runner/process.h"

namespace pg {
namespace {

using Clock = std::chrono::steady_clock;

// SIGTERM to the whole group, SIGKILL two seconds later if anything is left.
void Stop(Child& child, ExitInfo* info) {
  child.SignalGroup(SIGTERM);
  pollfd pfd{child.pidfd(), POLLIN, 0};
  if (poll(&pfd, 1, 2000) <= 0) child.SignalGroup(SIGKILL);
  while (!child.TryReap(info)) {
    pfd = {child.pidfd(), POLLIN, 0};
    poll(&pfd, 1, 100);
  }
  child.SignalGroup(SIGKILL);
}

}  // namespace

StatusOr<StepResult> RunStep(const StepSpec& spec) {
  std::remove(spec.log_path.c_str());
  auto start = Clock::now();
  PG_ASSIGN_OR_RETURN(Child child, Child::Spawn(SpawnSpec{spec.argv, spec.cwd, spec.env, spec.log_path}));
  StepResult result;
  ExitInfo info;
  auto deadline = start + std::chrono::duration<double>(spec.timeout_s > 0 ? spec.timeout_s : 1e9);
  while (!child.TryReap(&info)) {
    pollfd fds[2] = {{child.pidfd(), POLLIN, 0}, {spec.cancel_fd, POLLIN, 0}};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      Stop(child, &info);
      break;
    }
    poll(fds, spec.cancel_fd >= 0 ? 2 : 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (spec.cancel_fd >= 0 && (fds[1].revents & POLLIN)) {
      result.cancelled = true;
      Stop(child, &info);
      break;
    }
  }
  child.SignalGroup(SIGKILL);  // whatever the step left running in its group goes with it
  result.exit_code = info.exit_code;
  result.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace pg
