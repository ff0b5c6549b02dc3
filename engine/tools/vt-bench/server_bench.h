// The request mode against an OpenAI-compatible server (vt-serve, llama-server, vLLM), as
// `vllm bench serve` runs it: streamed requests, arrivals at a rate, at most N in flight.
#pragma once

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

// The server's vllm:prefix_cache_queries_total and vllm:prefix_cache_hits_total from its
// /metrics, or nothing when it has no such counters (llama-server) or does not answer.
std::optional<std::pair<double, double>> PrefixCacheCounters(const BenchOptions& o);

}  // namespace vtbench
