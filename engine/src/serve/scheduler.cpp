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
    const int64_t n = std::min(r.num_tokens() - r.num_computed, budget);
    if (!Fit(r, n, plan)) break;
    plan.entries.push_back({&r, n});
    budget -= n;
  }
  // vLLM admits nothing in a step that preempted: the memory it freed is the running ones'.
  if (plan.preempted.empty()) AdmitWaiting(budget, plan);
  for (const Scheduled& s : plan.entries) plan.num_tokens += s.num_tokens;
  return plan;
}

Finished Scheduler::End(Request* r, std::string reason, std::string error) {
  auto it = std::find_if(running_.begin(), running_.end(), [r](const std::unique_ptr<Request>& p) { return p.get() == r; });
  Finished f{std::move(*it), std::move(reason), std::move(error)};
  running_.erase(it);
  kv_.Free(*f.request);
  return f;
}

std::vector<Finished> Scheduler::Update(const Plan& plan, const std::vector<StepResult>& results) {
  std::vector<Finished> done;
  for (size_t i = 0; i < plan.entries.size(); ++i) {
    Request& r = *plan.entries[i].request;
    if (!results[i].status.ok()) {
      done.push_back(End(&r, "error", results[i].status.message()));
      continue;
    }
    r.num_computed += plan.entries[i].num_tokens;
    kv_.Cache(r);
    if (r.num_computed < r.num_tokens()) continue;  // more of its prompt (or recompute) to come
    r.tokens.push_back(results[i].token);
    if (r.on_token && !r.on_token(results[i].token)) done.push_back(End(&r, "stop"));
    else if (r.generated() >= r.max_tokens) done.push_back(End(&r, "length"));
  }
  return done;
}

}  // namespace vt::serve
