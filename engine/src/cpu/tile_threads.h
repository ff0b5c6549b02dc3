// Whether the tile gemm (the amx set, specs/amx.md) runs its columns on the pool's threads or
// on the caller alone. The pool's governor judges threads against the caller's own time per
// chunk, and two threads sharing one core's tile unit (two vCPUs of one core, as on the VM this
// was measured on) slow each other's chunks: the estimate grows with the loss, and two threads
// beside a foreign busy process ran a prompt at 0.8-0.9x of one. Here both ways are timed for
// real: the tile gemm's seconds per multiply-add, threaded and alone, each a running mean; the
// better one runs, and every kProbeEvery-th job runs the other way to keep its mean current.
// The split changes no output bit (each column is one thread's whole sum), so this choice,
// made from timings, never changes a result. No clock here: callers pass durations.
#pragma once

#include <cstdint>

namespace vt::cpu {

class TileThreads {
 public:
  static constexpr int64_t kProbeEvery = 16;
  // Threads are kept while their time per multiply-add is below this share of the caller's
  // alone (1.0 would keep threads that gain nothing and cost a core).
  static constexpr double kKeepBelow = 0.95;
  static constexpr double kWeight = 0.25;  // of the newest job in a running mean

  // Whether the next job should use the pool's threads (the first job does; the second runs
  // alone, so both ways have a time before either is preferred).
  bool UseThreads();
  // The job's wall seconds for `work` multiply-adds, run as the last UseThreads() said.
  void Record(bool threads, double seconds, double work);

 private:
  double threads_ = 0, alone_ = 0;  // seconds per multiply-add; 0: not timed yet
  int64_t jobs_ = 0;
};

}  // namespace vt::cpu
