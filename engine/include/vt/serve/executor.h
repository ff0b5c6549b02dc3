// Runs a scheduler's plan (vt/serve/scheduler.h): the one place the serving core meets a model.
// The scheduler's tests run it with a fake; vt-serve with ModelExecutor.
#pragma once

#include <memory>
#include <vector>

#include "vt/model.h"
#include "vt/serve/drafter.h"
#include "vt/serve/scheduler.h"

namespace vt::serve {

class Executor {
 public:
  virtual ~Executor() = default;
  // One result per plan entry, in order.
  virtual std::vector<StepResult> Execute(const Plan& plan) = 0;
};

// A plan as one batched forward pass of a vt::Model over a paged KV pool (Model::NewKvPool),
// each request's keys and values in the blocks its table names; the requests that computed
// their last token sample their next with their own sampler (greedy without one). With a
// drafter, a decode's drafted tokens run in the same pass and are verified
// (Sampler::Verify): the step keeps those the target agrees with and one token more.
class ModelExecutor : public Executor {
 public:
  ModelExecutor(Model& model, KvCache pool, std::unique_ptr<Drafter> drafter = nullptr)
      : model_(model), pool_(std::move(pool)), drafter_(std::move(drafter)) {}
  std::vector<StepResult> Execute(const Plan& plan) override;
  // llama-server's warm-up before any request: `n` copies of `token` and one decode step in
  // the pool's first blocks (later requests overwrite them), so the weights are read and the
  // buffers made before the first request.
  Status WarmUp(int32_t token, int64_t n);
  // Drafts verified, their tokens, and the tokens kept (vLLM's spec_decode counters).
  struct SpecCounts {
    uint64_t drafts = 0, draft_tokens = 0, accepted_tokens = 0;
  };
  const SpecCounts& spec_counts() const { return spec_counts_; }

 private:
  std::vector<StatusOr<std::vector<float>>> Forward(const std::vector<BatchEntry>& batch);
  std::vector<std::vector<int32_t>> Drafts(const Plan& plan);
  StepResult Verify(Request& r, const std::vector<float>& logits, const std::vector<int32_t>& draft);

  Model& model_;
  KvCache pool_;
  std::unique_ptr<Drafter> drafter_;
  SpecCounts spec_counts_;
};

}  // namespace vt::serve
