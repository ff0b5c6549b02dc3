#include "cpu/parallel_governor.h"

#include <algorithm>

namespace vt {

void ParallelGovernor::RecordParallel(double wall, double single_estimate) {
  if (!(wall >= 0) || !(single_estimate > 0)) return;  // no caller chunk timed: no evidence
  wall_ += wall;
  estimate_ += single_estimate;
  if (++jobs_ < kWindow) return;
  bool pays = wall_ < kKeepBelow * estimate_;
  wall_ = estimate_ = 0;
  jobs_ = 0;
  if (pays) {
    backoff_ = kFirstBackoff;
    return;
  }
  solo_left_ = backoff_;
  backoff_ = std::min(kMaxBackoff, backoff_ * 2);
}

void ParallelGovernor::RecordSolo() {
  if (solo_left_ > 0) --solo_left_;
}

}  // namespace vt
