#include "contention/quiet_wait.h"

#include <poll.h>

#include <chrono>
#include <cmath>

namespace pg {

bool IsContended(const LoadEvidence& e, const ContentionRules& rules) {
  return e.foreign_mean.value_or(0) >= rules.foreign_threshold ||
         e.steal_mean.value_or(0) >= rules.steal_threshold;
}

namespace {

// Sleeps one interval; true when cancel_fd became readable instead.
bool SleepOrCancel(double seconds, int cancel_fd) {
  pollfd pfd{cancel_fd, POLLIN, 0};
  int ms = static_cast<int>(std::lround(seconds * 1000));
  return poll(&pfd, cancel_fd >= 0 ? 1 : 0, ms) > 0;
}

}  // namespace

QuietResult WaitForQuiet(const Sampler& sampler, const ContentionRules& rules, int cancel_fd,
                         const std::function<void(const std::string&)>& progress) {
  using Clock = std::chrono::steady_clock;
  QuietResult result;
  LoadMeter machine(0);
  machine.Add(sampler.Now());
  auto start = Clock::now();
  double quiet_since = -1;
  int reported_s = 0;
  while (true) {
    if (SleepOrCancel(rules.sample_interval_s, cancel_fd)) {
      result.cancelled = true;
      break;
    }
    machine.Add(sampler.Now());
    result.waited_s = std::chrono::duration<double>(Clock::now() - start).count();
    result.last_foreign = machine.LastForeign().value_or(1.0);  // unreadable is not quiet
    if (result.last_foreign < rules.quiet_threshold) {
      if (quiet_since < 0) quiet_since = result.waited_s;
      if (result.waited_s - quiet_since + rules.sample_interval_s >= rules.quiet_for_s - 1e-9) {
        result.quiet = true;
        break;
      }
    } else {
      quiet_since = -1;
    }
    if (result.waited_s >= rules.quiet_wait_s) break;
    if (progress && static_cast<int>(result.waited_s) > reported_s) {
      reported_s = static_cast<int>(result.waited_s);
      progress("waiting for quiet: " + std::to_string(reported_s) + "s foreign=" +
               std::to_string(static_cast<int>(std::lround(result.last_foreign * 100))) + "%");
    }
  }
  return result;
}

}  // namespace pg
