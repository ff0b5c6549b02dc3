#include "batcher.h"

#include <algorithm>
#include <optional>

namespace vtserve {

struct Batcher::Sequence {
  Sequence(std::shared_ptr<Job> j, size_t s, vt::Sampler sm, const vt::Tokenizer& t)
      : job(std::move(j)), slot(s), sampler(std::move(sm)), decoder(t), stops(job->sampling.stop) {}
  std::shared_ptr<Job> job;
  size_t slot;
  vt::Sampler sampler;
  vt::StreamDecoder decoder;
  vt::StopStrings stops;
  size_t prefilled = 0;  // prompt tokens in the cache
  size_t chunk = 0;      // prompt tokens in this step's batch
  int generated = 0;
  int32_t next = -1;     // the token the next step feeds (once the prompt is in)
  bool done = false;
  bool decoding() const { return prefilled == job->prompt.size(); }
};

Batcher::Batcher(vt::Model& model, const vt::Tokenizer& tokenizer, std::vector<vt::KvCache> slots,
                 int max_batched_tokens, ServeMetrics& metrics)
    : model_(model), tokenizer_(tokenizer), slots_(std::move(slots)), slot_used_(slots_.size(), false),
      max_batched_tokens_(max_batched_tokens), metrics_(metrics) {}

Batcher::~Batcher() = default;

vt::Status Batcher::WarmUp(int32_t token) {
  const int64_t n = std::min<int64_t>({32, slots_[0].n_ctx - 1, max_batched_tokens_});
  std::vector<vt::BatchEntry> batch{{std::vector<int32_t>(static_cast<size_t>(std::max<int64_t>(n, 0)), token), &slots_[0]}};
  for (int step = 0; step < 2 && !batch[0].tokens.empty(); ++step) {
    auto logits = model_.ForwardBatch(batch);
    if (!logits.ok()) return vt::Status(logits.status().code(), "warm-up: " + logits.status().message());
    batch[0].tokens.resize(1);
  }
  return vt::Status();
}

bool Batcher::Full() const { return running_.size() >= slots_.size(); }

void Batcher::Admit(std::shared_ptr<Job> job) {
  size_t slot = static_cast<size_t>(std::find(slot_used_.begin(), slot_used_.end(), false) - slot_used_.begin());
  auto sampler = vt::Sampler::Create(job->sampling);
  if (slot >= slots_.size() || !sampler.ok()) {
    return job->Finish("error", sampler.ok() ? "no free KV-cache slot" : sampler.status().message());
  }
  for (int32_t id : job->prompt) sampler->Accept(id);
  slot_used_[slot] = true;
  slots_[slot].n_past = 0;  // an empty cache: positions are overwritten from 0
  running_.push_back(std::make_unique<Sequence>(std::move(job), slot, std::move(sampler).value(), tokenizer_));
}

void Batcher::Finish(Sequence& s, const std::string& reason, const std::string& error) {
  if (error.empty() && !s.stops.stopped()) s.job->Emit(s.stops.Push(s.decoder.Flush()) + s.stops.Flush(), s.generated);
  auto now = Job::Clock::now();
  double e2e = std::chrono::duration<double>(now - s.job->arrived).count();
  double ttft = s.generated > 0 ? s.job->SecondsToFirstToken() : e2e;
  metrics_.Finished(static_cast<int64_t>(s.job->prompt.size()), s.generated, reason, ttft, e2e);
  s.job->Finish(reason, error);
  s.done = true;
}

// The token a sequence's logits choose, and what it means: more text, or the end.
void Batcher::Accept(Sequence& s, const std::vector<float>& logits) {
  int32_t id = s.sampler.Sample(logits);
  s.sampler.Accept(id);
  if (++s.generated == 1) s.job->MarkFirstToken();
  bool eos = tokenizer_.IsEog(id) && !s.job->sampling.ignore_eos;
  s.job->Emit(eos ? "" : s.stops.Push(s.decoder.Push(id)), s.generated);
  if (eos || s.stops.stopped()) return Finish(s, "stop");
  if (s.generated >= s.job->sampling.max_tokens) return Finish(s, "length");
  s.next = id;
}

// Each entry's logits. A failed batch fails no one yet: every cache is put back where it was
// (positions past n_past are overwritten by the next write) and each entry runs alone, so a
// failure ends only the requests that fail by themselves.
std::vector<vt::StatusOr<std::vector<float>>> Batcher::Forward(const std::vector<vt::BatchEntry>& batch) {
  std::vector<int64_t> was;
  for (const vt::BatchEntry& e : batch) was.push_back(e.cache->n_past);
  auto together = model_.ForwardBatch(batch);
  std::vector<vt::StatusOr<std::vector<float>>> out;
  if (together.ok()) {
    for (auto& l : together.value()) out.emplace_back(std::move(l));
    return out;
  }
  for (size_t i = 0; i < batch.size(); ++i) batch[i].cache->n_past = was[i];
  if (batch.size() == 1) return {together.status()};
  for (const vt::BatchEntry& e : batch) {
    auto alone = model_.ForwardBatch({e});
    if (alone.ok()) out.emplace_back(std::move(alone.value()[0]));
    else out.emplace_back(alone.status());
  }
  return out;
}

void Batcher::Step() {
  // A client that hung up ends here, before its sequence costs another token.
  for (auto& s : running_) {
    if (s->job->cancelled()) Finish(*s, "abort");
  }
  std::vector<vt::BatchEntry> batch;
  std::vector<Sequence*> in_batch;
  int budget = max_batched_tokens_;
  // Decodes first, one token each (as vLLM schedules them); the rest of the budget goes to
  // prompt chunks in arrival order.
  for (int pass = 0; pass < 2; ++pass) {
    for (auto& s : running_) {
      if (s->done || budget <= 0 || s->decoding() != (pass == 0)) continue;
      const std::vector<int32_t>& prompt = s->job->prompt;
      s->chunk = pass == 0 ? 0 : std::min(prompt.size() - s->prefilled, static_cast<size_t>(budget));
      batch.push_back(vt::BatchEntry{pass == 0 ? std::vector<int32_t>{s->next}
                                               : std::vector<int32_t>(prompt.begin() + s->prefilled, prompt.begin() + s->prefilled + s->chunk),
                                     &slots_[s->slot]});
      budget -= pass == 0 ? 1 : static_cast<int>(s->chunk);
      in_batch.push_back(s.get());
    }
  }
  if (!batch.empty()) {
    std::vector<vt::StatusOr<std::vector<float>>> logits = Forward(batch);
    metrics_.Step(static_cast<int>(batch.size()), max_batched_tokens_ - budget);
    for (size_t i = 0; i < in_batch.size(); ++i) {
      Sequence& s = *in_batch[i];
      if (!logits[i].ok()) {
        Finish(s, "error", logits[i].status().message());
        continue;
      }
      s.prefilled += s.chunk;
      if (s.decoding()) Accept(s, logits[i].value());  // mid-prompt chunks choose no token
    }
  }
  int64_t filled = 0, all = 0;
  for (auto& s : running_) {
    if (s->done) slot_used_[s->slot] = false;
  }
  running_.erase(std::remove_if(running_.begin(), running_.end(), [](const auto& s) { return s->done; }), running_.end());
  for (const vt::KvCache& c : slots_) all += c.n_ctx;
  for (auto& s : running_) filled += slots_[s->slot].n_past;
  kv_usage_ = all > 0 ? static_cast<double>(filled) / static_cast<double>(all) : 0.0;
}

}  // namespace vtserve
