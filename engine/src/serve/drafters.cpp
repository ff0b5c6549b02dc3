#include <algorithm>

#include "vt/generate.h"
#include "vt/serve/drafter.h"
#include "vt/speculative.h"

namespace vt::serve {

KvCache PagedCache(const KvCache& pool, const std::vector<int32_t>& blocks, int64_t n_past) {
  KvCache c;
  c.k = pool.k;  // the pool's tensors, shared
  c.v = pool.v;
  c.block_size = pool.block_size;
  c.blocks = blocks;
  c.n_ctx = static_cast<int64_t>(blocks.size()) * pool.block_size;
  c.n_past = n_past;
  return c;
}

std::vector<std::vector<int32_t>> NgramDrafter::Propose(const Plan& plan) {
  std::vector<std::vector<int32_t>> out(plan.entries.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const Scheduled& s = plan.entries[i];
    if (s.num_draft > 0) out[i] = NgramDraft(s.request->tokens, static_cast<int>(s.num_draft), min_n_, max_n_);
  }
  return out;
}

std::vector<std::vector<int32_t>> ModelDrafter::Propose(const Plan& plan) {
  const size_t n = plan.entries.size();
  std::vector<std::vector<int32_t>> out(n);
  std::vector<KvCache> caches;
  caches.reserve(n);  // the batch points into it
  std::vector<BatchEntry> batch;
  for (const Scheduled& s : plan.entries) {
    const Request& r = *s.request;
    // Its cache has what the target's has but the kept drafts (run again here), prefix hits
    // included: the draft computed them with the target when they were first computed.
    const int64_t start = r.draft_computed > 0 ? std::min(r.draft_computed, r.num_computed) : r.num_computed;
    const int64_t end = r.num_computed + s.num_tokens;
    caches.push_back(PagedCache(pool_, r.blocks, start));
    batch.push_back(BatchEntry{std::vector<int32_t>(r.tokens.begin() + start, r.tokens.begin() + end), &caches.back()});
  }
  auto logits = model_.ForwardBatch(batch);
  if (!logits.ok()) {
    ++failures_;
    return out;
  }
  for (size_t i = 0; i < n; ++i) {
    Request& r = *plan.entries[i].request;
    r.draft_computed = caches[i].n_past;
    if (plan.entries[i].num_draft > 0) out[i].push_back(GreedyToken(logits.value()[i]));
  }
  // One more token for every entry that wants one, all of them in one pass each time.
  while (true) {
    std::vector<BatchEntry> more;
    std::vector<size_t> which;
    for (size_t i = 0; i < n; ++i) {
      if (static_cast<int64_t>(out[i].size()) < plan.entries[i].num_draft) {
        more.push_back(BatchEntry{{out[i].back()}, &caches[i]});
        which.push_back(i);
      }
    }
    if (more.empty()) break;
    auto next = model_.ForwardBatch(more);
    if (!next.ok()) {
      ++failures_;
      break;  // the drafts so far stand: the target checks them
    }
    for (size_t j = 0; j < which.size(); ++j) out[which[j]].push_back(GreedyToken(next.value()[j]));
  }
  return out;
}

}  // namespace vt::serve
