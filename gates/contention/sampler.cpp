#include "gates/contention/sampler.h"

#include <unistd.h>

#include <chrono>
#include <cmath>

#include "gates/core/seconds.h"

namespace pg {

Sampler::Sampler(const ProcSource& proc, double interval_s, std::set<int> allowed_cpus,
                 SteadyNow now)
    : proc_(proc),
      interval_s_(interval_s),
      allowed_(std::move(allowed_cpus)),
      cgroup_paths_(CgroupCpuStatPaths(proc)),
      now_(now),
      started_(now()) {
  timeline_.Add(TakeSnapshot(proc_, {}, allowed_, {}, &cgroup_paths_), 0);
  thread_ = std::thread([this] { Loop(); });
}

Sampler::~Sampler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::vector<pid_t> Sampler::Roots() const {
  std::vector<pid_t> roots;
  for (const auto& [pid, meter] : meters_) roots.push_back(pid);
  return roots;
}

void Sampler::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  auto period = Ticks(interval_s_);  // saturating: a huge interval is no overflow
  while (!stop_) {
    wake_.wait_for(lock, period, [this] { return stop_; });
    if (stop_) continue;
    // Reading /proc under the lock keeps Track/Untrack from racing a half-fed meter; one
    // snapshot costs about a millisecond. It is taken with no leg running too: the timeline
    // shows the load while the run waits for quiet.
    Snapshot s = TakeSnapshot(proc_, Roots(), allowed_, tokens_, &cgroup_paths_);
    for (auto& [pid, meter] : meters_) meter.Add(s);
    timeline_.Add(s, std::chrono::duration<double>(now_() - started_).count());
  }
}

void Sampler::Track(pid_t root, const std::string& token) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!token.empty()) tokens_[root] = token;
  LoadMeter meter(root);
  // A leg that has just started is its root alone, exec'd a moment ago: its CPU is none yet
  // (what it starts shows in the next sample).
  Snapshot start = MachineReading(true);
  start.trees[root] = 0;
  meter.Add(start);
  meters_.insert_or_assign(root, std::move(meter));
}

LoadEvidence Sampler::Untrack(pid_t root, double reaped_cpu_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = meters_.find(root);
  if (it == meters_.end()) return LoadEvidence{};
  LoadMeter meter = std::move(it->second);
  meters_.erase(it);
  // The root is reaped by now (the supervisor reaps before the scheduler untracks): its
  // tree's CPU is wait4's `reaped_cpu_s`, and a scan of /proc would find none of it.
  meter.Add(MachineReading(false));
  tokens_.erase(root);
  static const long kTicksPerSecond = sysconf(_SC_CLK_TCK);
  auto reaped = static_cast<uint64_t>(std::llround(reaped_cpu_s * kTicksPerSecond));
  meter.SetReapedCpuTicks(reaped);
  timeline_.Reaped(root, reaped);
  return meter.Evidence();
}

std::vector<LoadPoint> Sampler::Timeline() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return timeline_.points();
}

Snapshot Sampler::MachineReading(bool reuse) {
  auto now = now_();
  if (!reuse || !last_at_ || now - *last_at_ >= std::chrono::duration<double>(kReuseS)) {
    last_ = TakeSnapshot(proc_, {}, allowed_, {}, &cgroup_paths_);
    last_at_ = now;
  }
  return last_;
}

Snapshot Sampler::Now() const { return TakeSnapshot(proc_, {}, allowed_, {}, &cgroup_paths_); }

}  // namespace pg
