// Waiting for a quiet machine before a contended timing leg is rerun.
#pragma once

#include <functional>
#include <string>

#include "gates/contention/sampler.h"

namespace pg {

struct ContentionRules {
  double foreign_threshold = 0.25;  // a failed timing attempt at or above this is contended
  double steal_threshold = 0.05;
  double quiet_threshold = 0.10;  // the machine is quiet below this...
  double quiet_for_s = 1;         // ...for this long
  double quiet_wait_s = 120;      // give up (outcome contended) after this
  double sample_interval_s = 0.25;
};

// True when a failed timing attempt with this evidence must not count as a failure.
bool IsContended(const LoadEvidence& evidence, const ContentionRules& rules);

struct QuietResult {
  bool quiet = false;
  bool cancelled = false;
  double waited_s = 0;
  double last_foreign = 0;
};

// How the wait passes time: the scheduler waits on its launcher (gates/runner/launcher.h), so a
// test with a fake launcher waits in fake time.
struct QuietTimer {
  std::function<double()> now_s;                        // seconds on the run's clock
  std::function<bool(double seconds)> sleep_or_cancel;  // true when cancelled instead
};

// Samples the machine until its foreign share stays under the quiet threshold for
// `quiet_for_s`, the wait bound passes, or the timer reports a cancel. `progress` gets
// "waiting for quiet: 3s foreign=87%" about once a second.
QuietResult WaitForQuiet(const Sampler& sampler, const ContentionRules& rules,
                         const QuietTimer& timer,
                         const std::function<void(const std::string&)>& progress);

}  // namespace pg
