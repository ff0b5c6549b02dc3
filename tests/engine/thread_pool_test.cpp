#include "cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

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
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(hits[i].load(), 1) << threads << " " << n << " " << grain;
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

// Chunks of 16 rows, 8 per thread: thread t owns chunks [8t, 8t + 8). A thread runs its own
// range from the front, in order, and others' chunks only from their backs. No sleeps decide
// who runs what: in the first round the worker's first chunk waits until the caller has begun
// one and the caller's first until the worker has run one (so both take part whatever the
// machine's load: a caller descheduled for a moment once let the worker run all 16), in the
// second the caller's first waits until the worker has begun its first, which waits until the
// caller has taken one of the worker's chunks (so the caller must steal).
TEST(ThreadPool, EachThreadRunsItsOwnRangeFromTheFrontAndStealsFromTheBack) {
  for (int round = 0; round < 2; ++round) {
    ThreadPool pool(2);
    std::vector<std::vector<int64_t>> ran(2);
    std::mutex mu;
    std::atomic<int> worker_chunks{0}, caller_chunks{0}, worker_began{0}, caller_began{0};
    auto wait_for = [](const std::atomic<int>& count, int at_least) {
      auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (count.load() < at_least && std::chrono::steady_clock::now() < give_up)
        std::this_thread::yield();
    };
    pool.ParallelFor(256, 16, [&](int64_t b, int64_t, int t) {
      bool first = t == 0 ? caller_chunks.load() == 0 : worker_chunks.load() == 0;
      if (t == 1) worker_began = 1;
      if (t == 0) caller_began = 1;
      if (round == 0 && t == 1 && first) wait_for(caller_began, 1);
      if (round == 0 && t == 0 && first) wait_for(worker_chunks, 1);
      if (round == 1 && t == 0 && first) wait_for(worker_began, 1);
      if (round == 1 && t == 1 && first) wait_for(caller_chunks, 9);
      {
        std::lock_guard<std::mutex> lock(mu);
        ran[static_cast<size_t>(t)].push_back(b / 16);
      }
      (t == 0 ? caller_chunks : worker_chunks)++;
    });
    std::vector<int64_t> all;
    for (int t = 0; t < 2; ++t) {
      const std::vector<int64_t>& mine = ran[static_cast<size_t>(t)];
      ASSERT_FALSE(mine.empty()) << "round " << round << ": thread " << t << " ran nothing";
      size_t own = 0;
      while (own < mine.size() && mine[own] / 8 == t) {
        EXPECT_EQ(mine[own], 8 * t + static_cast<int64_t>(own))
            << "thread " << t << "'s own chunks, from the front";
        ++own;
      }
      for (size_t i = own + 1; i < mine.size(); ++i)
        EXPECT_LT(mine[i], mine[i - 1]) << "stolen from the back";
      for (size_t i = own; i < mine.size(); ++i)
        EXPECT_NE(mine[i] / 8, t) << "its own chunks come first";
      all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    ASSERT_EQ(all.size(), 16u);
    for (int64_t c = 0; c < 16; ++c) ASSERT_EQ(all[static_cast<size_t>(c)], c);
    if (round == 1) {
      EXPECT_GT(ran[0].size(), 8u) << "the caller took chunks of the waiting worker's range";
    }
  }
}

TEST(ThreadPool, VtThreadsSetsTheDefaultSize) {
  setenv("VT_THREADS", "3", 1);
  EXPECT_EQ(ThreadPool::DefaultThreads(), 3);
  setenv("VT_THREADS", "99999", 1);  // as -t's limit: so many threads failed to start
  EXPECT_EQ(ThreadPool::DefaultThreads(), ThreadPool::kMaxThreads);
  unsetenv("VT_THREADS");
  EXPECT_GE(ThreadPool::DefaultThreads(), 1);
}

}  // namespace
}  // namespace vt
