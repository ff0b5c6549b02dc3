#include "vt/speculative.h"

#include <algorithm>
#include <chrono>

namespace vt {

std::vector<int32_t> NgramDraft(const std::vector<int32_t>& tokens, int k, int min_n, int max_n) {
  const int64_t size = static_cast<int64_t>(tokens.size());
  if (k <= 0) return {};
  for (int64_t n = std::min<int64_t>(max_n, size - 1); n >= std::max(min_n, 1); --n) {
    auto suffix = tokens.end() - n;
    // The most recent earlier occurrence: one that ends before the last token.
    for (int64_t start = size - n - 1; start >= 0; --start) {
      auto at = tokens.begin() + start;
      if (!std::equal(suffix, tokens.end(), at)) continue;
      // What followed it; past the sequence's end, what the draft itself repeats (a match
      // p tokens back continues with period p, as the lookup on the drafted text would).
      std::vector<int32_t> out;
      for (int64_t j = 0, from = start + n; j < k; ++j) out.push_back(from + j < size ? tokens[from + j] : out[from + j - size]);
      return out;
    }
  }
  return {};
}

Status CheckDraftVocabulary(const Tokenizer& target, const Tokenizer& draft) {
  if (target.size() != draft.size()) {
    return Status(StatusCode::kInvalidArgument, "the draft's vocabulary has " + std::to_string(draft.size()) + " tokens, the target's " +
                                                    std::to_string(target.size()));
  }
  for (size_t i = 0; i < target.size(); ++i) {
    const int32_t id = static_cast<int32_t>(i);
    const std::string& a = target.text(id);
    const std::string& b = draft.text(id);
    if (a != b || target.type(id) != draft.type(id)) {
      return Status(StatusCode::kInvalidArgument, "the draft's vocabulary differs from the target's at token " + std::to_string(id) +
                                                      ": the target's is \"" + a + "\" (type " + std::to_string(static_cast<int>(target.type(id))) +
                                                      "), the draft's \"" + b + "\" (type " + std::to_string(static_cast<int>(draft.type(id))) + ")");
    }
  }
  return Status();
}

StatusOr<std::vector<int32_t>> DraftModel::Propose(const std::vector<int32_t>& tokens, int k) {
  if (tokens.empty() || k <= 0) return std::vector<int32_t>{};
  size_t common = 0;
  while (common < seen_.size() && common < tokens.size() && seen_[common] == tokens[common]) ++common;
  common = std::min(common, tokens.size() - 1);  // the last token is run again for its logits
  cache_.n_past = static_cast<int64_t>(common);
  seen_.resize(common);
  std::vector<int32_t> feed(tokens.begin() + static_cast<long>(common), tokens.end());
  std::vector<int32_t> out;
  while (static_cast<int>(out.size()) < k && cache_.n_past + static_cast<int64_t>(feed.size()) <= cache_.n_ctx) {
    auto logits = model_.Forward(feed, cache_);
    if (!logits.ok()) return Status(logits.status().code(), "draft model: " + logits.status().message());
    seen_.insert(seen_.end(), feed.begin(), feed.end());
    out.push_back(GreedyToken(logits.value()));
    feed = {out.back()};
  }
  return out;
}

Verified VerifyDraft(const std::vector<float>& logits, const std::vector<int32_t>& draft, Sampler* sampler) {
  const size_t vocab = logits.size() / (draft.size() + 1);
  std::vector<float> row(vocab);
  Verified v;
  for (size_t i = 0; i <= draft.size(); ++i) {
    std::copy_n(logits.begin() + static_cast<long>(i * vocab), vocab, row.begin());
    bool kept = false;
    int32_t token;
    if (!sampler) {
      token = GreedyToken(row);
      kept = i < draft.size() && token == draft[i];
    } else {
      token = i < draft.size() ? sampler->Verify(row, draft[i], &kept) : sampler->Sample(row);
      if (token < 0) {  // nothing may come next (Sampler::status says why)
        v.token = token;
        break;
      }
      sampler->AcceptGenerated(token);
    }
    if (!kept) {
      v.token = token;
      break;
    }
    v.accepted.push_back(token);
  }
  return v;
}

namespace {

// A sampler that returned no token says why (a grammar that allows none).
Status NoTokenStatus(const Sampler& sampler) {
  return sampler.status().ok() ? Status(StatusCode::kInvalidArgument, "the sampler chose no token") : sampler.status();
}

// One verification step: the last token and `draft` at positions cache.n_past.., the accepted
// tokens and the one after them handed to `emit` in order (false: stop), the cache rolled back
// past the rejected ones. Returns whether generation goes on.
StatusOr<bool> VerifyStep(Model& model, KvCache& cache, int32_t last, const std::vector<int32_t>& draft, Sampler& sampler,
                          const std::function<bool(int32_t)>& emit, SpeculationCounts& counts) {
  BatchEntry entry{{last}, &cache, 1 + static_cast<int64_t>(draft.size())};
  entry.tokens.insert(entry.tokens.end(), draft.begin(), draft.end());
  const int64_t before = cache.n_past;
  auto logits = model.ForwardBatch({entry});
  if (!logits.ok()) return logits.status();
  const Verified v = VerifyDraft(logits->front(), draft, &sampler);
  if (v.token < 0) return NoTokenStatus(sampler);
  size_t accepted = 0;
  bool more = true;
  for (size_t i = 0; i <= v.accepted.size() && more; ++i) {
    const bool kept = i < v.accepted.size();
    more = emit(kept ? v.accepted[i] : v.token);
    accepted += kept;
  }
  if (!draft.empty()) {
    counts.drafts++;
    counts.draft_tokens += static_cast<int64_t>(draft.size());
    counts.accepted_tokens += static_cast<int64_t>(accepted);
  }
  cache.n_past = before + 1 + static_cast<int64_t>(accepted);  // the rejected positions are written over later
  return more;
}

}  // namespace

StatusOr<Generation> GenerateSpeculative(Model& model, KvCache& cache, const std::vector<int32_t>& prompt, int n,
                                         Sampler& sampler, const std::function<bool(int32_t)>& on_token,
                                         const SpeculativeConfig& config, const Proposer& propose, SpeculationCounts* counts) {
  using Clock = std::chrono::steady_clock;
  Generation g;
  g.prompt_tokens = static_cast<int64_t>(prompt.size());
  if (n <= 0) return g;
  std::vector<int32_t> sequence = prompt;
  auto emit = [&](int32_t token) {
    g.tokens.push_back(token);
    sequence.push_back(token);
    return (!on_token || on_token(token)) && static_cast<int>(g.tokens.size()) < n;
  };
  auto start = Clock::now();
  auto logits = model.Forward(prompt, cache);
  if (!logits.ok()) return logits.status();
  g.prompt_s = std::chrono::duration<double>(Clock::now() - start).count();
  const int32_t first = sampler.Sample(logits.value());
  if (first < 0) return NoTokenStatus(sampler);
  sampler.AcceptGenerated(first);
  bool more = emit(first);
  SpeculationCounts local;
  start = Clock::now();
  while (more) {
    // The last token and k drafts take k + 1 positions; k + 1 tokens may come back.
    const int64_t k = std::min<int64_t>({config.num_speculative_tokens, n - static_cast<int64_t>(g.tokens.size()) - 1,
                                         cache.n_ctx - cache.n_past - 1});
    std::vector<int32_t> draft;
    if (k > 0 && propose) {
      auto proposed = propose(sequence, static_cast<int>(k));
      if (!proposed.ok()) return proposed.status();
      draft = std::move(proposed).value();
      if (static_cast<int64_t>(draft.size()) > k) draft.resize(static_cast<size_t>(k));
      if (static_cast<int>(draft.size()) < config.draft_min) draft.clear();
    }
    auto step = VerifyStep(model, cache, sequence.back(), draft, sampler, emit, local);
    if (!step.ok()) return step.status();
    more = step.value();
  }
  g.decode_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (counts) *counts = local;
  return g;
}

}  // namespace vt
