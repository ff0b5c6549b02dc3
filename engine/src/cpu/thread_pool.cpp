#include "cpu/thread_pool.h"

#include <sched.h>

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace vt {
namespace {

constexpr uint64_t Generation(uint64_t t) { return t >> 32; }
constexpr int64_t Chunks(uint64_t t) { return static_cast<int64_t>((t >> 16) & 0xffff); }
constexpr int64_t Next(uint64_t t) { return static_cast<int64_t>(t & 0xffff); }

double Seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

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

int64_t ThreadPool::RunChunks(uint64_t ticket, int thread, double* busy) {
  const uint64_t generation = Generation(ticket);
  int64_t ran = 0;
  while (Generation(ticket) == generation && Next(ticket) < Chunks(ticket)) {
    // On failure `ticket` is reloaded: another thread took that chunk, or a new job began.
    if (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    // Chunk Next(ticket) is ours, and its job cannot finish before it is done: the job's
    // parameters stay as they are until then.
    int64_t begin = Next(ticket) * chunk_, end = std::min(n_, begin + chunk_);
    double start = busy ? Seconds() : 0;
    (*job_)(begin, end, thread);
    if (busy) *busy += Seconds() - start;
    ++ran;
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == Chunks(ticket)) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_cv_.notify_one();
    }
    ticket = ticket_.load(std::memory_order_acquire);
  }
  return ran;
}

void ThreadPool::WaitUntilDone(int64_t chunks) {
  for (int i = 0; i < kCallerSpins && done_.load(std::memory_order_acquire) != chunks; ++i) _mm_pause();
  if (done_.load(std::memory_order_acquire) == chunks) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [&] { return done_.load(std::memory_order_acquire) == chunks; });
}

void ThreadPool::ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t, int)>& fn) {
  if (n <= 0) return;
  grain = std::max<int64_t>(1, grain);
  int64_t units = (n + grain - 1) / grain;
  int64_t chunks = std::min<int64_t>({units, size() * kChunksPerThread, 0xffff});
  if (size() == 1 || chunks == 1 || !governor_.UseThreads()) {
    if (size() > 1 && chunks > 1) governor_.RecordSolo();
    fn(0, n, 0);
    return;
  }
  double start = Seconds(), busy = 0;
  int64_t chunk = (units + chunks - 1) / chunks * grain;
  chunks = (n + chunk - 1) / chunk;
  job_ = &fn;
  n_ = n;
  chunk_ = chunk;
  done_.store(0, std::memory_order_relaxed);
  uint64_t ticket = ((Generation(ticket_.load(std::memory_order_relaxed)) + 1) << 32) | (uint64_t(chunks) << 16);
  {
    std::lock_guard<std::mutex> lock(mutex_);  // a worker about to sleep sees the new job
    ticket_.store(ticket, std::memory_order_release);
  }
  start_.notify_all();
  int64_t ran = RunChunks(ticket, 0, &busy);
  WaitUntilDone(chunks);
  // What the caller alone would have taken: its own time per chunk, for every chunk.
  if (ran > 0) governor_.RecordParallel(Seconds() - start, busy / static_cast<double>(ran) * static_cast<double>(chunks));
}

void ThreadPool::Worker(int index) {
  uint64_t seen = 0;
  auto fresh = [&] { return Generation(ticket_.load(std::memory_order_acquire)) != seen; };
  while (true) {
    for (int i = 0; i < kWorkerSpins && !fresh() && !stop_.load(std::memory_order_relaxed); ++i) _mm_pause();
    if (!fresh()) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_.load() || fresh(); });
    }
    if (stop_.load()) return;
    uint64_t ticket = ticket_.load(std::memory_order_acquire);
    seen = Generation(ticket);
    RunChunks(ticket, index);
  }
}

}  // namespace vt
