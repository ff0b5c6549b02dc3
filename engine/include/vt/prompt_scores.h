// How likely a model finds a text it is given: each token's log-probability after the ones
// before it (vLLM's prompt logprobs; completions' echo with logprobs, as lm-evaluation-harness
// asks for them).
#pragma once

#include <cstdint>
#include <vector>

#include "vt/model.h"
#include "vt/sampling.h"

namespace vt {

// tokens[1..]'s log-probabilities, each with the `top_n` likeliest tokens at its place (the
// first token has none: nothing came before it). The tokens run in chunks of kScoreChunk
// positions, so memory holds kScoreChunk × n_vocab logits, not the prompt's length times it.
constexpr int64_t kScoreChunk = 32;
StatusOr<std::vector<TokenLogprobs>> ScorePrompt(Model& model, const std::vector<int32_t>& tokens, int top_n, DType kv_dtype);

}  // namespace vt
