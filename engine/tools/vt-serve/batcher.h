// Continuous batching: the running sequences, each in a KV-cache slot of its own, advance
// together, one forward pass per step (vt::Model::ForwardBatch). A step gives every
// decoding sequence its next token and spends what is left of the token budget on prompt
// chunks, first come first served; a sequence that finishes leaves its slot at once.
//
// Fixed slots rather than paged blocks: each sequence's cache stays one contiguous tensor,
// so every backend's attention reads it as it reads a lone sequence's. Memory is
// max_num_seqs × max_model_len positions, bounded by the flags; paging (sharing that memory
// among more, shorter sequences) is owed.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "job.h"
#include "serve_metrics.h"
#include "vt/model.h"
#include "vt/tokenizer.h"

namespace vtserve {

class Batcher {
 public:
  Batcher(vt::Model& model, const vt::Tokenizer& tokenizer, std::vector<vt::KvCache> slots, int max_batched_tokens,
          ServeMetrics& metrics);
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  bool Full() const;
  bool Empty() const { return running_.empty(); }
  // Takes a free slot (callers check Full first); the job's sampler starts here.
  void Admit(std::shared_ptr<Job> job);
  // One forward pass over every running sequence; cancelled and finished ones leave.
  void Step();
  // llama-server's warm-up, before any request: a prompt of up to 32 `token`s and one decode
  // step through the same ForwardBatch path, in the first slot (emptied again on admission).
  // The weights are read from the file and the engine thread's and the pool's buffers made
  // here rather than during the first request (specs/vt-serve.md).
  vt::Status WarmUp(int32_t token);
  double kv_usage() const { return kv_usage_; }  // positions filled / all slots' positions

 private:
  struct Sequence;
  void Finish(Sequence& s, const std::string& reason, const std::string& error = "");
  void Accept(Sequence& s, const std::vector<float>& logits);
  std::vector<vt::StatusOr<std::vector<float>>> Forward(const std::vector<vt::BatchEntry>& batch);

  vt::Model& model_;
  const vt::Tokenizer& tokenizer_;
  std::vector<vt::KvCache> slots_;
  std::vector<bool> slot_used_;
  int max_batched_tokens_;
  ServeMetrics& metrics_;
  std::vector<std::unique_ptr<Sequence>> running_;  // in arrival order
  std::atomic<double> kv_usage_{0};
};

}  // namespace vtserve
