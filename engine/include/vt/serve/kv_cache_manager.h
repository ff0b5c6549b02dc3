// Each request's KV blocks (vLLM v1's KVCacheManager): the cached prefix it can reuse, the
// blocks each step needs, the full blocks it offers later requests, and freeing.
#pragma once

#include <cstdint>

#include "vt/serve/block_pool.h"
#include "vt/serve/request.h"

namespace vt::serve {

class KvCacheManager {
 public:
  KvCacheManager(int32_t n_blocks, int32_t block_size, bool prefix_caching);

  // A waiting request admitted for at most `budget` tokens this step: with prefix caching, the
  // longest run of cached blocks that prefixes its tokens (the last token always computed, so
  // its logits are fresh), then blocks for what it computes now. Returns that many tokens
  // (> 0), or 0 when the free blocks cannot hold them: then nothing was taken.
  int64_t Admit(Request& r, int64_t budget);
  // Blocks for `n` more tokens of a running request; false (nothing taken) when too few are free.
  bool Grow(Request& r, int64_t n);
  // After a step: the request's blocks that are now full become hits for later requests.
  void Cache(Request& r);
  // Every block let go, last first, so a request's own tail is reused before a shared head.
  void Free(Request& r);

  int32_t BlocksFor(int64_t tokens) const { return static_cast<int32_t>((tokens + pool_.block_size() - 1) / pool_.block_size()); }
  int64_t capacity_tokens() const { return static_cast<int64_t>(pool_.size()) * pool_.block_size(); }
  double usage() const { return 1.0 - static_cast<double>(pool_.num_free()) / pool_.size(); }
  bool prefix_caching() const { return prefix_caching_; }
  // Tokens admitted from the cache, and tokens of the admitted requests: first admissions
  // only, not a preempted request's return.
  uint64_t hits() const { return hits_; }
  uint64_t queries() const { return queries_; }
  const BlockPool& pool() const { return pool_; }

 private:
  void HashFullBlocks(Request& r, size_t blocks) const;
  std::span<const int32_t> BlockTokens(const Request& r, size_t i) const;

  BlockPool pool_;
  bool prefix_caching_;
  uint64_t hits_ = 0, queries_ = 0;
};

}  // namespace vt::serve
