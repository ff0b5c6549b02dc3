// A thread for each connection, made when none is idle: a connection holds its thread while it
// streams or waits in the queue, so a fixed pool of N lets N slow clients starve /health and
// keeps every later request from reaching admission (where a full queue is a 503).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>

namespace vtserve {

class ConnectionThreads {
 public:
  // At most `max_threads` at once (past that, tasks wait for one); idle threads beyond
  // `kept_idle` end after `idle_exit`.
  ConnectionThreads(size_t max_threads, size_t kept_idle, std::chrono::milliseconds idle_exit);
  ~ConnectionThreads();
  ConnectionThreads(const ConnectionThreads&) = delete;
  ConnectionThreads& operator=(const ConnectionThreads&) = delete;

  void Run(std::function<void()> task);
  // Runs what is queued, then joins every thread; Run afterwards does nothing.
  void Shutdown();
  size_t threads() const;  // alive now
  bool saturated() const;  // every thread is busy and tasks wait for one

 private:
  void Work();
  const size_t max_threads_, kept_idle_;
  const std::chrono::milliseconds idle_exit_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, ended_;
  std::deque<std::function<void()>> tasks_;
  size_t alive_ = 0, idle_ = 0;  // threads are detached: Shutdown waits for alive_ to be 0
  bool stop_ = false;
};

}  // namespace vtserve
