// Token generation over a model and its KV cache, with timings like llama.cpp's CLI prints.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vt/model.h"

namespace vt {

// Chooses the next token from the last position's logits; greedy is the default.
using TokenSampler = std::function<int32_t(const std::vector<float>& logits)>;
int32_t GreedyToken(const std::vector<float>& logits);

struct Generation {
  std::vector<int32_t> tokens;  // generated, not including the prompt
  int64_t prompt_tokens = 0;
  double prompt_s = 0, decode_s = 0;
  double PromptTokensPerSecond() const { return prompt_s > 0 ? prompt_tokens / prompt_s : 0; }
  double DecodeTokensPerSecond() const { return decode_s > 0 ? (tokens.size() - 1) / decode_s : 0; }
};

// Prefills `prompt` as one batch, then decodes up to `n` tokens one at a time. `on_token` sees
// each new token as it is chosen and returns false to stop there (the caller decides what EOS
// means: the library never stops on its own).
StatusOr<Generation> Generate(Model& model, KvCache& cache, const std::vector<int32_t>& prompt, int n,
                              const TokenSampler& sample = GreedyToken,
                              const std::function<bool(int32_t)>& on_token = nullptr);

}  // namespace vt
