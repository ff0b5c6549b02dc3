#include "vt/prompt_scores.h"

#include <algorithm>
#include <string>

namespace vt {

Status PromptScorer::Step() {
  if (done()) return Status();
  const auto n = static_cast<int64_t>(tokens_.size());
  const auto n_vocab = static_cast<size_t>(model_.hparams().n_vocab);
  if (!cache_) {
    for (int32_t id : tokens_) {
      if (id < 0 || static_cast<size_t>(id) >= n_vocab) return Status(StatusCode::kInvalidArgument, "token id " + std::to_string(id) + " is outside the vocabulary");
    }
    // The last token predicts nothing that is scored: the cache holds the ones before it.
    VT_ASSIGN_OR_RETURN(KvCache cache, model_.NewCache(n - 1, kv_dtype_));
    cache_.emplace(std::move(cache));
  }
  const int64_t begin = next_, end = std::min(begin + kScoreChunk, n - 1);
  std::vector<int32_t> chunk(tokens_.begin() + begin, tokens_.begin() + end);
  VT_ASSIGN_OR_RETURN(std::vector<float> logits, model_.Forward(chunk, *cache_, /*all_logits=*/true));
  for (int64_t t = begin; t < end; ++t) {
    const float* at = logits.data() + static_cast<size_t>(t - begin) * n_vocab;
    scores_.push_back(LogprobsOf(at, n_vocab, tokens_[static_cast<size_t>(t + 1)], top_n_));
  }
  next_ = end;
  return Status();
}

}  // namespace vt
