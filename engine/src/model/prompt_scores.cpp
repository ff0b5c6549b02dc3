#include "vt/prompt_scores.h"

#include <algorithm>
#include <string>

namespace vt {

StatusOr<std::vector<TokenLogprobs>> ScorePrompt(Model& model, const std::vector<int32_t>& tokens, int top_n, DType kv_dtype) {
  std::vector<TokenLogprobs> out;
  const auto n = static_cast<int64_t>(tokens.size());
  if (n < 2) return out;
  const auto n_vocab = static_cast<size_t>(model.hparams().n_vocab);
  for (int32_t id : tokens) {
    if (id < 0 || static_cast<size_t>(id) >= n_vocab) return Status(StatusCode::kInvalidArgument, "token id " + std::to_string(id) + " is outside the vocabulary");
  }
  // The last token predicts nothing that is scored: the cache holds the ones before it.
  VT_ASSIGN_OR_RETURN(KvCache cache, model.NewCache(n - 1, kv_dtype));
  for (int64_t begin = 0; begin < n - 1; begin += kScoreChunk) {
    const int64_t end = std::min(begin + kScoreChunk, n - 1);
    std::vector<int32_t> chunk(tokens.begin() + begin, tokens.begin() + end);
    VT_ASSIGN_OR_RETURN(std::vector<float> logits, model.Forward(chunk, cache, /*all_logits=*/true));
    for (int64_t t = begin; t < end; ++t) {
      const float* at = logits.data() + static_cast<size_t>(t - begin) * n_vocab;
      out.push_back(LogprobsOf(at, n_vocab, tokens[static_cast<size_t>(t + 1)], top_n));
    }
  }
  return out;
}

}  // namespace vt
