#include "server_bench.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

namespace vtbench {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

struct Url {
  std::string host;
  int port = 80;
};

vt::StatusOr<Url> ParseUrl(const std::string& base) {
  const std::string scheme = "http://";
  if (base.rfind(scheme, 0) != 0) return vt::Status(vt::StatusCode::kInvalidArgument, "--base-url " + base + ": expected http://HOST[:PORT]");
  std::string rest = base.substr(scheme.size());
  rest = rest.substr(0, rest.find('/'));
  Url u;
  size_t colon = rest.rfind(':');
  u.host = rest.substr(0, colon);
  if (colon != std::string::npos) u.port = std::atoi(rest.c_str() + colon + 1);
  if (u.host.empty() || u.port <= 0 || u.port > 65535) {
    return vt::Status(vt::StatusCode::kInvalidArgument, "--base-url " + base + ": expected http://HOST[:PORT]");
  }
  return u;
}

Json Body(const BenchOptions& o, const Request& r, const vt::SamplingParams& sampling) {
  Json j = {{"max_tokens", r.output_len}, {"temperature", 0}, {"ignore_eos", sampling.ignore_eos}, {"stream", true},
            {"stream_options", {{"include_usage", true}}}};
  if (!o.served_model_name.empty()) j["model"] = o.served_model_name;
  if (o.endpoint == "/v1/chat/completions") {
    j["messages"] = Json::array({{{"role", "user"}, {"content", r.text}}});
  } else {
    j["prompt"] = r.prompt;
  }
  return j;
}

// Reads SSE events as they arrive: the time of each chunk with text, the usage, [DONE].
class StreamTimer {
 public:
  explicit StreamTimer(Clock::time_point start) : start_(start), last_(start) {}
  bool Feed(const char* data, size_t n) {
    raw_.append(data, n);
    for (size_t end; (end = raw_.find("\n\n", parsed_)) != std::string::npos; parsed_ = end + 2) Event(raw_.substr(parsed_, end - parsed_));
    return true;
  }
  RequestTiming Timing(int input_tokens) {
    t_.input_tokens = input_tokens;
    t_.output_tokens = usage_ >= 0 ? usage_ : chunks_;
    t_.e2el_s = std::chrono::duration<double>(Clock::now() - start_).count();
    return t_;
  }
  const std::string& raw() const { return raw_; }

