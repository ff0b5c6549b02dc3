#include "vt/serve/scheduler.h"

#include <algorithm>

namespace vt::serve {

Status Scheduler::Add(std::unique_ptr<Request> r) {
  const int64_t most = static_cast<int64_t>(r->num_prompt) + r->max_tokens;
  if (r->tokens.empty() || r->max_tokens < 1) return Status(StatusCode::kInvalidArgument, "a request needs a prompt and max_tokens >= 1");
  if (kv_.BlocksFor(most) > kv_.pool().size()) {
    return Status(StatusCode::kOutOfRange, "the request needs " + std::to_string(most) + " tokens of KV cache (prompt and max_tokens); the whole cache holds " +
                                               std::to_string(kv_.capacity_tokens()));
  }
  waiting_.push_back(std::move(r));
  return Status();
}

std::optional<Finished> Scheduler::Abort(RequestId id) {
  auto same = [id](const std::unique_ptr<Request>& r) { return r->id == id; };
  if (auto it = std::find_if(waiting_.begin(), waiting_.end(), same); it != waiting_.end()) {
    Finished f{std::move(*it), "abort", ""};
    waiting_.erase(it);
    return f;
  }
  if (auto it = std::find_if(running_.begin(), running_.end(), same); it != running_.end()) return End(it->get(), "abort");
  return std::nullopt;
}

// Blocks for n more tokens of running request r, preempting the most recently admitted
// running requests (r itself last) until they fit. False: r was preempted.
bool Scheduler::Fit(Request& r, int64_t n, Plan& plan) {
  while (!kv_.Grow(r, n)) {
    std::unique_ptr<Request> victim = std::move(running_.back());
    running_.pop_back();
    kv_.Free(*victim);  // recomputed from its first token (or a prefix hit) when admitted again
    victim->preemptions++;
    ++preemptions_;
    plan.preempted.push_back(victim->id);
    const bool self = victim.get() == &r;
    waiting_.push_front(std::move(victim));
    if (self) return false;
  }
  return true;
}

// Waiting requests in arrival order while the budget, the running limit and the blocks allow;
// one that does not fit keeps the ones behind it waiting.
void Scheduler::AdmitWaiting(int64_t& budget, Plan& plan) {
  while (!waiting_.empty() && budget > 0 && static_cast<int>(running_.size()) < config_.max_num_seqs) {
    Request& r = *waiting_.front();
    const int64_t n = kv_.Admit(r, budget);
    if (n == 0) return;
    running_.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
    plan.entries.push_back({&r, n});
    budget -= n;
  }
}

Plan Scheduler::Schedule() {
  Plan plan;
  int64_t budget = config_.max_num_batched_tokens;
  // Running requests first, in admission order: a decode's one token, or a chunk of what
  // is left of a prompt or a recompute.
  for (size_t i = 0; i < running_.size() && budget > 0; ++i) {
    Request& r = *running_[i];
    const int64_t left = r.num_tokens() - r.num_computed, n = std::min(left, budget);
    // A decode's drafted tokens: within the budget, and never past max_tokens (a step that
    // keeps every draft adds one token more).
    int64_t d = 0;
    if (left == 1 && r.num_speculative > 0) d = std::max<int64_t>(0, std::min<int64_t>({r.num_speculative, r.max_tokens - r.generated() - 1, budget - 1}));
    if (!Fit(r, n + d, plan)) break;
    plan.entries.push_back({&r, n, d});
    budget -= n + d;
  }
  // vLLM admits nothing in a step that preempted: the memory it freed is the running ones'.
  if (plan.preempted.empty()) AdmitWaiting(budget, plan);
  for (const Scheduled& s : plan.entries) plan.num_tokens += s.num_tokens + s.num_draft;
  return plan;
}

Finished Scheduler::End(Request* r, std::string reason, std::string error) {
  auto it = std::find_if(running_.begin(), running_.end(), [r](const std::unique_ptr<Request>& p) { return p.get() == r; });
  Finished f{std::move(*it), std::move(reason), std::move(error)};
  running_.erase(it);
  kv_.Free(*f.request);
  return f;
}

// The tokens a step gave a request that computed its last one: the drafts kept, then the one
// sampled, each shown to on_token in order until one ends the request.
std::optional<Finished> Scheduler::Emit(Request& r, const StepResult& result) {
  const size_t n = result.accepted.size();
  for (size_t j = 0; j <= n; ++j) {
    const int32_t token = j < n ? result.accepted[j] : result.token;
    if (j == n) r.tokens.push_back(token);
    const size_t later = j < n ? n - j - 1 : 0;  // kept drafts after this one
    const bool stop = r.on_token && !r.on_token(token);
    if (stop || r.generated() - static_cast<int64_t>(later) >= r.max_tokens) {
      r.tokens.resize(r.tokens.size() - later);  // what follows the end is not the request's
      return End(&r, stop ? "stop" : "length");
    }
  }
  return std::nullopt;
}

std::vector<Finished> Scheduler::Update(const Plan& plan, const std::vector<StepResult>& results) {
  std::vector<Finished> done;
  for (size_t i = 0; i < plan.entries.size(); ++i) {
    Request& r = *plan.entries[i].request;
    if (!results[i].status.ok()) {
      done.push_back(End(&r, "error", results[i].status.message()));
      continue;
    }
    // Kept drafts are the sequence's tokens now, with their keys and values in the cache.
    r.tokens.insert(r.tokens.end(), results[i].accepted.begin(), results[i].accepted.end());
    r.num_computed += plan.entries[i].num_tokens + static_cast<int64_t>(results[i].accepted.size());
    kv_.Cache(r);
    if (r.num_computed < r.num_tokens()) continue;  // more of its prompt (or recompute) to come
    if (auto ended = Emit(r, results[i])) done.push_back(std::move(*ended));
  }
  return done;
}

}  // namespace vt::serve
