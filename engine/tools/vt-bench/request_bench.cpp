#include "request_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "vt/serve/executor.h"

namespace vtbench {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One request alone through the serving core (vt/serve/), as vt-serve runs a request: a pool
// of blocks for its prompt and output, its prompt in one chunk, then a token per step.
vt::StatusOr<RequestTiming> RunOne(vt::Model& model, const Request& r, const vt::SamplingParams& base, const std::vector<int32_t>& eog,
                                   vt::DType kv_dtype) {
  vt::SamplingParams p = base;
  p.max_tokens = r.output_len;
  auto sampler = vt::Sampler::Create(p);
  if (!sampler.ok()) return sampler.status();
  constexpr int64_t kBlock = 16;
  const int64_t blocks = (static_cast<int64_t>(r.prompt.size()) + r.output_len + kBlock) / kBlock;
  auto pool = model.NewKvPool(blocks, kBlock, kv_dtype);
  if (!pool.ok()) return pool.status();
  vt::serve::KvCacheManager kv(static_cast<int32_t>(blocks), kBlock, /*prefix_caching=*/false);
  vt::serve::Scheduler scheduler({1, std::max<int64_t>(1, static_cast<int64_t>(r.prompt.size()))}, kv);
  vt::serve::ModelExecutor executor(model, std::move(pool).value());
  RequestTiming t;
  t.input_tokens = static_cast<int>(r.prompt.size());
  auto request = std::make_unique<vt::serve::Request>();
  request->tokens = r.prompt;
  request->num_prompt = r.prompt.size();
  request->max_tokens = r.output_len;
  for (int32_t id : r.prompt) sampler->Accept(id);
  request->sampler = std::move(sampler).value();
  auto start = Clock::now(), last = start;
  request->on_token = [&](int32_t id) {
    auto now = Clock::now();
    if (t.output_tokens++ == 0) t.ttft_s = std::chrono::duration<double>(now - start).count();
    else t.itl_s.push_back(std::chrono::duration<double>(now - last).count());
    last = now;
    return p.ignore_eos || std::find(eog.begin(), eog.end(), id) == eog.end();
  };
  VT_RETURN_IF_ERROR(scheduler.Add(std::move(request)));
  while (!scheduler.empty()) {
    vt::serve::Plan plan = scheduler.Schedule();
    for (const vt::serve::Finished& f : scheduler.Update(plan, executor.Execute(plan))) {
      if (f.reason == "error") return vt::Status(vt::StatusCode::kInternal, f.error);
    }
  }
  t.e2el_s = Since(start);
  return t;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double rank = p / 100 * static_cast<double>(v.size() - 1);  // linear interpolation, as numpy
  size_t lo = static_cast<size_t>(std::floor(rank)), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

void AddStats(const std::string& name, const std::vector<double>& seconds, const std::vector<double>& percentiles,
              std::vector<std::pair<std::string, double>>* out) {
  std::vector<double> ms;
  for (double s : seconds) ms.push_back(s * 1000);
  double mean = 0, var = 0;
  for (double x : ms) mean += x / static_cast<double>(ms.size());
  for (double x : ms) var += (x - mean) * (x - mean) / static_cast<double>(ms.size());  // numpy's std: population
  out->emplace_back("mean_" + name + "_ms", ms.empty() ? 0 : mean);
  out->emplace_back("median_" + name + "_ms", Percentile(ms, 50));
  out->emplace_back("std_" + name + "_ms", std::sqrt(var));
  for (double p : percentiles) {
    std::ostringstream label;
    label << "p" << p << "_" << name << "_ms";
    out->emplace_back(label.str(), Percentile(ms, p));
  }
}

}  // namespace

vt::StatusOr<std::vector<RequestTiming>> RunRequests(vt::Model& model, const Dataset& dataset,
                                                     const vt::SamplingParams& sampling, const std::vector<int32_t>& eog,
                                                     vt::DType kv_dtype, double* duration_s) {
  std::vector<RequestTiming> out;
  auto start = Clock::now();
  for (const Request& r : dataset.requests) {
    auto t = RunOne(model, r, sampling, eog, kv_dtype);
    if (!t.ok()) return t.status();
    out.push_back(t.value());
  }
  *duration_s = Since(start);
  return out;
}

std::vector<std::pair<std::string, double>> Summarize(const std::vector<RequestTiming>& timings, double duration_s,
                                                      const std::string& percentile_metrics, const std::string& metric_percentiles) {
  double input = 0, output = 0;
  std::vector<double> ttft, tpot, itl, e2el, percentiles;
  for (const RequestTiming& t : timings) {
    input += t.input_tokens;
    output += t.output_tokens;
    ttft.push_back(t.ttft_s);
    e2el.push_back(t.e2el_s);
    if (t.output_tokens > 1) tpot.push_back((t.e2el_s - t.ttft_s) / (t.output_tokens - 1));
    itl.insert(itl.end(), t.itl_s.begin(), t.itl_s.end());
  }
  std::stringstream ps(metric_percentiles);
  for (std::string p; std::getline(ps, p, ',');) percentiles.push_back(std::strtod(p.c_str(), nullptr));
  double n = static_cast<double>(timings.size());
  std::vector<std::pair<std::string, double>> out = {
      {"completed", n}, {"total_input_tokens", input}, {"total_output_tokens", output}, {"duration", duration_s},
      {"request_throughput", n / duration_s}, {"output_throughput", output / duration_s},
      {"total_token_throughput", (input + output) / duration_s}};
  std::stringstream ms(percentile_metrics);
  for (std::string m; std::getline(ms, m, ',');) {
    const std::vector<double>* v = m == "ttft" ? &ttft : m == "tpot" ? &tpot : m == "itl" ? &itl : m == "e2el" ? &e2el : nullptr;
    if (v) AddStats(m, *v, percentiles, &out);
  }
  return out;
}

}  // namespace vtbench
