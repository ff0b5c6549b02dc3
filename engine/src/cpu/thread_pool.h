// A fixed pool of worker threads for the CPU backend's kernels. ParallelFor splits [0, n)
// into one contiguous chunk per thread (the caller's thread takes the first) and returns
// when all are done.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace vt {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  // fn(begin, end, thread_index); chunks are multiples of `grain` except the last.
  void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t, int)>& fn);

  // VT_THREADS when set (≥ 1), else the CPUs this process may run on.
  static int DefaultThreads();

 private:
  void Worker(int index);

  // Workers spin briefly before sleeping: a decode step runs hundreds of small ops, and a
  // futex sleep/wake per op would cost more than the ops themselves.
  static constexpr int kSpins = 20000;

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int64_t, int64_t, int)>* job_ = nullptr;  // published by generation_
  int64_t n_ = 0, chunk_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace vt
