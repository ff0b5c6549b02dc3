#include <gtest/gtest.h>

#include <atomic>
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

TEST(ThreadPool, VtThreadsSetsTheDefaultSize) {
  setenv("VT_THREADS", "3", 1);
  EXPECT_EQ(ThreadPool::DefaultThreads(), 3);
  unsetenv("VT_THREADS");
  EXPECT_GE(ThreadPool::DefaultThreads(), 1);
}

}  // namespace
}  // namespace vt
