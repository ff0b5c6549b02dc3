// The server's counters and latency histograms, as Prometheus text with vLLM's metric names,
// so dashboards and `vllm bench`-style scrapers read vt-serve as they read vLLM.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace vtserve {

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}
  void Observe(double v);
  // `name_bucket{le="..."}` lines (cumulative), then `name_sum` and `name_count`.
  // Prometheus text: buckets, sum and count, each with `label` (name="value", ...).
  std::string Text(const std::string& name, const std::string& help, const std::string& label) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  double sum_ = 0;
  uint64_t count_ = 0;
};

class ServeMetrics {
 public:
  ServeMetrics();
  void SetQueue(int running, int waiting, double kv_usage);
  // A finished request: its token counts, why it ended, and its latencies in seconds
  // (tpot: mean time per output token after the first; nothing when it had one token).
  void Finished(int64_t prompt_tokens, int64_t generated, const std::string& reason, double ttft_s, double e2e_s);
  // One engine step: how many sequences ran together, and their tokens.
  void Step(int sequences, int tokens);
  // The KV cache's running totals: prefix-cache queries and hits (tokens), preemptions.
  void SetCacheCounters(uint64_t queries, uint64_t hits, uint64_t preemptions);
  // Speculative decoding's running totals: drafts verified, their tokens, the tokens kept.
  void SetSpecCounters(uint64_t drafts, uint64_t draft_tokens, uint64_t accepted_tokens);
  std::string Text(const std::string& model) const;

 private:
  mutable std::mutex mutex_;
  int running_ = 0, waiting_ = 0;
  double kv_usage_ = 0;
  uint64_t prompt_tokens_ = 0, generation_tokens_ = 0;
  uint64_t prefix_queries_ = 0, prefix_hits_ = 0, preemptions_ = 0;
  uint64_t spec_drafts_ = 0, spec_draft_tokens_ = 0, spec_accepted_tokens_ = 0;
  std::map<std::string, uint64_t> finished_;
  Histogram ttft_, tpot_, e2e_, iteration_tokens_, batch_sequences_;
};

}  // namespace vtserve
