// The one conversion from a duration in seconds (a flag, a JSON field) to clock ticks.
#pragma once

#include <chrono>

namespace pg {

// A century: any wait that long or longer is no limit in practice.
inline constexpr double kCenturyS = 100 * 365.25 * 24 * 3600;

// Saturates at a century, so `steady_clock::now() + Ticks(s)` cannot overflow: 1e10 s in
// nanoseconds is past int64 and wrapped to a deadline already gone (a leg with
// `"timeout_s": 1e10` timed out after 20 ms). NaN and s <= 0 are zero.
inline std::chrono::steady_clock::duration Ticks(double s) {
  if (!(s > 0)) return std::chrono::steady_clock::duration::zero();
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s < kCenturyS ? s : kCenturyS));
}

}  // namespace pg
