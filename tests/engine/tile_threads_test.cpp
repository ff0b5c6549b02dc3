// The tile gemm's choice between the pool's threads and the caller alone (cpu/tile_threads.h,
// specs/amx.md), driven with durations: both ways are timed before either is preferred, the
// faster runs, the other is probed every kProbeEvery-th job, and threads that gain under 5% go.
#include "cpu/tile_threads.h"

#include <gtest/gtest.h>

#include <vector>

namespace vt::cpu {
namespace {

// Jobs [0, n) as the choice runs them, each recorded at the given seconds per multiply-add.
std::vector<bool> Jobs(TileThreads& c, int n, double threads_rate, double alone_rate) {
  std::vector<bool> ways;
  for (int i = 0; i < n; ++i) {
    const bool threads = c.UseThreads();
    ways.push_back(threads);
    c.Record(threads, (threads ? threads_rate : alone_rate) * 1e6, 1e6);
  }
  return ways;
}

TEST(TileThreads, BothWaysAreTimedFirstThenTheFasterRunsAndTheOtherIsProbed) {
  TileThreads c;
  const std::vector<bool> ways = Jobs(c, 34, 1.0, 2.0);
  EXPECT_TRUE(ways[0]);
  EXPECT_FALSE(ways[1]);
  for (int i = 2; i < 34; ++i)
    EXPECT_EQ(ways[static_cast<size_t>(i)], i % TileThreads::kProbeEvery != 0) << "job " << i;
}

TEST(TileThreads, ThreadsThatLoseBesideABusyCoreGiveWayToTheCallerAlone) {
  TileThreads c;
  Jobs(c, 20, 1.0, 2.0);                                 // quiet: threads twice as fast
  const std::vector<bool> busy = Jobs(c, 64, 3.0, 2.0);  // a foreign process: threads slower
  int alone = 0;
  for (size_t i = 32; i < busy.size(); ++i) alone += busy[i] ? 0 : 1;
  EXPECT_GE(alone, 28)
      << "the caller alone should run all but the probes once the means have moved";
}

TEST(TileThreads, ThreadsThatGainUnderFivePercentAreNotKept) {
  TileThreads c;
  const std::vector<bool> ways = Jobs(c, 20, 0.97, 1.0);
  EXPECT_FALSE(ways[5]);
  EXPECT_TRUE(ways[16]);  // a probe of the threads
}

}  // namespace
}  // namespace vt::cpu
