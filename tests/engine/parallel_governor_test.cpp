// The governor's decisions from durations alone (no clock): threads kept while they pay, the
// caller alone while they do not, and probes of the threads after a doubling back-off.
#include "cpu/parallel_governor.h"

#include <gtest/gtest.h>

namespace vt {
namespace {

void Window(ParallelGovernor& g, double wall, double estimate) {
  for (int i = 0; i < ParallelGovernor::kWindow; ++i) g.RecordParallel(wall, estimate);
}

int64_t SoloJobs(ParallelGovernor& g) {
  int64_t n = 0;
  while (!g.UseThreads() && n < 1000000) g.RecordSolo(), ++n;
  return n;
}

TEST(ParallelGovernor, ThreadsThatHalveTheTimeAreKept) {
  ParallelGovernor g;
  for (int w = 0; w < 10; ++w) Window(g, 0.5, 1.0);
  EXPECT_TRUE(g.UseThreads());
}

TEST(ParallelGovernor, ThreadsSlowerThanTheCallerAloneFallBackThenProbeWithADoublingBackoff) {
  ParallelGovernor g;
  Window(g, 1.8, 1.0);
  EXPECT_FALSE(g.UseThreads());
  EXPECT_EQ(SoloJobs(g), ParallelGovernor::kFirstBackoff);
  Window(g, 1.8, 1.0);  // the probe loses again: twice as long alone
  EXPECT_EQ(SoloJobs(g), 2 * ParallelGovernor::kFirstBackoff);
  Window(g, 0.5, 1.0);  // the probe wins: threads kept, the back-off starts over
  EXPECT_TRUE(g.UseThreads());
  EXPECT_EQ(g.backoff(), ParallelGovernor::kFirstBackoff);
}

TEST(ParallelGovernor, BigJobsOutweighTinyOnesInAWindow) {
  // Tiny jobs where threads cost more than they save, beside big ones where they pay:
  // the window's time, not its count of jobs, decides.
  ParallelGovernor g;
  for (int i = 0; i < ParallelGovernor::kWindow; ++i) {
    if (i % 2)
      g.RecordParallel(20e-6, 10e-6);
    else
      g.RecordParallel(1e-3, 2e-3);
  }
  EXPECT_TRUE(g.UseThreads());
}

TEST(ParallelGovernor, AJobWithNoCallerEstimateIsNoEvidence) {
  ParallelGovernor g;
  for (int i = 0; i < 10 * ParallelGovernor::kWindow; ++i) g.RecordParallel(1.0, 0.0);
  EXPECT_TRUE(g.UseThreads());
}

}  // namespace
}  // namespace vt
