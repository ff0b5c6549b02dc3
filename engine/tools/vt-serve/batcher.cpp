#include "batcher.h"

#include <algorithm>

namespace vtserve {

// A job's text as its tokens come: the decoder, its stop strings, its count.
struct Batcher::Sequence {
  Sequence(std::shared_ptr<Job> j, const vt::Tokenizer& t) : job(std::move(j)), decoder(t, job->special_text), stops(job->sampling.stop) {}
  std::shared_ptr<Job> job;
  vt::Sampler* sampler = nullptr;  // the request's, which the scheduler holds
  vt::StreamDecoder decoder;
  vt::StopStrings stops;
  int generated = 0;
};

Batcher::Batcher(vt::Model& model, const vt::Tokenizer& tokenizer, vt::KvCache pool, const KvOptions& kv,
                 const vt::serve::SchedulerConfig& config, ServeMetrics& metrics, SpecOptions spec)
    : tokenizer_(tokenizer), metrics_(metrics), config_(config),
      kv_(static_cast<int32_t>(kv.n_blocks), static_cast<int32_t>(kv.block_size), kv.prefix_caching), scheduler_(config, kv_),
      executor_(model, std::move(pool), std::move(spec.drafter)),
      num_speculative_(spec.num_speculative) {}

Batcher::~Batcher() = default;

vt::Status Batcher::WarmUp(int32_t token) { return executor_.WarmUp(token, std::min<int64_t>(32, config_.max_num_batched_tokens)); }

bool Batcher::Full() const { return scheduler_.num_running() + scheduler_.num_waiting() >= static_cast<size_t>(config_.max_num_seqs); }

void Batcher::Admit(std::shared_ptr<Job> job) {
  auto sampler = vt::Sampler::Create(job->sampling);
  if (!sampler.ok()) return job->Finish("error", sampler.status().message());
  for (int32_t id : job->prompt) sampler->Accept(id);
  if (job->grammar) {
    if (!trie_) trie_ = vt::VocabTrie::Build(tokenizer_);
    sampler->Constrain(std::make_shared<vt::GrammarConstraint>(job->grammar, trie_));
  }
  auto r = std::make_unique<vt::serve::Request>();
  r->id = next_id_++;
  r->tokens = job->prompt;
  r->num_prompt = job->prompt.size();
  r->max_tokens = job->sampling.max_tokens;
  r->sampler = std::move(sampler).value();
  r->num_speculative = num_speculative_;
  auto s = std::make_unique<Sequence>(job, tokenizer_);
  s->sampler = &*r->sampler;
  r->on_token = [this, seq = s.get()](int32_t id) { return Accept(*seq, id); };
  const vt::serve::RequestId id = r->id;
  if (vt::Status added = scheduler_.Add(std::move(r)); !added.ok()) return job->Finish("error", added.message());
  sequences_.emplace(id, std::move(s));
  waiting_now_ = static_cast<int>(scheduler_.num_waiting());
}

void Batcher::Finish(Sequence& s, const std::string& reason, const std::string& error) {
  if (error.empty() && !s.stops.stopped()) s.job->Emit(s.stops.Push(s.decoder.Flush()) + s.stops.Flush(), s.generated);
  auto now = Job::Clock::now();
  double e2e = std::chrono::duration<double>(now - s.job->arrived).count();
  double ttft = s.generated > 0 ? s.job->SecondsToFirstToken() : e2e;
  metrics_.Finished(static_cast<int64_t>(s.job->prompt.size()), s.generated, reason, ttft, e2e);
  s.job->Finish(reason, error, s.stops.stopped() ? std::optional<std::string>(s.stops.matched()) : std::nullopt);
}

// The log-probabilities of the token just sampled, with each token as its bytes.
std::optional<LogprobEntry> Batcher::Logprobs(Sequence& s) {
  std::optional<vt::TokenLogprobs> t = s.sampler->TakeLogprobs();
  if (!t) return std::nullopt;
  return EntryOf(tokenizer_, *t);
}

// A sampled token as text; false ends the request ("stop": EOS, a stop string, or a grammar
// that cannot go on).
bool Batcher::Accept(Sequence& s, int32_t id) {
  if (++s.generated == 1) s.job->MarkFirstToken();
  bool eos = tokenizer_.IsEog(id) && !s.job->sampling.ignore_eos;
  std::optional<LogprobEntry> logprobs = Logprobs(s);
  s.job->Emit(eos ? "" : s.stops.Push(s.decoder.Push(id)), s.generated, eos ? std::nullopt : std::move(logprobs));
  const auto& grammar = s.sampler->constraint();
  return !eos && !s.stops.stopped() && !(grammar && grammar->CompleteAfter(s.generated));
}

void Batcher::Step() {
  // A client that hung up ends here, before its request costs another token.
  for (auto it = sequences_.begin(); it != sequences_.end();) {
    std::optional<vt::serve::Finished> aborted;
    if (it->second->job->cancelled()) aborted = scheduler_.Abort(it->first);
    if (!aborted) {
      ++it;
      continue;
    }
    Finish(*it->second, "abort");
    it = sequences_.erase(it);
  }
  vt::serve::Plan plan = scheduler_.Schedule();
  if (!plan.entries.empty()) {
    std::vector<vt::serve::StepResult> results = executor_.Execute(plan);
    metrics_.Step(static_cast<int>(plan.entries.size()), static_cast<int>(plan.num_tokens));
    for (vt::serve::Finished& f : scheduler_.Update(plan, results)) {
      auto it = sequences_.find(f.request->id);
      Finish(*it->second, f.reason, f.error);
      sequences_.erase(it);
    }
  }
  metrics_.SetCacheCounters(kv_.queries(), kv_.hits(), scheduler_.preemptions());
  const vt::serve::ModelExecutor::SpecCounts& spec = executor_.spec_counts();
  metrics_.SetSpecCounters(spec.drafts, spec.draft_tokens, spec.accepted_tokens);
  kv_usage_ = kv_.usage();
  running_now_ = static_cast<int>(scheduler_.num_running());
  waiting_now_ = static_cast<int>(scheduler_.num_waiting());
}

}  // namespace vtserve
