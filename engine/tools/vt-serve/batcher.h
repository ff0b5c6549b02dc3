// The engine thread's step over the serving core (vt/serve/): the scheduler decides which
// requests run and with how many tokens over the paged KV pool, the model executor runs that
// plan as one batched forward pass and samples, and the scheduler's update applies the tokens;
// this file turns each token into a job's text (detokenized, stop strings, EOS) and each
// finished request into its job's end and metrics.
#pragma once

#include <atomic>
#include <map>
#include <memory>

#include "job.h"
#include "serve_metrics.h"
#include "vt/model.h"
#include "vt/serve/executor.h"
#include "vt/serve/scheduler.h"
#include "vt/token_constraint.h"
#include "vt/tokenizer.h"

namespace vtserve {

struct KvOptions {
  int64_t n_blocks = 0, block_size = 16;
  bool prefix_caching = true;
};

// Speculative decoding: the drafter (null: none) and how much each decode may draft.
struct SpecOptions {
  std::unique_ptr<vt::serve::Drafter> drafter;
  int num_speculative = 0;
};

class Batcher {
 public:
  // `pool`: Model::NewKvPool(options.n_blocks, options.block_size).
  Batcher(vt::Model& model, const vt::Tokenizer& tokenizer, vt::KvCache pool, const KvOptions& kv,
          const vt::serve::SchedulerConfig& config, ServeMetrics& metrics, SpecOptions spec = {});
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // The scheduler holds as many requests as may run at once (--max-num-seqs), running or
  // waiting for blocks; the rest wait in the server's queue.
  bool Full() const;
  bool Empty() const { return scheduler_.empty(); }
  // Hands a job to the scheduler; its sampler starts here.
  void Admit(std::shared_ptr<Job> job);
  // One step: cancelled requests leave, the plan runs, finished requests end.
  void Step();
  // llama-server's warm-up before any request (vt/serve/executor.h).
  vt::Status WarmUp(int32_t token);
  double kv_usage() const { return kv_usage_; }  // blocks held / all blocks
  int64_t capacity_tokens() const { return kv_.capacity_tokens(); }
  // As of the last step, for other threads' gauges.
  int num_running() const { return running_now_; }
  int num_waiting() const { return waiting_now_; }

 private:
  struct Sequence;
  bool Accept(Sequence& s, int32_t id);
  void Finish(Sequence& s, const std::string& reason, const std::string& error = "");

  std::optional<LogprobEntry> Logprobs(Sequence& s);

  const vt::Tokenizer& tokenizer_;
  std::shared_ptr<const vt::VocabTrie> trie_;  // made at the first request with a grammar
  ServeMetrics& metrics_;
  vt::serve::SchedulerConfig config_;
  vt::serve::KvCacheManager kv_;
  vt::serve::Scheduler scheduler_;
  vt::serve::ModelExecutor executor_;
  std::map<vt::serve::RequestId, std::unique_ptr<Sequence>> sequences_;
  vt::serve::RequestId next_id_ = 1;
  int num_speculative_ = 0;
  std::atomic<double> kv_usage_{0};
  std::atomic<int> running_now_{0}, waiting_now_{0};
};

}  // namespace vtserve
