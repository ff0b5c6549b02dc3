#include "serve_metrics.h"

#include <cstdio>

namespace vtserve {
namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// vLLM's bucket bounds for these three histograms.
const std::vector<double> kTtft = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0};
const std::vector<double> kTpot = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5};
const std::vector<double> kE2e = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0};
const std::vector<double> kTokens = {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
const std::vector<double> kSequences = {1, 2, 4, 8, 16, 32, 64, 128, 256};

}  // namespace

void Histogram::Observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  ++counts_[i];
  sum_ += v;
  ++count_;
}

std::string Histogram::Text(const std::string& name, const std::string& help, const std::string& label) const {
  std::string out = "# HELP " + name + " " + help + "\n# TYPE " + name + " histogram\n";
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    std::string le = i < bounds_.size() ? Number(bounds_[i]) : "+Inf";
    out += name + "_bucket{" + label + ",le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
  }
  return out + name + "_sum{" + label + "} " + Number(sum_) + "\n" + name + "_count{" + label + "} " + std::to_string(count_) + "\n";
}

ServeMetrics::ServeMetrics()
    : ttft_(kTtft), tpot_(kTpot), e2e_(kE2e), iteration_tokens_(kTokens), batch_sequences_(kSequences) {}

void ServeMetrics::Step(int sequences, int tokens) {
  std::lock_guard<std::mutex> lock(mutex_);
  iteration_tokens_.Observe(tokens);
  batch_sequences_.Observe(sequences);
}

void ServeMetrics::SetCacheCounters(uint64_t queries, uint64_t hits, uint64_t preemptions) {
  std::lock_guard<std::mutex> lock(mutex_);
  prefix_queries_ = queries, prefix_hits_ = hits, preemptions_ = preemptions;
}

void ServeMetrics::SetSpecCounters(uint64_t drafts, uint64_t draft_tokens, uint64_t accepted_tokens) {
  std::lock_guard<std::mutex> lock(mutex_);
  spec_drafts_ = drafts, spec_draft_tokens_ = draft_tokens, spec_accepted_tokens_ = accepted_tokens;
}

void ServeMetrics::SetQueue(int running, int waiting, double kv_usage) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_ = running, waiting_ = waiting, kv_usage_ = kv_usage;
}

void ServeMetrics::Finished(int64_t prompt_tokens, int64_t generated, const std::string& reason, double ttft_s, double e2e_s) {
  std::lock_guard<std::mutex> lock(mutex_);
  prompt_tokens_ += static_cast<uint64_t>(prompt_tokens);
  generation_tokens_ += static_cast<uint64_t>(generated);
  ++finished_[reason];
  if (generated > 0) ttft_.Observe(ttft_s);
  if (generated > 1) tpot_.Observe((e2e_s - ttft_s) / static_cast<double>(generated - 1));
  e2e_.Observe(e2e_s);
}

std::string ServeMetrics::Text(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string label = "model_name=\"" + model + "\"";
  auto gauge = [&](const std::string& name, const std::string& help, double v) {
    return "# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + "{" + label + "} " + Number(v) + "\n";
  };
  auto counter = [&](const std::string& name, const std::string& help, uint64_t v) {
    return "# HELP " + name + " " + help + "\n# TYPE " + name + " counter\n" + name + "{" + label + "} " + std::to_string(v) + "\n";
  };
  std::string out = gauge("vllm:num_requests_running", "Requests running now.", running_) +
                    gauge("vllm:num_requests_waiting", "Requests waiting in the queue.", waiting_) +
                    gauge("vllm:kv_cache_usage_perc", "Share of the KV cache in use (1 = full).", kv_usage_) +
                    counter("vllm:prompt_tokens_total", "Prompt tokens processed.", prompt_tokens_) +
                    counter("vllm:generation_tokens_total", "Tokens generated.", generation_tokens_) +
                    counter("vllm:prefix_cache_queries_total", "Prompt tokens looked up in the prefix cache.", prefix_queries_) +
                    counter("vllm:prefix_cache_hits_total", "Prompt tokens found in the prefix cache.", prefix_hits_) +
                    counter("vllm:num_preemptions_total", "Requests preempted for KV blocks (recomputed later).", preemptions_) +
                    counter("vllm:spec_decode_num_drafts_total", "Drafts verified (speculative decoding).", spec_drafts_) +
                    counter("vllm:spec_decode_num_draft_tokens_total", "Drafted tokens verified.", spec_draft_tokens_) +
                    counter("vllm:spec_decode_num_accepted_tokens_total", "Drafted tokens the target kept.", spec_accepted_tokens_);
  out += "# HELP vllm:request_success_total Finished requests, by finish reason.\n# TYPE vllm:request_success_total counter\n";
  for (const auto& [reason, n] : finished_) {
    out += "vllm:request_success_total{" + label + ",finished_reason=\"" + reason + "\"} " + std::to_string(n) + "\n";
  }
  return out + ttft_.Text("vllm:time_to_first_token_seconds", "Time to first token.", label) +
         tpot_.Text("vllm:time_per_output_token_seconds", "Time per output token after the first.", label) +
         e2e_.Text("vllm:e2e_request_latency_seconds", "Request latency from arrival to the last token.", label) +
         iteration_tokens_.Text("vllm:iteration_tokens_total", "Tokens per engine step.", label) +
         batch_sequences_.Text("vt:batch_sequences", "Sequences per engine step (one forward pass).", label);
}

}  // namespace vtserve
