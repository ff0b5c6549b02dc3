#include "cpu/thread_pool.h"

#include <sched.h>

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace vt {
namespace {

constexpr uint64_t Generation(uint64_t w) { return w >> 32; }
constexpr int64_t End(uint64_t w) { return static_cast<int64_t>((w >> 16) & 0xffff); }
constexpr int64_t Next(uint64_t w) { return static_cast<int64_t>(w & 0xffff); }

double Seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

ThreadPool::ThreadPool(int threads) : ranges_(std::make_unique<Range[]>(static_cast<size_t>(std::max(1, threads)))) {
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
    if (n >= 1) return std::min(n, kMaxThreads);  // as the tools' -t: 99999 threads failed to start
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

int64_t ThreadPool::Claim(uint64_t generation, int owner, bool front) {
  std::atomic<uint64_t>& word = ranges_[static_cast<size_t>(owner)].word;
  uint64_t w = word.load(std::memory_order_acquire);
  // On failure `w` is reloaded: another thread took a chunk of this range, or a new job began.
  while (Generation(w) == generation && Next(w) < End(w)) {
    uint64_t taken = front ? w + 1 : w - (uint64_t{1} << 16);
    if (word.compare_exchange_weak(w, taken, std::memory_order_acq_rel, std::memory_order_acquire)) {
      return front ? Next(w) : End(w) - 1;
    }
  }
  return -1;
}

// The claimed chunk's job cannot finish before it is done: the job's parameters stay as they
// are until then.
void ThreadPool::RunChunk(int64_t chunk, int thread) {
  int64_t begin = chunk * chunk_, end = std::min(n_, begin + chunk_);
  (*job_)(begin, end, thread);
}

// Chunks done are published once per thread and job, not per chunk: one atomic add on the
// shared counter instead of one per chunk, each of which moved its cache line between the
// cores (a decode step runs ~60 jobs of 16 chunks).
int64_t ThreadPool::RunChunks(uint64_t generation, int thread, double* busy) {
  int64_t ran = 0;
  double start = busy ? Seconds() : 0;
  for (int k = 0; k < size(); ++k) {
    int owner = (thread + k) % size();
    for (int64_t c; (c = Claim(generation, owner, k == 0)) >= 0; ++ran) RunChunk(c, thread);
  }
  if (busy) *busy += Seconds() - start;
  if (ran > 0 && done_.fetch_add(ran, std::memory_order_acq_rel) + ran == chunks_) {
    std::lock_guard<std::mutex> lock(mutex_);
    done_cv_.notify_one();
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
  chunks_ = chunks;
  done_.store(0, std::memory_order_relaxed);
  uint64_t generation = (generation_.load(std::memory_order_relaxed) + 1) & 0xffffffff;
  for (int t = 0; t < size(); ++t) {
    uint64_t begin = static_cast<uint64_t>(chunks * t / size()), end = static_cast<uint64_t>(chunks * (t + 1) / size());
    ranges_[static_cast<size_t>(t)].word.store(generation << 32 | end << 16 | begin, std::memory_order_release);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);  // a worker about to sleep sees the new job
    generation_.store(generation, std::memory_order_release);
  }
  start_.notify_all();
  int64_t ran = RunChunks(generation, 0, &busy);
  WaitUntilDone(chunks);
  // What the caller alone would have taken: its own time per chunk, for every chunk.
  if (ran > 0) governor_.RecordParallel(Seconds() - start, busy / static_cast<double>(ran) * static_cast<double>(chunks));
}

void ThreadPool::Worker(int index) {
  uint64_t seen = 0;
  auto fresh = [&] { return generation_.load(std::memory_order_acquire) != seen; };
  while (true) {
    for (int i = 0; i < kWorkerSpins && !fresh() && !stop_.load(std::memory_order_relaxed); ++i) _mm_pause();
    if (!fresh()) {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_.load() || fresh(); });
    }
    if (stop_.load()) return;
    seen = generation_.load(std::memory_order_acquire);
    RunChunks(seen, index);
  }
}

}  // namespace vt
