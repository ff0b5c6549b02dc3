// How likely a model finds a text it is given: each token's log-probability after the ones
// before it (vLLM's prompt logprobs; completions' echo with logprobs, as lm-evaluation-harness
// asks for them).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "vt/model.h"
#include "vt/sampling.h"

namespace vt {

// tokens[1..]'s log-probabilities, each with the `top_n` likeliest tokens at its place (the
// first token has none: nothing came before it), kScoreChunk positions a Step: memory holds
// kScoreChunk × n_vocab logits, not the prompt's length times it, and a server steps its
// running sequences between chunks.
constexpr int64_t kScoreChunk = 32;
class PromptScorer {
 public:
  PromptScorer(Model& model, std::vector<int32_t> tokens, int top_n, DType kv_dtype)
      : model_(model), tokens_(std::move(tokens)), top_n_(top_n), kv_dtype_(kv_dtype) {}
  bool done() const { return next_ + 1 >= static_cast<int64_t>(tokens_.size()); }
  // The next chunk (the first makes the cache); after an error the scorer is of no more use.
  Status Step();
  const std::vector<TokenLogprobs>& scores() const { return scores_; }

 private:
  Model& model_;
  const std::vector<int32_t> tokens_;
  const int top_n_;
  const DType kv_dtype_;
  std::optional<KvCache> cache_;
  int64_t next_ = 0;  // the first token not yet run
  std::vector<TokenLogprobs> scores_;
};

}  // namespace vt
