#include "vt/serve/kv_cache_manager.h"

#include <algorithm>

namespace vt::serve {

KvCacheManager::KvCacheManager(int32_t n_blocks, int32_t block_size, bool prefix_caching)
    : pool_(n_blocks, block_size), prefix_caching_(prefix_caching) {}

std::span<const int32_t> KvCacheManager::BlockTokens(const Request& r, size_t i) const {
  return std::span<const int32_t>(r.tokens).subspan(i * static_cast<size_t>(pool_.block_size()), static_cast<size_t>(pool_.block_size()));
}

// The hash chain as far as `blocks` full blocks (tokens never change once appended, so a
// preempted request keeps its chain).
void KvCacheManager::HashFullBlocks(Request& r, size_t blocks) const {
  while (r.hashes.size() < blocks) {
    size_t i = r.hashes.size();
    r.hashes.push_back(HashBlock(i ? r.hashes[i - 1] : 0, BlockTokens(r, i)));
  }
}

int64_t KvCacheManager::Admit(Request& r, int64_t budget) {
  std::vector<int32_t> hit;
  if (prefix_caching_) {
    const size_t most = static_cast<size_t>((r.num_tokens() - 1) / pool_.block_size());
    HashFullBlocks(r, most);
    for (size_t i = 0; i < most; ++i) {
      int32_t id = pool_.Find(r.hashes[i], i ? r.hashes[i - 1] : 0, BlockTokens(r, i));
      if (id < 0) break;
      hit.push_back(id);
    }
  }
  const int64_t computed = static_cast<int64_t>(hit.size()) * pool_.block_size();
  const int64_t n = std::min(r.num_tokens() - computed, budget);
  // Hits no request holds are free blocks too: holding them takes them out of the free count.
  const int32_t idle_hits = static_cast<int32_t>(std::count_if(hit.begin(), hit.end(), [&](int32_t id) { return pool_.refs(id) == 0; }));
  const int32_t need = BlocksFor(computed + n) - static_cast<int32_t>(hit.size());
  if (n <= 0 || need > pool_.num_free() - idle_hits) return 0;
  for (int32_t id : hit) pool_.Hold(id);
  r.blocks = hit;
  pool_.Take(need, r.blocks);
  r.num_computed = computed;
  r.num_cached_blocks = hit.size();
  if (r.preemptions == 0) {  // a preempted request's recompute is no new lookup (vLLM counts it apart)
    queries_ += static_cast<uint64_t>(r.num_tokens());
    hits_ += static_cast<uint64_t>(computed);
  }
  return n;
}

bool KvCacheManager::Grow(Request& r, int64_t n) {
  const int32_t need = BlocksFor(r.num_computed + n) - static_cast<int32_t>(r.blocks.size());
  return need <= 0 || pool_.Take(need, r.blocks);
}

void KvCacheManager::Cache(Request& r) {
  if (!prefix_caching_) return;
  const size_t full = static_cast<size_t>(r.num_computed / pool_.block_size());
  HashFullBlocks(r, full);
  for (size_t i = r.num_cached_blocks; i < full; ++i) pool_.Register(r.blocks[i], r.hashes[i], i ? r.hashes[i - 1] : 0, BlockTokens(r, i));
  r.num_cached_blocks = std::max(r.num_cached_blocks, full);
}

void KvCacheManager::Free(Request& r) {
  pool_.Release(std::vector<int32_t>(r.blocks.rbegin(), r.blocks.rend()));
  r.blocks.clear();
  r.num_cached_blocks = 0;
}

}  // namespace vt::serve
