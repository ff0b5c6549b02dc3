// One request as the serving core sees it (vLLM v1's Request): its tokens so far, how many of
// them have keys and values in the cache, the blocks that hold them, and what the caller
// wants told of each new token. The caller keeps the rest (its client, its text).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "vt/sampling.h"

namespace vt::serve {

using RequestId = uint64_t;
using BlockHash = uint64_t;

struct Request {
  RequestId id = 0;
  std::vector<int32_t> tokens;  // the prompt, then each generated token
  size_t num_prompt = 0;
  int max_tokens = 1;           // generated tokens at most
  // Sees each generated token once, in order; false ends the request as "stop" (the caller's
  // EOS and stop strings). Null: only max_tokens ends it.
  std::function<bool(int32_t)> on_token;
  std::optional<Sampler> sampler;  // the executor's; a fake executor may leave it unset
  int num_speculative = 0;         // drafted tokens a decode step may verify (0: no speculation)

  // The core's state.
  int64_t num_computed = 0;          // tokens[0, num_computed) are in the cache
  std::vector<int32_t> blocks;       // the block table
  std::vector<BlockHash> hashes;     // the hash chain of tokens' full blocks, as far as computed
  size_t num_cached_blocks = 0;      // blocks registered in the prefix cache
  int preemptions = 0;
  int64_t draft_computed = 0;        // a draft model's: tokens[0, draft_computed) are in its cache

  int64_t generated() const { return static_cast<int64_t>(tokens.size() - num_prompt); }
  int64_t num_tokens() const { return static_cast<int64_t>(tokens.size()); }
};

}  // namespace vt::serve
