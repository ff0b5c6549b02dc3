#include "vt/serve/executor.h"

#include <numeric>

namespace vt::serve {

KvCache ModelExecutor::CacheOf(const std::vector<int32_t>& blocks, int64_t n_past) const {
  KvCache c;
  c.k = pool_.k;  // the pool's tensors, shared
  c.v = pool_.v;
  c.block_size = pool_.block_size;
  c.blocks = blocks;
  c.n_ctx = static_cast<int64_t>(blocks.size()) * pool_.block_size;
  c.n_past = n_past;
  return c;
}

// Each entry's logits. A failed batch fails no one yet: each entry runs alone (positions past
// its n_past are overwritten later), so a failure ends only the requests that fail by themselves.
std::vector<StatusOr<std::vector<float>>> ModelExecutor::Forward(const std::vector<BatchEntry>& batch) {
  std::vector<int64_t> was;
  for (const BatchEntry& e : batch) was.push_back(e.cache->n_past);
  auto together = model_.ForwardBatch(batch);
  std::vector<StatusOr<std::vector<float>>> out;
  if (together.ok()) {
    for (auto& l : together.value()) out.emplace_back(std::move(l));
    return out;
  }
  if (batch.size() == 1) return {together.status()};
  for (size_t i = 0; i < batch.size(); ++i) {
    batch[i].cache->n_past = was[i];
    auto alone = model_.ForwardBatch({batch[i]});
    if (alone.ok()) out.emplace_back(std::move(alone.value()[0]));
    else out.emplace_back(alone.status());
  }
  return out;
}

std::vector<StepResult> ModelExecutor::Execute(const Plan& plan) {
  std::vector<KvCache> caches;
  caches.reserve(plan.entries.size());  // the batch points into it
  std::vector<BatchEntry> batch;
  for (const Scheduled& s : plan.entries) {
    const Request& r = *s.request;
    caches.push_back(CacheOf(r.blocks, r.num_computed));
    auto first = r.tokens.begin() + r.num_computed;
    batch.push_back(BatchEntry{std::vector<int32_t>(first, first + s.num_tokens), &caches.back()});
  }
  std::vector<StepResult> results(plan.entries.size());
  if (batch.empty()) return results;
  std::vector<StatusOr<std::vector<float>>> logits = Forward(batch);
  for (size_t i = 0; i < results.size(); ++i) {
    Request& r = *plan.entries[i].request;
    if (!logits[i].ok()) {
      results[i].status = logits[i].status();
      continue;
    }
    if (r.num_computed + plan.entries[i].num_tokens < r.num_tokens()) continue;  // mid-prompt: no token
    if (!r.sampler) {
      results[i].token = GreedyToken(logits[i].value());
      continue;
    }
    results[i].token = r.sampler->Sample(logits[i].value());
    r.sampler->AcceptGenerated(results[i].token);
  }
  return results;
}

Status ModelExecutor::WarmUp(int32_t token, int64_t n) {
  const int64_t blocks = std::min<int64_t>((n + 1 + pool_.block_size - 1) / pool_.block_size, pool_.k[0].ne[2] / pool_.block_size);
  std::vector<int32_t> table(static_cast<size_t>(blocks));
  std::iota(table.begin(), table.end(), 0);
  KvCache cache = CacheOf(table, 0);
  n = std::min(n, cache.n_ctx - 1);
  std::vector<BatchEntry> batch{{std::vector<int32_t>(static_cast<size_t>(std::max<int64_t>(n, 0)), token), &cache}};
  for (int step = 0; step < 2 && !batch[0].tokens.empty(); ++step) {
    auto logits = model_.ForwardBatch(batch);
    if (!logits.ok()) return Status(logits.status().code(), "warm-up: " + logits.status().message());
    batch[0].tokens.resize(1);
  }
  return Status();
}

}  // namespace vt::serve
