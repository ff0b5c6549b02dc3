// Turns a series of snapshots into one leg's load evidence: how much of the allowed CPUs
// was busy with work that was neither the leg's own process tree nor the runner.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "gates/contention/snapshot.h"

namespace pg {

struct LoadEvidence {
  int samples = 0;                                    // intervals that could be measured
  std::optional<double> foreign_mean;                 // share of allowed CPU time, 0..1
  std::optional<double> foreign_max;                  // worst single interval
  std::optional<double> steal_mean;                   // share stolen by the hypervisor, 0..1
  std::optional<double> busy_mean;                    // all busy time, own work included, 0..1
  std::optional<double> loadavg1;                     // last reading
  std::optional<double> psi_cpu, psi_io, psi_memory;  // last "some avg10", percent
  std::optional<double> throttled_s;                  // cgroup throttling during the leg
  std::vector<std::string> absent;                    // signals this machine did not provide
};

class LoadMeter {
 public:
  // `root` is the leg's process (0: measure the machine, nothing is own).
  explicit LoadMeter(pid_t root) : root_(root) {}

  // The first snapshot is the baseline; each later one closes an interval.
  void Add(const Snapshot& snapshot);
  // The leg's own CPU as wait4 reported it when it was reaped: it also covers descendants
  // that lived and died between two samples. Own CPU is the larger of this and the sampled sum.
  void SetReapedCpuTicks(uint64_t ticks) { reaped_ticks_ = ticks; }
  LoadEvidence Evidence() const;
  // The share of the last interval alone (for the quiet wait); nullopt before two samples.
  std::optional<double> LastForeign() const { return last_foreign_; }

 private:
  struct Interval {
    uint64_t busy = 0, total = 0, steal = 0;
    bool valid = false;
  };
  static Interval CpuDelta(const Snapshot& from, const Snapshot& to);
  uint64_t OwnDelta(const Snapshot& from, const Snapshot& to) const;

  pid_t root_;
  std::optional<Snapshot> first_, prev_;
  uint64_t busy_ = 0, total_ = 0, steal_ = 0, own_ = 0, runner_ = 0;
  uint64_t reaped_ticks_ = 0;
  int samples_ = 0;
  std::optional<double> max_, last_foreign_;
  bool runner_absent_ = false;
};

}  // namespace pg
