// The one source of "now" for supervised work. Real runs read the steady clock; tests pass a
// fake one (tests/gates/support/fake_launcher.h) so time limits and grace periods pass in no real
// time.
#pragma once

#include <chrono>

#include "gates/core/seconds.h"

namespace pg {

class Clock {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::steady_clock::duration;

  virtual ~Clock() = default;
  virtual time_point Now() const = 0;

  // Seconds since `t`, as reports give them.
  double Since(time_point t) const { return std::chrono::duration<double>(Now() - t).count(); }
  // Saturating (gates/core/seconds.h): a century or more is a century; NaN and s <= 0 are 0.
  static duration Seconds(double s) { return Ticks(s); }
};

// std::chrono::steady_clock behind the interface.
const Clock& SteadyClock();

}  // namespace pg
