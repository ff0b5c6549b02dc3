// The machine's load over a whole run, one point per sampler interval: what the HTML report
// plots under the legs' timeline. Per-leg verdicts never read it (they read LoadMeter's
// evidence); it is a picture of the run, built from the same /proc readings.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "gates/contention/snapshot.h"

namespace pg {

struct LoadPoint {
  double t = 0;                   // seconds since the run started (the end of the interval)
  double foreign = 0;             // share of the allowed CPUs busy with neither proofgate nor a leg
  double steal = 0;               // share stolen by the hypervisor
  std::optional<double> psi_cpu;  // "some avg10", percent, when the kernel has PSI
};

class LoadTimeline {
 public:
  // A snapshot covering every tracked leg's tree, taken `t` seconds into the run; the first
  // is the baseline, each later one adds a point.
  void Add(const Snapshot& snapshot, double t);
  // A leg reaped since the last snapshot: `ticks` is its tree's CPU as wait4 reported it. What
  // it used after its last sampled reading counts as its own in the next interval instead of
  // as foreign load (a leg ends between two samples every time).
  void Reaped(pid_t root, uint64_t ticks);
  const std::vector<LoadPoint>& points() const { return points_; }

 private:
  std::optional<Snapshot> prev_;
  std::map<pid_t, uint64_t> last_seen_;  // each live root's tree ticks at the last snapshot
  uint64_t reaped_own_ = 0;              // reaped legs' ticks not yet in a point
  std::vector<LoadPoint> points_;
};

}  // namespace pg
