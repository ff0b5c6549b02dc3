#include "cpu/tile_threads.h"

namespace vt::cpu {

bool TileThreads::UseThreads() {
  const int64_t job = jobs_++;
  if (threads_ == 0) return true;
  const bool better = threads_ < kKeepBelow * alone_;  // false while the caller alone is untimed
  return job % kProbeEvery == 0 ? !better : better;  // a probe runs the other way
}

void TileThreads::Record(bool threads, double seconds, double work) {
  if (!(seconds > 0) || !(work > 0)) return;
  double& mean = threads ? threads_ : alone_;
  const double rate = seconds / work;
  mean = mean == 0 ? rate : (1 - kWeight) * mean + kWeight * rate;
}

}  // namespace vt::cpu
