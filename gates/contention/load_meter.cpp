#include "gates/contention/load_meter.h"

#include <algorithm>

namespace pg {
namespace {

uint64_t Delta(std::optional<uint64_t> from, std::optional<uint64_t> to) {
  if (!from || !to || *to < *from) return 0;
  return *to - *from;
}

double Share(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0
                    : std::clamp(static_cast<double>(part) / static_cast<double>(whole), 0.0, 1.0);
}

}  // namespace

// CPUs present in both snapshots whose counters all moved forward; an offline CPU or a
// counter that went backwards (wrap, hotplug reset) drops out of this interval only.
LoadMeter::Interval LoadMeter::CpuDelta(const Snapshot& from, const Snapshot& to) {
  Interval d;
  for (const auto& [cpu, now] : to.cpus) {
    auto it = from.cpus.find(cpu);
    if (it == from.cpus.end()) continue;
    const CpuTimes& was = it->second;
    if (now.Busy() < was.Busy() || now.Total() < was.Total() || now.steal < was.steal) continue;
    d.busy += now.Busy() - was.Busy();
    d.total += now.Total() - was.Total();
    d.steal += now.steal - was.steal;
    d.valid = true;
  }
  return d;
}

uint64_t LoadMeter::OwnDelta(const Snapshot& from, const Snapshot& to) const {
  if (root_ == 0) return 0;
  auto a = from.trees.find(root_);
  auto b = to.trees.find(root_);
  if (a == from.trees.end() || b == to.trees.end() || b->second < a->second) return 0;
  return b->second - a->second;
}

void LoadMeter::Add(const Snapshot& snapshot) {
  if (!first_) first_ = snapshot;
  if (prev_) {
    Interval d = CpuDelta(*prev_, snapshot);
    if (d.valid && d.total > 0) {
      uint64_t own = OwnDelta(*prev_, snapshot);
      if (!snapshot.runner_ticks || !prev_->runner_ticks) runner_absent_ = true;
      uint64_t runner = Delta(prev_->runner_ticks, snapshot.runner_ticks);
      uint64_t foreign = d.busy > own + runner ? d.busy - own - runner : 0;
      last_foreign_ = Share(foreign, d.total);
      max_ = std::max(max_.value_or(0.0), *last_foreign_);
      busy_ += d.busy;
      total_ += d.total;
      steal_ += d.steal;
      own_ += own;
      runner_ += runner;
      ++samples_;
    }
  }
  prev_ = snapshot;
}

LoadEvidence LoadMeter::Evidence() const {
  LoadEvidence e;
  e.samples = samples_;
  if (samples_ > 0) {
    uint64_t own = std::max(own_, reaped_ticks_);
    uint64_t foreign = busy_ > own + runner_ ? busy_ - own - runner_ : 0;
    e.foreign_mean = Share(foreign, total_);
    e.foreign_max = std::max(max_.value_or(0.0), *e.foreign_mean);
    e.steal_mean = Share(steal_, total_);
    e.busy_mean = Share(busy_, total_);
  } else {
    e.absent.push_back("cpu");  // fewer than two readable /proc/stat snapshots
  }
  if (prev_) {
    e.loadavg1 = prev_->loadavg1;
    e.psi_cpu = prev_->psi_cpu;
    e.psi_io = prev_->psi_io;
    e.psi_memory = prev_->psi_memory;
    if (first_->throttled_s && prev_->throttled_s) {
      e.throttled_s = std::max(0.0, *prev_->throttled_s - *first_->throttled_s);
    }
  }
  if (!e.loadavg1) e.absent.push_back("loadavg");
  if (!e.psi_cpu) e.absent.push_back("psi_cpu");
  if (!e.psi_io) e.absent.push_back("psi_io");
  if (!e.psi_memory) e.absent.push_back("psi_memory");
  if (!e.throttled_s) e.absent.push_back("cgroup_throttling");
  if (runner_absent_) e.absent.push_back("runner_cpu");
  return e;
}

}  // namespace pg
