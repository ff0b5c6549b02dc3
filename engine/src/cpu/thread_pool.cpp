#include "cpu/thread_pool.h"

#include <sched.h>

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>

namespace vt {

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this, i] { Worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

int ThreadPool::DefaultThreads() {
  if (const char* env = std::getenv("VT_THREADS")) {
    int n = std::atoi(env);
    if (n >= 1) return n;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t, int)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  int64_t units = (n + grain - 1) / grain;
  int threads = static_cast<int>(std::min<int64_t>(size(), units));
  int64_t chunk = (units + threads - 1) / threads * grain;
  if (threads == 1) {
    fn(0, n, 0);
    return;
  }
  job_ = &fn;
  n_ = n;
  chunk_ = chunk;
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);  // a worker about to sleep sees the new generation
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  fn(0, std::min(n, chunk), 0);
  for (int i = 0; i < kSpins && pending_.load(std::memory_order_acquire) != 0; ++i) _mm_pause();
  if (pending_.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
  }
}

void ThreadPool::Worker(int index) {
  uint64_t seen = 0;
  while (true) {
    for (int i = 0; i < kSpins && generation_.load(std::memory_order_acquire) == seen && !stop_.load(); ++i) {
      _mm_pause();
    }
    if (generation_.load(std::memory_order_acquire) == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_.load() || generation_.load(std::memory_order_acquire) != seen; });
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    int64_t begin = index * chunk_, end = std::min(n_, begin + chunk_);
    if (begin < end) (*job_)(begin, end, index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  }
}
}  // namespace vt
