// Runs the request mode's requests one at a time through the serving core (vt/serve/, as
// vt-serve runs them) and summarises them as vLLM's benchmarks do:
// TTFT, TPOT, ITL and end-to-end latency, throughputs, and percentiles.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "dataset.h"
#include "vt/model.h"
#include "vt/sampling.h"

namespace vtbench {

struct RequestTiming {
  int input_tokens = 0, output_tokens = 0;
  double ttft_s = 0, e2el_s = 0;
  std::vector<double> itl_s;  // between consecutive output tokens
};

// Greedy unless `sampling` says otherwise; an end of generation (`eog`: the tokenizer's) ends
// a request early unless ignore_eos.
vt::StatusOr<std::vector<RequestTiming>> RunRequests(vt::Model& model, const Dataset& dataset,
                                                     const vt::SamplingParams& sampling, const std::vector<int32_t>& eog,
                                                     vt::DType kv_dtype, double* duration_s);

// vLLM's result names → values, in print order (ms for latencies).
std::vector<std::pair<std::string, double>> Summarize(const std::vector<RequestTiming>& timings, double duration_s,
                                                      const std::string& percentile_metrics, const std::string& metric_percentiles);

}  // namespace vtbench
