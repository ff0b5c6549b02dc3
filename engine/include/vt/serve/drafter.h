// Speculative decoding's drafters in the serving core (specs/speculative-decoding.md): before a
// step's forward pass, each decode the scheduler gave room for (Scheduled::num_draft) gets a
// few tokens to verify. N-gram lookup reads the request's tokens; a draft model runs over a
// pool of its own with the target's blocks, addressed by the same block tables.
#pragma once

#include <vector>

#include "vt/model.h"
#include "vt/serve/scheduler.h"

namespace vt::serve {

class Drafter {
 public:
  virtual ~Drafter() = default;
  // For each plan entry, at most its num_draft tokens to follow its request's tokens (empty
  // where none). Called for every step: a draft model computes each token the target does.
  virtual std::vector<std::vector<int32_t>> Propose(const Plan& plan) = 0;
};

class NgramDrafter : public Drafter {
 public:
  NgramDrafter(int min_n, int max_n) : min_n_(min_n), max_n_(max_n) {}
  std::vector<std::vector<int32_t>> Propose(const Plan& plan) override;

 private:
  int min_n_, max_n_;
};

// A smaller model of the target's vocabulary (vt::CheckDraftVocabulary), proposing greedily.
// `pool`: model.NewKvPool with the target pool's block count and size. Each step it runs the
// tokens its cache lacks up to the step's own (a prompt chunk, a decode token, the drafts the
// target kept), then one token per drafted token; what it wrote past the kept tokens is
// written over later. A failed draft pass drafts nothing that step (the target's output does
// not depend on drafts) and is counted.
class ModelDrafter : public Drafter {
 public:
  ModelDrafter(Model& model, KvCache pool) : model_(model), pool_(std::move(pool)) {}
  std::vector<std::vector<int32_t>> Propose(const Plan& plan) override;
  uint64_t failures() const { return failures_; }

 private:
  Model& model_;
  KvCache pool_;
  uint64_t failures_ = 0;
};

// A sequence's cache over a paged pool: the pool's tensors, `blocks` as its table, n_past.
KvCache PagedCache(const KvCache& pool, const std::vector<int32_t>& blocks, int64_t n_past);

}  // namespace vt::serve
