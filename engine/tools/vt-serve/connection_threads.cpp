#include "connection_threads.h"

#include <thread>

namespace vtserve {

ConnectionThreads::ConnectionThreads(size_t max_threads, size_t kept_idle, std::chrono::milliseconds idle_exit)
    : max_threads_(max_threads < 1 ? 1 : max_threads), kept_idle_(kept_idle), idle_exit_(idle_exit) {}

ConnectionThreads::~ConnectionThreads() { Shutdown(); }

void ConnectionThreads::Run(std::function<void()> task) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stop_) return;
  tasks_.push_back(std::move(task));
  // An idle thread takes it; else a new one, unless there are max_threads_ (it waits).
  if (idle_ >= tasks_.size() || alive_ >= max_threads_) {
    wake_.notify_one();
    return;
  }
  ++alive_;
  std::thread([this] { Work(); }).detach();
}

void ConnectionThreads::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (tasks_.empty()) {
      if (stop_) break;
      ++idle_;
      bool woke = wake_.wait_for(lock, idle_exit_, [this] { return stop_ || !tasks_.empty(); });
      --idle_;
      if (!woke && alive_ > kept_idle_) break;  // idle too long, and more than the kept ones
      continue;
    }
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
  --alive_;
  ended_.notify_all();
}

void ConnectionThreads::Shutdown() {
  std::unique_lock<std::mutex> lock(mutex_);
  stop_ = true;
  wake_.notify_all();
  ended_.wait(lock, [this] { return alive_ == 0; });
}

bool ConnectionThreads::saturated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return alive_ >= max_threads_ && tasks_.size() > idle_;  // below the most, a thread is being made
}

size_t ConnectionThreads::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return alive_;
}

}  // namespace vtserve