 private:
  void Event(const std::string& e) {
    if (e.rfind("data: ", 0) != 0 || e == "data: [DONE]") return;
    Json j = Json::parse(e.substr(6), nullptr, false);
    if (!j.is_object()) return;
    if (j.contains("usage") && j["usage"].is_object() && j["usage"].value("completion_tokens", -1) >= 0) {
      usage_ = j["usage"]["completion_tokens"].get<int>();
    }
    const Json* choices = j.contains("choices") && j["choices"].is_array() && !j["choices"].empty() ? &j["choices"][0] : nullptr;
    if (!choices) return;
    const Json& c = *choices;
    std::string text = c.contains("text") && c["text"].is_string() ? c["text"].get<std::string>()
                       : c.contains("delta") && c["delta"].is_object() && c["delta"].contains("content") && c["delta"]["content"].is_string()
                           ? c["delta"]["content"].get<std::string>()
                           : "";
    if (text.empty()) return;
    auto now = Clock::now();
    if (chunks_++ == 0) t_.ttft_s = std::chrono::duration<double>(now - start_).count();
    else t_.itl_s.push_back(std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

  Clock::time_point start_, last_;
  std::string raw_;
  size_t parsed_ = 0;
  int chunks_ = 0, usage_ = -1;
  RequestTiming t_;
};

vt::StatusOr<RequestTiming> SendOne(const BenchOptions& o, const Url& url, const Request& r, const vt::SamplingParams& sampling) {
  httplib::Client client(url.host, url.port);
  client.set_read_timeout(3600, 0);
  httplib::Request req;
  req.method = "POST";
  req.path = o.endpoint;
  req.headers = {{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}};
  req.body = Body(o, r, sampling).dump();
  StreamTimer timer(Clock::now());
  req.content_receiver = [&timer](const char* data, size_t n, uint64_t, uint64_t) { return timer.Feed(data, n); };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  if (!client.send(req, res, error)) {
    return vt::Status(vt::StatusCode::kUnavailable, o.base_url + o.endpoint + ": " + httplib::to_string(error));
  }
  if (res.status != 200) {
    return vt::Status(vt::StatusCode::kUnavailable, o.base_url + o.endpoint + ": HTTP " + std::to_string(res.status) + ": " +
                                                        timer.raw().substr(0, 300));
  }
  return timer.Timing(static_cast<int>(r.prompt.size()));
}

// When each request may start: all at once for an infinite rate, else Poisson arrivals
// (exponential gaps with mean 1/rate), seeded as vLLM's are.
std::vector<double> Arrivals(size_t n, double rate, uint64_t seed) {
  std::vector<double> at(n, 0.0);
  if (!std::isfinite(rate)) return at;
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rate);
  for (size_t i = 1; i < n; ++i) at[i] = at[i - 1] + gap(rng);
  return at;
}

}  // namespace

vt::StatusOr<std::vector<RequestTiming>> RunAgainstServer(const BenchOptions& o, const Dataset& dataset,
                                                          const vt::SamplingParams& sampling, double* duration_s) {
  auto url = ParseUrl(o.base_url);
  if (!url.ok()) return url.status();
  size_t n = dataset.requests.size();
  std::vector<double> arrivals = Arrivals(n, o.request_rate, o.seed);
  std::vector<vt::StatusOr<RequestTiming>> results(n, vt::Status(vt::StatusCode::kInternal, "not run"));
  std::atomic<size_t> next{0};
  auto start = Clock::now();
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(arrivals[i])));
      results[i] = SendOne(o, url.value(), dataset.requests[i], sampling);
    }
  };
  size_t in_flight = o.max_concurrency > 0 ? std::min(n, static_cast<size_t>(o.max_concurrency)) : n;
  std::vector<std::thread> workers;
  for (size_t w = 0; w < in_flight; ++w) workers.emplace_back(worker);
  for (std::thread& t : workers) t.join();
  *duration_s = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<RequestTiming> out;
  for (auto& r : results) {
    if (!r.ok()) return r.status();
    out.push_back(r.value());
  }
  return out;
}

std::map<std::string, double> ServerCounters(const BenchOptions& o) {
  std::map<std::string, double> out;
  auto url = ParseUrl(o.base_url);
  if (!url.ok()) return out;
  httplib::Client client(url->host, url->port);
  auto res = client.Get("/metrics");
  if (!res || res->status != 200) return out;
  // "name{labels} value" lines of Prometheus text; the first series of each name.
  auto value = [&](const std::string& name) -> std::optional<double> {
    size_t at = res->body.find("\n" + name + "{");
    if (at == std::string::npos) return std::nullopt;
    size_t space = res->body.find("} ", at);
    if (space == std::string::npos) return std::nullopt;
    return std::atof(res->body.c_str() + space + 2);
  };
  for (const char* name : {"vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:spec_decode_num_drafts_total",
                           "vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_accepted_tokens_total"}) {
    if (auto v = value(name)) out[name] = *v;
  }
  return out;
}

void AddServerRates(const std::map<std::string, double>& before, const std::map<std::string, double>& after,
                    std::vector<std::pair<std::string, double>>* summary) {
  auto grew = [&](const std::string& name) {
    auto a = after.find(name), b = before.find(name);
    return a != after.end() && b != before.end() ? a->second - b->second : 0.0;
  };
  if (const double queries = grew("vllm:prefix_cache_queries_total"); queries > 0) {
    summary->push_back({"prefix_cache_hit_rate", grew("vllm:prefix_cache_hits_total") / queries});
  }
  if (const double drafted = grew("vllm:spec_decode_num_draft_tokens_total"); drafted > 0) {
    const double kept = grew("vllm:spec_decode_num_accepted_tokens_total"), drafts = grew("vllm:spec_decode_num_drafts_total");
    summary->push_back({"spec_decode_acceptance_rate", kept / drafted});
    // vLLM's "acceptance length": tokens a verifying step yields, the kept drafts and one more.
    if (drafts > 0) summary->push_back({"spec_decode_acceptance_length", 1 + kept / drafts});
  }
}

}  // namespace vtbench
