#include "gates/runner/clock.h"

namespace pg {
namespace {

class Steady final : public Clock {
 public:
  time_point Now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace

const Clock& SteadyClock() {
  static const Steady clock;
  return clock;
}

}  // namespace pg
