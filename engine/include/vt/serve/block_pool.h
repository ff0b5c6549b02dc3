// The KV cache's blocks (vLLM v1's BlockPool): reference counts, the hashes of full blocks
// (automatic prefix caching), and the order free blocks are reused in. A block whose count
// drops to 0 keeps its keys, values and hash: it is free, and a hit until it is reused,
// least recently freed first.
#pragma once

#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>
#include <vector>

#include "vt/serve/request.h"

namespace vt::serve {

// A full block's hash: its parent's hash (0 for the first block) and its tokens.
BlockHash HashBlock(BlockHash parent, std::span<const int32_t> tokens);

class BlockPool {
 public:
  BlockPool(int32_t n_blocks, int32_t block_size);

  int32_t size() const { return static_cast<int32_t>(blocks_.size()); }
  int32_t block_size() const { return block_size_; }
  // Blocks no request holds (cached or not): what Take can give.
  int32_t num_free() const { return static_cast<int32_t>(free_.size()); }
  int32_t refs(int32_t id) const { return blocks_[static_cast<size_t>(id)].refs; }

  // `n` blocks, each held once, taken least recently freed first (their hashes forgotten); or
  // nothing when fewer than n are free.
  bool Take(int32_t n, std::vector<int32_t>& out);
  // The cached block that holds `tokens` after `parent` under `hash`, or -1. It is compared
  // token by token: a colliding hash is a miss.
  int32_t Find(BlockHash hash, BlockHash parent, std::span<const int32_t> tokens) const;
  // One more holder of a block (a hit): out of the free order while held.
  void Hold(int32_t id);
  // Each block's holder lets go, in the order given; at 0 it joins the end of the free order.
  void Release(const std::vector<int32_t>& ids);
  // A full block's hash, so later requests may find it (the first block under a hash wins).
  void Register(int32_t id, BlockHash hash, BlockHash parent, std::span<const int32_t> tokens);
  size_t num_cached() const { return cached_.size(); }

 private:
  struct Block {
    int refs = 0;
    bool hashed = false;
    BlockHash hash = 0, parent = 0;
    std::vector<int32_t> tokens;     // a hashed block's tokens, for the comparison
    std::list<int32_t>::iterator at;  // its place in free_ while free
  };
  void Forget(int32_t id);

  int32_t block_size_;
  std::vector<Block> blocks_;
  std::list<int32_t> free_;  // front: the next taken
  std::unordered_map<BlockHash, int32_t> cached_;
};

}  // namespace vt::serve
