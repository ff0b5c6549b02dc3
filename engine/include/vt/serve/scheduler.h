// The serving policy (vLLM v1's Scheduler, FCFS): which requests run each step and with how
// many tokens, which blocks they get, which are preempted when blocks run out; then, once the
// step has run, the sampled tokens applied, stops and lengths checked, finished requests' blocks
// freed. It decides and returns a plan; it runs nothing (vt/serve/executor.h runs the plan).
// One thread calls it: Schedule, the executor, Update, in turn.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vt/serve/kv_cache_manager.h"
#include "vt/serve/request.h"
#include "vt/status.h"

namespace vt::serve {

struct SchedulerConfig {
  int max_num_seqs = 8;                  // requests running at once
  int64_t max_num_batched_tokens = 2048;  // tokens per step
};

// One request's share of a step: tokens [num_computed, num_computed + num_tokens) of it, and
// room for up to num_draft drafted tokens after a decode's one (speculative decoding).
struct Scheduled {
  Request* request;
  int64_t num_tokens;
  int64_t num_draft = 0;
};

struct Plan {
  std::vector<Scheduled> entries;  // decodes and recomputes of running requests first, then admissions
  int64_t num_tokens = 0;          // with the drafted tokens' room
  std::vector<RequestId> preempted;  // this step, most recently admitted first
};

// What a step did for one plan entry: an error of its own, or the token sampled when the
// entry computed its request's last token (mid-prompt chunks sample nothing), after the
// drafted tokens verification kept (in the cache now, and in the sequence before `token`).
struct StepResult {
  Status status;
  int32_t token = -1;
  std::vector<int32_t> accepted;
};

struct Finished {
  std::unique_ptr<Request> request;
  std::string reason;  // "stop", "length", "abort" or "error"
  std::string error;
};

class Scheduler {
 public:
  Scheduler(SchedulerConfig config, KvCacheManager& kv) : config_(config), kv_(kv) {}

  // Queues a request; kOutOfRange when its prompt and max_tokens would not fit in every block
  // of the pool, so it could never run.
  Status Add(std::unique_ptr<Request> r);
  // Ends a request wherever it is (between steps), its blocks freed; nullopt if unknown.
  std::optional<Finished> Abort(RequestId id);
  Plan Schedule();
  // Applies a step's results (one per plan entry) and returns the requests that ended.
  std::vector<Finished> Update(const Plan& plan, const std::vector<StepResult>& results);

  bool empty() const { return running_.empty() && waiting_.empty(); }
  size_t num_running() const { return running_.size(); }
  size_t num_waiting() const { return waiting_.size(); }
  uint64_t preemptions() const { return preemptions_; }
  const KvCacheManager& kv() const { return kv_; }

 private:
  bool Fit(Request& r, int64_t n, Plan& plan);
  void AdmitWaiting(int64_t& budget, Plan& plan);
  Finished End(Request* r, std::string reason, std::string error = "");
  std::optional<Finished> Emit(Request& r, const StepResult& result);

  SchedulerConfig config_;
  KvCacheManager& kv_;
  std::deque<std::unique_ptr<Request>> waiting_;
  std::vector<std::unique_ptr<Request>> running_;  // in admission order
  uint64_t preemptions_ = 0;
};

}  // namespace vt::serve
