// Runs a scheduler's plan (vt/serve/scheduler.h): the one place the serving core meets a model.
// The scheduler's tests run it with a fake; vt-serve with ModelExecutor.
#pragma once

#include <vector>

#include "vt/model.h"
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
// their last token sample their next with their own sampler (greedy without one).
class ModelExecutor : public Executor {
 public:
  ModelExecutor(Model& model, KvCache pool) : model_(model), pool_(std::move(pool)) {}
  std::vector<StepResult> Execute(const Plan& plan) override;
  // llama-server's warm-up before any request: `n` copies of `token` and one decode step in
  // the pool's first blocks (later requests overwrite them), so the weights are read and the
  // buffers made before the first request.
  Status WarmUp(int32_t token, int64_t n);

 private:
  KvCache CacheOf(const std::vector<int32_t>& blocks, int64_t n_past) const;
  std::vector<StatusOr<std::vector<float>>> Forward(const std::vector<BatchEntry>& batch);

  Model& model_;
  KvCache pool_;
};

}  // namespace vt::serve
