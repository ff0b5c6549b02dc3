#include "gates/contention/load_timeline.h"

#include <algorithm>

namespace pg {
namespace {

double Share(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0
                    : std::clamp(static_cast<double>(part) / static_cast<double>(whole), 0.0, 1.0);
}

}  // namespace

void LoadTimeline::Reaped(pid_t root, uint64_t ticks) {
  auto it = last_seen_.find(root);
  uint64_t seen = it == last_seen_.end() ? 0 : it->second;
  if (ticks > seen) reaped_own_ += ticks - seen;
  if (it != last_seen_.end()) last_seen_.erase(it);
}

void LoadTimeline::Add(const Snapshot& snapshot, double t) {
  if (prev_) {
    uint64_t busy = 0, total = 0, steal = 0;
    // CPUs whose counters all moved forward, as LoadMeter counts them.
    for (const auto& [cpu, now] : snapshot.cpus) {
      auto was = prev_->cpus.find(cpu);
      if (was == prev_->cpus.end()) continue;
      if (now.Busy() < was->second.Busy() || now.Total() < was->second.Total() ||
          now.steal < was->second.steal)
        continue;
      busy += now.Busy() - was->second.Busy();
      total += now.Total() - was->second.Total();
      steal += now.steal - was->second.steal;
    }
    uint64_t own = reaped_own_;
    for (const auto& [root, ticks] : snapshot.trees) {
      auto seen = last_seen_.find(root);
      uint64_t from = seen == last_seen_.end() ? 0 : seen->second;
      if (ticks > from) own += ticks - from;
    }
    if (snapshot.runner_ticks && prev_->runner_ticks &&
        *snapshot.runner_ticks > *prev_->runner_ticks) {
      own += *snapshot.runner_ticks - *prev_->runner_ticks;
    }
    if (total > 0) {
      points_.push_back(LoadPoint{t, Share(busy > own ? busy - own : 0, total), Share(steal, total),
                                  snapshot.psi_cpu});
    }
    reaped_own_ = 0;
  }
  for (const auto& [root, ticks] : snapshot.trees) last_seen_[root] = ticks;
  prev_ = snapshot;
}

}  // namespace pg
