// Speculative decoding (specs/speculative-decoding.md): a drafter proposes the next few tokens,
// the target checks them all in one forward pass and keeps what it would have produced itself.
// Drafters here: n-gram prompt lookup (no model) and a smaller model of the same vocabulary.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vt/generate.h"
#include "vt/model.h"
#include "vt/sampling.h"
#include "vt/tokenizer.h"

namespace vt {

struct SpeculativeConfig {
  enum class Method { kNone, kNgram, kDraftModel };
  Method method = Method::kNone;
  std::string draft_model;         // kDraftModel: the draft's GGUF file
  int num_speculative_tokens = 3;  // k: tokens drafted per step at most
  int draft_min = 0;               // a shorter draft is not verified (llama.cpp's --draft-min)
  int prompt_lookup_min = 1, prompt_lookup_max = 5;  // kNgram: the n-gram lengths tried
  bool enabled() const { return method != Method::kNone && num_speculative_tokens > 0; }
};

// N-gram prompt lookup: for n from max_n down to min_n, the most recent earlier occurrence of
// the last n tokens; the k tokens that followed it (where the sequence ends first, the draft
// repeats with the match's period). Empty when nothing matches.
std::vector<int32_t> NgramDraft(const std::vector<int32_t>& tokens, int k, int min_n, int max_n);

// A draft model must spell every id as the target does: kInvalidArgument naming the first id
// whose text or type differs (or the two sizes).
Status CheckDraftVocabulary(const Tokenizer& target, const Tokenizer& draft);

// One sequence's draft model over its own KV cache, proposing greedily. Before each proposal
// the cache is rolled back to the longest prefix it shares with the sequence, so rejected
// drafts cost nothing later.
class DraftModel {
 public:
  DraftModel(Model& model, KvCache cache) : model_(model), cache_(std::move(cache)) {}
  // Up to k tokens the draft expects after `tokens` (fewer where its cache ends).
  StatusOr<std::vector<int32_t>> Propose(const std::vector<int32_t>& tokens, int k);

 private:
  Model& model_;
  KvCache cache_;
  std::vector<int32_t> seen_;  // the tokens whose keys and values cache_ holds, in order
};

// What one verification gives: the drafted tokens kept, in order, then the token after them.
struct Verified {
  std::vector<int32_t> accepted;
  int32_t token = -1;
};
// `logits` holds one row per position (the last token's first, then each drafted token's).
// With a sampler, Sampler::Verify keeps or replaces each draft and every token is counted as
// generated; without one (null), greedily: a draft is kept where it is the argmax.
Verified VerifyDraft(const std::vector<float>& logits, const std::vector<int32_t>& draft, Sampler* sampler);

// Proposes up to k tokens to follow a sequence (the prompt and every token so far).
using Proposer = std::function<StatusOr<std::vector<int32_t>>(const std::vector<int32_t>& tokens, int k)>;

struct SpeculationCounts {
  int64_t drafts = 0, draft_tokens = 0, accepted_tokens = 0;  // verified drafts and their tokens
};

// Generate() with speculation: after the prompt, each step drafts up to `config`'s k tokens,
// runs the last token and the draft in one pass, and keeps the accepted tokens and one more
// (Sampler::Verify), so greedy output is Generate's. `counts` (may be null) adds up drafts.
StatusOr<Generation> GenerateSpeculative(Model& model, KvCache& cache, const std::vector<int32_t>& prompt, int n,
                                         Sampler& sampler, const std::function<bool(int32_t)>& on_token,
                                         const SpeculativeConfig& config, const Proposer& propose,
                                         SpeculationCounts* counts = nullptr);

}  // namespace vt
