#include "vt/generate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace vt {

int32_t GreedyToken(const std::vector<float>& logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// A sampler that returns no token (a grammar that allows none) ends generation; the sampler
// knows why (Sampler::status).
Status NoToken() { return Status(StatusCode::kInvalidArgument, "the sampler chose no token"); }

StatusOr<Generation> Generate(Model& model, KvCache& cache, const std::vector<int32_t>& prompt, int n,
                              const TokenSampler& sample, const std::function<bool(int32_t)>& on_token) {
  using Clock = std::chrono::steady_clock;
  Generation g;
  g.prompt_tokens = static_cast<int64_t>(prompt.size());
  if (n <= 0) return g;
  auto start = Clock::now();
  auto logits = model.Forward(prompt, cache);
  if (!logits.ok()) return logits.status();
  g.prompt_s = std::chrono::duration<double>(Clock::now() - start).count();
  int32_t next = sample(logits.value());
  if (next < 0) return NoToken();
  g.tokens.push_back(next);
  bool more = !on_token || on_token(next);
  start = Clock::now();
  for (int i = 1; i < n && more; ++i) {
    logits = model.Forward({next}, cache);
    if (!logits.ok()) return logits.status();
    next = sample(logits.value());
    if (next < 0) return NoToken();
    g.tokens.push_back(next);
    more = !on_token || on_token(next);
  }
  g.decode_s = std::chrono::duration<double>(Clock::now() - start).count();
  return g;
}

}  // namespace vt
