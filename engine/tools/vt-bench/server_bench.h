// The request mode against an OpenAI-compatible server (vt-serve, llama-server, vLLM), as
// `vllm bench serve` runs it: streamed requests, arrivals at a rate, at most N in flight.
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "bench_options.h"
#include "dataset.h"
#include "request_bench.h"

namespace vtbench {

// kInvalidArgument for a --base-url that is not http://HOST[:PORT]; kUnavailable naming the
// URL for a refused connection or a non-200 answer.
vt::StatusOr<std::vector<RequestTiming>> RunAgainstServer(const BenchOptions& o, const Dataset& dataset,
                                                          const vt::SamplingParams& sampling, double* duration_s);

// The server's /metrics counters vt-bench reads (prefix cache, speculative decoding), by name;
// those it does not serve are absent.
std::map<std::string, double> ServerCounters(const BenchOptions& o);
// The rates a run moved them by: prefix_cache_hit_rate (hits per prompt token looked up),
// spec_decode_acceptance_rate (kept per drafted token) and spec_decode_acceptance_length.
void AddServerRates(const std::map<std::string, double>& before, const std::map<std::string, double>& after,
                    std::vector<std::pair<std::string, double>>* summary);

}  // namespace vtbench
