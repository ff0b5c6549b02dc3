// The sampler thread: every interval it takes one snapshot covering every tracked leg and
// feeds each leg's meter, so evidence describes the whole time a leg ran.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "gates/contention/load_meter.h"
#include "gates/contention/load_timeline.h"
#include "gates/contention/proc_source.h"

namespace pg {

class Sampler {
 public:
  using SteadyNow = std::chrono::steady_clock::time_point (*)();
  // `now` is the clock Track's reuse of a reading is judged by (tests give a fake one).
  Sampler(const ProcSource& proc, double interval_s, std::set<int> allowed_cpus,
          SteadyNow now = &std::chrono::steady_clock::now);
  ~Sampler();
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Starts metering `root`'s process tree with a baseline snapshot taken now, or the reading
  // a Track or Untrack took less than kReuseS ago. `token` is the leg's PROOFGATE_LEG_TOKEN:
  // processes adopted from the leg count as its tree too.
  void Track(pid_t root, const std::string& token = "");
  // Takes a closing snapshot and returns the evidence. `root` has been reaped: its tree's CPU
  // is `reaped_cpu_s`, wait4's figure.
  LoadEvidence Untrack(pid_t root, double reaped_cpu_s);
  // A synchronous snapshot (quiet wait, `proofgate load`).
  Snapshot Now() const;
  double interval_s() const { return interval_s_; }
  // The machine's load at each interval since the sampler started
  // (gates/contention/load_timeline.h).
  std::vector<LoadPoint> Timeline() const;

 private:
  // /proc/stat counts CPU in ticks of 10 ms (USER_HZ 100): a reading younger than a tenth of
  // one differs from a new one by at most the tick either rounds away. Legs that end and
  // start in one pass of the scheduler share one reading (a third of a short leg's cost).
  static constexpr double kReuseS = 0.001;

  void Loop();
  std::vector<pid_t> Roots() const;     // callers hold mutex_
  Snapshot MachineReading(bool reuse);  // callers hold mutex_

  const ProcSource& proc_;
  double interval_s_;
  std::set<int> allowed_;
  std::vector<std::string> cgroup_paths_;  // found once: a process's cgroup stays put
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::map<pid_t, LoadMeter> meters_;
  std::map<pid_t, std::string> tokens_;
  LoadTimeline timeline_;
  SteadyNow now_;
  std::chrono::steady_clock::time_point started_;
  Snapshot last_;  // Track's and Untrack's latest machine reading, taken at last_at_
  std::optional<std::chrono::steady_clock::time_point> last_at_;
  std::thread thread_;
};

}  // namespace pg
