#include "vt/serve/block_pool.h"

#include <algorithm>

namespace vt::serve {

// FNV-1a over the parent's hash and the tokens' bytes, then a final mix (splitmix64's): every
// token moves every bit, and a chain of blocks hashes differently from its blocks reordered.
BlockHash HashBlock(BlockHash parent, std::span<const int32_t> tokens) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 0x100000001b3ull;
  };
  mix(parent);
  for (int32_t t : tokens) mix(static_cast<uint32_t>(t));
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

BlockPool::BlockPool(int32_t n_blocks, int32_t block_size) : block_size_(block_size), blocks_(static_cast<size_t>(n_blocks)) {
  for (int32_t id = 0; id < n_blocks; ++id) blocks_[static_cast<size_t>(id)].at = free_.insert(free_.end(), id);
}

bool BlockPool::Take(int32_t n, std::vector<int32_t>& out) {
  if (n > num_free()) return false;
  for (int32_t i = 0; i < n; ++i) {
    int32_t id = free_.front();
    free_.pop_front();
    Forget(id);
    blocks_[static_cast<size_t>(id)].refs = 1;
    out.push_back(id);
  }
  return true;
}

// A reused block's old contents are overwritten: its hash no longer names them.
void BlockPool::Forget(int32_t id) {
  Block& b = blocks_[static_cast<size_t>(id)];
  if (!b.hashed) return;
  if (auto it = cached_.find(b.hash); it != cached_.end() && it->second == id) cached_.erase(it);
  b.hashed = false;
  b.tokens.clear();
}

int32_t BlockPool::Find(BlockHash hash, BlockHash parent, std::span<const int32_t> tokens) const {
  auto it = cached_.find(hash);
  if (it == cached_.end()) return -1;
  const Block& b = blocks_[static_cast<size_t>(it->second)];
  if (b.parent != parent || !std::equal(tokens.begin(), tokens.end(), b.tokens.begin(), b.tokens.end())) return -1;
  return it->second;
}

void BlockPool::Hold(int32_t id) {
  Block& b = blocks_[static_cast<size_t>(id)];
  if (b.refs++ == 0) free_.erase(b.at);
}

void BlockPool::Release(const std::vector<int32_t>& ids) {
  for (int32_t id : ids) {
    Block& b = blocks_[static_cast<size_t>(id)];
    if (b.refs > 0 && --b.refs == 0) b.at = free_.insert(free_.end(), id);
  }
}

void BlockPool::Register(int32_t id, BlockHash hash, BlockHash parent, std::span<const int32_t> tokens) {
  Block& b = blocks_[static_cast<size_t>(id)];
  if (b.hashed || cached_.count(hash)) return;
  b.hashed = true;
  b.hash = hash;
  b.parent = parent;
  b.tokens.assign(tokens.begin(), tokens.end());
  cached_.emplace(hash, id);
}

}  // namespace vt::serve
