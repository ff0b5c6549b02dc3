// Sampling parameters as vLLM names them, and the sampler that applies them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "vt/generate.h"
#include "vt/status.h"
#include "vt/token_constraint.h"

namespace vt {

struct SamplingParams {
  double temperature = 1.0;         // 0: greedy
  int top_k = -1;                   // -1 or 0: every token
  double top_p = 1.0;               // (0, 1]
  double min_p = 0.0;               // [0, 1]
  std::optional<uint64_t> seed{};   // unset: a fresh random seed
  int max_tokens = 16;              // >= 1
  bool ignore_eos = false;
  std::vector<std::string> stop{};  // applied by callers that decode text
  double repetition_penalty = 1.0;  // > 0; 1: off
  // OpenAI's, over the generated tokens only: logit − presence·[count > 0] − frequency·count.
  double presence_penalty = 0.0, frequency_penalty = 0.0;  // [-2, 2]; 0: off
  // OpenAI's: added to a token's logit before anything else, each in [-100, 100].
  std::vector<std::pair<int32_t, float>> logit_bias{};
  // Each generated token's log-probability and this many of the likeliest (0..20, vLLM's
  // max_logprobs): the model's own distribution (vLLM's raw_logprobs). Unset: none.
  std::optional<int> logprobs{};

  // kInvalidArgument naming the field and its value, for what vLLM refuses too.
  Status Validate() const;
};

// One generated token's log-probability and the likeliest tokens' (SamplingParams::logprobs).
struct TokenLogprobs {
  int32_t token = -1;
  float logprob = 0;
  std::vector<std::pair<int32_t, float>> top;  // likeliest first
};

// `token`'s log-probability under `logits` (raw: a log-softmax of n values) and the `top_n`
// likeliest tokens' (ties to the lower id).
TokenLogprobs LogprobsOf(const float* logits, size_t n, int32_t token, int top_n);

class Sampler {
 public:
  static StatusOr<Sampler> Create(const SamplingParams& params);

  // A token the repetition penalty must know about: each prompt token and each generated one.
  void Accept(int32_t token) { seen_.insert(token); }
  // A generated token: seen, and counted for the presence and frequency penalties.
  // Advances the constraint, if any (a token it refuses sets status()).
  void AcceptGenerated(int32_t token);
  // The next token for these logits (penalty, temperature, top-k, top-p, min-p, one draw).
  int32_t Sample(const std::vector<float>& logits);
  // Speculative decoding's rejection step for a drafted token proposed with certainty (a
  // drafter's argmax): accepted with probability p(draft) under this sampler's distribution
  // for `logits`; otherwise a draw from that distribution without `draft`. Either way the
  // token returned is distributed as Sample's. Accepts nothing itself (as Sample).
  int32_t Verify(const std::vector<float>& logits, int32_t draft, bool* accepted);
  // For Generate(): samples, then accepts what it chose.
  TokenSampler AsTokenSampler();
  // Only tokens `constraint` allows are sampled from now on (before every other rule); each
  // AcceptGenerated advances it.
  void Constrain(std::shared_ptr<GrammarConstraint> constraint) { constraint_ = std::move(constraint); }
  const std::shared_ptr<GrammarConstraint>& constraint() const { return constraint_; }
  // Why Sample or Verify returned -1: the constraint allows no token, or failed.
  const Status& status() const { return status_; }
  // The log-probabilities of the tokens Sample and Verify returned, oldest first (with
  // SamplingParams::logprobs); the caller takes one per token it uses.
  std::optional<TokenLogprobs> TakeLogprobs();

  const SamplingParams& params() const { return params_; }
  uint64_t seed() const { return seed_; }

 private:
  double Weigh(const std::vector<float>& logits);
  double Truncate();  // Weigh's temperature, min-p and top-p
  bool ApplyConstraint(bool greedy);
  int32_t Draw(double mass, int32_t skip);
  int32_t Chosen(const std::vector<float>& logits, int32_t token);

  SamplingParams params_;
  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
  std::unordered_set<int32_t> seen_;
  std::unordered_map<int32_t, int> generated_;
  std::vector<std::pair<double, int32_t>> candidates_;  // reused: no allocation per token
  std::shared_ptr<GrammarConstraint> constraint_;
  Status status_;
  std::deque<TokenLogprobs> logprobs_;
};

// Applies SamplingParams::stop to streamed text, as vLLM returns it: emits what can no longer
// become part of a stop string, holds back a tail that still might, and stops at the first stop
// string to appear (neither it nor anything after it is emitted).
class StopStrings {
 public:
  explicit StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {}
  std::string Push(const std::string& piece);  // what may be shown now
  bool stopped() const { return stopped_; }
  const std::string& matched() const { return matched_; }  // the stop string it stopped at
  std::string Flush();  // the held-back tail, once generation ended without a stop

 private:
  std::vector<std::string> stops_;
  std::string held_, matched_;
  bool stopped_ = false;
};

}  // namespace vt
