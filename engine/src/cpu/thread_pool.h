// A fixed pool of worker threads for the CPU backend's kernels. ParallelFor splits [0, n) into
// contiguous chunks; each thread owns an equal, contiguous range of them and runs it from the
// front, so a matrix's rows go to the same core on every call (its L2 keeps them), and a thread
// whose range is done takes the others' chunks from their backs. So a thread that the OS has
// taken off its core (another process's load) holds up at most the chunk it is in: whoever is
// running takes the rest. The caller always works, and returns when every chunk is done; a
// worker that wakes late finds nothing left and goes back to sleep. When the workers stop
// paying (other processes hold the cores), the governor runs jobs on the caller alone.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/parallel_governor.h"

namespace vt {

class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  // fn(begin, end, thread_index), thread 0 being the caller; chunks are multiples of `grain`
  // except the last, and a thread may run several chunks.
  void ParallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t, int)>& fn);

  // VT_THREADS when set (≥ 1, at most kMaxThreads), else the CPUs this process may run on.
  static int DefaultThreads();
  static constexpr int kMaxThreads = 1024;

  // Chunks per thread: enough that a preempted thread's share is taken over by the others,
  // few enough that each chunk of a matmul is a long sequential stream of weight rows.
  static constexpr int64_t kChunksPerThread = 8;

 private:
  void Worker(int index);
  // Runs chunks of job `generation`: its own range's from the front, then the others' from
  // their backs, until none is left or the job is not current any more. Returns the chunks it
  // ran; adds their seconds to *busy when given.
  int64_t RunChunks(uint64_t generation, int thread, double* busy = nullptr);
  // Claims one chunk of thread `owner`'s range (the front when `front`, else the back): the
  // chunk's index, or -1 when the range is empty or belongs to another job.
  int64_t Claim(uint64_t generation, int owner, bool front);
  void RunChunk(int64_t chunk, int thread);
  void WaitUntilDone(int64_t chunks);

  // Workers spin briefly before sleeping: a decode step runs a hundred parallel ops, and a
  // futex sleep/wake per op would cost more than the ops themselves. The caller spins less
  // before it sleeps on the last chunks: sleeping frees its core, so the OS can move a
  // preempted worker there to finish.
  static constexpr int kWorkerSpins = 20000;
  static constexpr int kCallerSpins = 4000;

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_cv_;
  // A thread's range of chunks as one word: generation (32 bits) | end (16) | next (16), claimed
  // by compare-and-swap (the owner moves next up, a thief moves end down), on a cache line of
  // its own. A thread reads the job's parameters only after claiming one of its chunks, and the
  // caller publishes the next job only when every chunk of this one is done, so no thread can
  // run a chunk with another job's parameters.
  struct alignas(64) Range {
    std::atomic<uint64_t> word{0};
  };
  std::unique_ptr<Range[]> ranges_;
  alignas(64) std::atomic<uint64_t> generation_{0};
  alignas(64) std::atomic<int64_t> done_{0};
  const std::function<void(int64_t, int64_t, int)>* job_ = nullptr;
  int64_t n_ = 0, chunk_ = 0, chunks_ = 0;
  std::atomic<bool> stop_{false};
  ParallelGovernor governor_;  // the caller's only
};

}  // namespace vt
