// Decides whether the thread pool's jobs run on every thread or on the caller alone. On a
// machine where other processes hold cores, a worker is often off its core when a job starts or
// mid-chunk, and every job then waits for it: two threads ran a decode at half the speed of one
// (specs/engine-core.md). The pool reports each parallel job's wall time beside an estimate of
// what the caller alone would have taken (its own time per chunk × all chunks); over a window
// of jobs, weighted by their time so that big matmuls and not tiny ops decide, the governor
// keeps the threads while they pay and falls back to the caller alone when they do not,
// probing the threads again after a back-off that doubles while they keep losing.
// No clock here: callers pass durations, so tests drive it with numbers.
#pragma once

#include <cstdint>

namespace vt {

class ParallelGovernor {
 public:
  // Jobs per judgement of the threads; jobs on the caller alone before the first probe.
  static constexpr int kWindow = 32;
  static constexpr int64_t kFirstBackoff = 256;
  static constexpr int64_t kMaxBackoff = 8192;
  // The threads are kept while the window's wall time is below this share of its
  // single-thread estimate (1.0 would keep threads that gain nothing and cost a core).
  static constexpr double kKeepBelow = 0.95;

  // Whether the next job should use the workers.
  bool UseThreads() const { return solo_left_ == 0; }
  // A job ran on the threads: its wall time and the caller-alone estimate (same unit).
  void RecordParallel(double wall, double single_estimate);
  // A job ran on the caller alone (counts down the back-off).
  void RecordSolo();

  int64_t backoff() const { return backoff_; }

 private:
  double wall_ = 0, estimate_ = 0;
  int jobs_ = 0;
  int64_t solo_left_ = 0;
  int64_t backoff_ = kFirstBackoff;
};

}  // namespace vt
