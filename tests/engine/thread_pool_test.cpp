#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/thread_pool.h"

namespace vt {
namespace {

TEST(ThreadPool, ParallelForCoversEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    for (int64_t n : {1, 5, 32, 33, 1000}) {
      for (int64_t grain : {1, 16, 32}) {
        std::vector<std::atomic<int>> hits(n);
        pool.ParallelFor(n, grain, [&](int64_t b, int64_t e, int) {
          for (int64_t i = b; i < e; ++i) hits[i]++;
        });
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << threads << " " << n << " " << grain;
      }
    }
  }
}

TEST(ThreadPool, ChunksAreMultiplesOfTheGrainExceptTheLast) {
  ThreadPool pool(3);
  std::vector<std::pair<int64_t, int64_t>> chunks(3, {-1, -1});
  pool.ParallelFor(100, 32, [&](int64_t b, int64_t e, int t) { chunks[t] = {b, e}; });
  for (auto [b, e] : chunks) {
    if (b < 0 || e == 100) continue;
    EXPECT_EQ(b % 32, 0);
    EXPECT_EQ(e % 32, 0);
  }
}

// Chunks of 16 rows, 8 per thread: thread t owns chunks [8t, 8t + 8). Each chunk sleeps, so
// every thread joins before the caller could run everything; whatever the timing, a thread
// runs its own range from the front in order, and chunks it did not own only from the backs.
TEST(ThreadPool, EachThreadRunsItsOwnRangeFromTheFrontAndStealsFromTheBack) {
  for (int round = 0; round < 3; ++round) {
    ThreadPool pool(2);
    std::vector<std::vector<int64_t>> ran(2);
    std::mutex mu;
    pool.ParallelFor(256, 16, [&](int64_t b, int64_t, int t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(t == 1 && round == 2 ? 6 : 1));  // round 2: the worker is slow
      std::lock_guard<std::mutex> lock(mu);
      ran[static_cast<size_t>(t)].push_back(b / 16);
    });
    std::vector<int64_t> all;
    for (int t = 0; t < 2; ++t) {
      const std::vector<int64_t>& mine = ran[static_cast<size_t>(t)];
      ASSERT_FALSE(mine.empty()) << "thread " << t << " ran nothing";
      size_t own = 0;
      while (own < mine.size() && mine[own] / 8 == t) {
        EXPECT_EQ(mine[own], 8 * t + static_cast<int64_t>(own)) << "thread " << t << "'s own chunks, from the front";
        ++own;
      }
      for (size_t i = own + 1; i < mine.size(); ++i) EXPECT_LT(mine[i], mine[i - 1]) << "stolen from the back";
      for (size_t i = own; i < mine.size(); ++i) EXPECT_NE(mine[i] / 8, t) << "its own chunks come first";
      all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    ASSERT_EQ(all.size(), 16u);
    for (int64_t c = 0; c < 16; ++c) ASSERT_EQ(all[static_cast<size_t>(c)], c);
    if (round == 2) {
      EXPECT_GT(ran[0].size(), 8u) << "the caller took chunks of the slow worker's range";
    }
  }
}

TEST(ThreadPool, VtThreadsSetsTheDefaultSize) {
  setenv("VT_THREADS", "3", 1);
  EXPECT_EQ(ThreadPool::DefaultThreads(), 3);
  unsetenv("VT_THREADS");
  EXPECT_GE(ThreadPool::DefaultThreads(), 1);
}

}  // namespace
}  // namespace vt
