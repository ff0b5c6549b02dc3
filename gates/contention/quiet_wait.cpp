#include "gates/contention/quiet_wait.h"

#include <cmath>
#include <limits>

namespace pg {

bool IsContended(const LoadEvidence& e, const ContentionRules& rules) {
  return e.foreign_mean.value_or(0) >= rules.foreign_threshold ||
         e.steal_mean.value_or(0) >= rules.steal_threshold;
}

QuietResult WaitForQuiet(const Sampler& sampler, const ContentionRules& rules,
                         const QuietTimer& timer,
                         const std::function<void(const std::string&)>& progress) {
  QuietResult result;
  LoadMeter machine(
      0);  // proofgate: no-mutate (Now() records no process tree: any root measures alike)
  machine.Add(sampler.Now());
  double start = timer.now_s();
  // When the current quiet spell began; NaN: none (a sentinel that no time can equal, where -1
  // and 0 were times a mutant could turn one into the other).
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  double quiet_since = kNone;
  int reported_s = 0;
  while (true) {
    if (timer.sleep_or_cancel(rules.sample_interval_s)) {
      result.cancelled = true;
      break;
    }
    machine.Add(sampler.Now());
    result.waited_s = timer.now_s() - start;
    result.last_foreign = machine.LastForeign().value_or(1.0);  // unreadable is not quiet
    if (result.last_foreign < rules.quiet_threshold) {
      if (std::isnan(quiet_since)) quiet_since = result.waited_s;
      if (result.waited_s - quiet_since + rules.sample_interval_s >= rules.quiet_for_s - 1e-9) {
        result.quiet = true;
        break;
      }
    } else {
      quiet_since = kNone;
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
