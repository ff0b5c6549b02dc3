// Sampling parameters as vLLM names them, and the sampler that applies them.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "vt/generate.h"
#include "vt/status.h"

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

  // kInvalidArgument naming the field and its value, for what vLLM refuses too.
  Status Validate() const;
};

class Sampler {
 public:
  static StatusOr<Sampler> Create(const SamplingParams& params);

  // A token the repetition penalty must know about: each prompt token and each generated one.
  void Accept(int32_t token) { seen_.insert(token); }
  // A generated token: seen, and counted for the presence and frequency penalties.
  void AcceptGenerated(int32_t token) {
    seen_.insert(token);
    ++generated_[token];
  }
  // The next token for these logits (penalty, temperature, top-k, top-p, min-p, one draw).
  int32_t Sample(const std::vector<float>& logits);
  // Speculative decoding's rejection step for a drafted token proposed with certainty (a
  // drafter's argmax): accepted with probability p(draft) under this sampler's distribution
  // for `logits`; otherwise a draw from that distribution without `draft`. Either way the
  // token returned is distributed as Sample's. Accepts nothing itself (as Sample).
  int32_t Verify(const std::vector<float>& logits, int32_t draft, bool* accepted);
  // For Generate(): samples, then accepts what it chose.
  TokenSampler AsTokenSampler();

  const SamplingParams& params() const { return params_; }
  uint64_t seed() const { return seed_; }

 private:
  double Weigh(const std::vector<float>& logits);
  int32_t Draw(double mass, int32_t skip);

  SamplingParams params_;
  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
  std::unordered_set<int32_t> seen_;
  std::unordered_map<int32_t, int> generated_;
  std::vector<std::pair<double, int32_t>> candidates_;  // reused: no allocation per token
};

// Applies SamplingParams::stop to streamed text, as vLLM returns it: emits what can no longer
// become part of a stop string, holds back a tail that still might, and stops at the first stop
// string to appear (neither it nor anything after it is emitted).
class StopStrings {
 public:
  explicit StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {}
  std::string Push(const std::string& piece);  // what may be shown now
  bool stopped() const { return stopped_; }
  std::string Flush();  // the held-back tail, once generation ended without a stop

 private:
  std::vector<std::string> stops_;
  std::string held_;
  bool stopped_ = false;
};

}  // namespace vt
