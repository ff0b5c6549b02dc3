#include "vt/serve/executor.h"
#include "vt/speculative.h"

#include <numeric>

namespace vt::serve {

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

// Each drafting entry's draft, no longer than the room it was given.
std::vector<std::vector<int32_t>> ModelExecutor::Drafts(const Plan& plan) {
  if (!drafter_) return std::vector<std::vector<int32_t>>(plan.entries.size());
  std::vector<std::vector<int32_t>> drafts = drafter_->Propose(plan);
  for (size_t i = 0; i < drafts.size(); ++i) {
    if (static_cast<int64_t>(drafts[i].size()) > plan.entries[i].num_draft) drafts[i].resize(static_cast<size_t>(plan.entries[i].num_draft));
  }
  return drafts;
}

// The token after a request's last one, and before it the drafted tokens the target agrees
// with (vt::VerifyDraft; greedy without a sampler).
StepResult ModelExecutor::Verify(Request& r, const std::vector<float>& logits, const std::vector<int32_t>& draft) {
  Verified v = VerifyDraft(logits, draft, r.sampler ? &*r.sampler : nullptr);
  if (!draft.empty()) {
    spec_counts_.drafts++;
    spec_counts_.draft_tokens += draft.size();
    spec_counts_.accepted_tokens += v.accepted.size();
  }
  StepResult result;
  result.token = v.token;
  result.accepted = std::move(v.accepted);
  if (v.token < 0) {  // the sampler chose nothing (a grammar that allows no token): says why
    result.status = r.sampler && !r.sampler->status().ok() ? r.sampler->status()
                                                           : Status(StatusCode::kInvalidArgument, "the sampler chose no token");
  }
  return result;
}

std::vector<StepResult> ModelExecutor::Execute(const Plan& plan) {
  std::vector<std::vector<int32_t>> drafts = Drafts(plan);
  std::vector<KvCache> caches;
  caches.reserve(plan.entries.size());  // the batch points into it
  std::vector<BatchEntry> batch;
  for (size_t i = 0; i < plan.entries.size(); ++i) {
    const Scheduled& s = plan.entries[i];
    const Request& r = *s.request;
    caches.push_back(PagedCache(pool_, r.blocks, r.num_computed));
    auto first = r.tokens.begin() + r.num_computed;
    BatchEntry e{std::vector<int32_t>(first, first + s.num_tokens), &caches.back(), 1 + static_cast<int64_t>(drafts[i].size())};
    e.tokens.insert(e.tokens.end(), drafts[i].begin(), drafts[i].end());
    batch.push_back(std::move(e));
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
    results[i] = Verify(r, logits[i].value(), drafts[i]);
  }
  return results;
}

Status ModelExecutor::WarmUp(int32_t token, int64_t n) {
  const int64_t blocks = std::min<int64_t>((n + 1 + pool_.block_size - 1) / pool_.block_size, pool_.k[0].ne[2] / pool_.block_size);
  std::vector<int32_t> table(static_cast<size_t>(blocks));
  std::iota(table.begin(), table.end(), 0);
  KvCache cache = PagedCache(pool_, table, 0);
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
