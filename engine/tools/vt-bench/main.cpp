// vt-bench: llama-bench's prompt-processing (pp) and token-generation (tg) measurements, with
// vLLM's flag names for the settings that change what is measured (specs/vt-bench.md).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "bench_options.h"
#include "device_flag.h"
#include "model_loader.h"
#include "request_bench.h"
#include "server_bench.h"
#include "vt/backend.h"
#include "vt/cpu_kernels.h"
#include "vt/model.h"
#include "vt/sampling.h"
#include "vt/tokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;
using vtbench::BenchOptions;

struct Result {
  std::string test;
  int n_prompt = 0, n_gen = 0;
  std::vector<double> tokens_per_s;
  double Mean() const {
    double s = 0;
    for (double x : tokens_per_s) s += x;
    return tokens_per_s.empty() ? 0 : s / static_cast<double>(tokens_per_s.size());
  }
  double Sd() const {
    if (tokens_per_s.size() < 2) return 0;
    double m = Mean(), s = 0;
    for (double x : tokens_per_s) s += (x - m) * (x - m);
    return std::sqrt(s / static_cast<double>(tokens_per_s.size() - 1));
  }
};

int Fail(const std::string& message, int code) {
  std::cerr << "vt-bench: " << message << "\n";
  return code;
}

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

// pp N: N random tokens in one batch on an empty cache.
vt::StatusOr<double> PromptRate(vt::Model& model, int n, int rep, vt::DType kv) {
  std::mt19937 rng(1234 + rep);
  std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(model.hparams().n_vocab - 1));
  std::vector<int32_t> tokens(static_cast<size_t>(n));
  for (int32_t& t : tokens) t = pick(rng);
  auto cache = model.NewCache(n, kv);
  if (!cache.ok()) return cache.status();
  auto start = Clock::now();
  VT_RETURN_IF_ERROR(model.Forward(tokens, cache.value()).status());
  return n / Seconds(start);
}

// tg N: after one prompt token, N tokens one at a time (greedy); EOS ends it early unless the
// resolved SamplingParams say ignore_eos.
vt::StatusOr<double> GenerateRate(vt::Model& model, const vt::SamplingParams& p, int32_t bos, const std::vector<int32_t>& eog,
                                  vt::DType kv) {
  auto cache = model.NewCache(p.max_tokens + 1, kv);
  auto sampler = vt::Sampler::Create(p);
  if (!cache.ok() || !sampler.ok()) return cache.ok() ? sampler.status() : cache.status();
  auto logits = model.Forward({bos >= 0 ? bos : 0}, cache.value());
  int made = 0;
  auto start = Clock::now();
  while (logits.ok() && made < p.max_tokens) {
    int32_t next = sampler->Sample(logits.value());
    if (!p.ignore_eos && std::find(eog.begin(), eog.end(), next) != eog.end()) break;
    logits = model.Forward({next}, cache.value());
    ++made;
  }
  if (!logits.ok()) return logits.status();
  return made / Seconds(start);
}

// A CSV field as RFC 4180 writes it: quoted, its quotes doubled, where it holds a comma, a
// quote or a line break (a setting's reason in parentheses often has a comma).
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void Print(const BenchOptions& o, const std::vector<Result>& results, const std::vector<vtbench::Setting>& settings, int threads) {
  if (o.output == "json") {
    nlohmann::json doc = {{"model", o.model}, {"threads", threads}, {"results", nlohmann::json::array()}, {"settings", nlohmann::json::array()}};
    for (const Result& r : results) {
      doc["results"].push_back({{"test", r.test}, {"n_prompt", r.n_prompt}, {"n_gen", r.n_gen}, {"avg_ts", r.Mean()},
                                {"stddev_ts", r.Sd()}, {"samples_ts", r.tokens_per_s}});
    }
    for (const auto& s : settings) doc["settings"].push_back({{"name", s.name}, {"requested", s.requested}, {"resolved", s.resolved}});
    std::cout << doc.dump(2) << "\n";
    return;
  }
  if (o.output == "csv") {
    std::cout << "model,threads,test,n_prompt,n_gen,avg_ts,stddev_ts";
    for (const auto& st : settings) std::cout << "," << CsvField(st.name);
    std::cout << "\n";
    for (const Result& r : results) {
      std::cout << CsvField(o.model) << "," << threads << "," << r.test << "," << r.n_prompt << "," << r.n_gen << "," << r.Mean() << "," << r.Sd();
      for (const auto& st : settings) std::cout << "," << CsvField(st.resolved);
      std::cout << "\n";
    }
    return;
  }
  std::cout << "| model | threads | test | t/s |\n| --- | ---: | ---: | ---: |\n";
  for (const Result& r : results) {
    std::printf("| %s | %d | %s | %.2f ± %.2f |\n", o.model.c_str(), threads, r.test.c_str(), r.Mean(), r.Sd());
  }
  std::cout << "\n| setting | requested | resolved |\n| --- | --- | --- |\n";
  for (const auto& s : settings) std::cout << "| " << s.name << " | " << s.requested << " | " << s.resolved << " |\n";
}

void PrintRequests(const BenchOptions& o, const std::vector<std::pair<std::string, double>>& metrics,
                   const std::vector<vtbench::Setting>& settings) {
  if (o.output == "json") {
    nlohmann::ordered_json doc = {{"model", o.model}};
    for (const auto& [name, value] : metrics) {
      bool count = name == "completed" || (name.rfind("total_", 0) == 0 && name.find("throughput") == std::string::npos);
      doc[name] = count ? nlohmann::ordered_json(static_cast<int64_t>(value)) : nlohmann::ordered_json(value);
    }
    doc["settings"] = nlohmann::json::array();
    for (const auto& s : settings) doc["settings"].push_back({{"name", s.name}, {"requested", s.requested}, {"resolved", s.resolved}});
    std::cout << doc.dump(2) << "\n";
    return;
  }
  if (o.output == "csv") {
    std::cout << "metric,value\n";
    for (const auto& [name, value] : metrics) std::cout << name << "," << value << "\n";
    for (const auto& st : settings) std::cout << CsvField("setting." + st.name) << "," << CsvField(st.resolved) << "\n";
    return;
  }
  std::cout << "| metric | value |\n| --- | ---: |\n";
  for (const auto& [name, value] : metrics) std::printf("| %s | %.3f |\n", name.c_str(), value);
  std::cout << "\n| setting | requested | resolved |\n| --- | --- | --- |\n";
  for (const auto& s : settings) std::cout << "| " << s.name << " | " << s.requested << " | " << s.resolved << " |\n";
}

// What every mode generates with: greedy, EOS as --[no-]ignore-eos says.
vt::SamplingParams Used(const BenchOptions& o) {
  vt::SamplingParams used;
  used.temperature = 0;
  used.ignore_eos = o.ignore_eos.value_or(vtbench::kDefaultIgnoreEos);
  return used;
}

// Server mode: the dataset goes to --base-url; only the tokenizer and vocabulary are read here.
int RunServerMode(const BenchOptions& o, const vt::GgufFile& file) {
  auto hparams = vt::ReadHparams(file);
  if (!hparams.ok()) return Fail(o.model + ": " + hparams.status().message(), 2);
  auto tokenizer = vt::Tokenizer::FromGguf(file);
  if (o.TextPrompts() && !tokenizer.ok()) return Fail(o.model + ": " + tokenizer.status().message(), 2);
  const vt::GgufValue* tmpl = file.Find("tokenizer.chat_template");
  vt::Tokenizer none;
  auto dataset = vtbench::LoadDataset(o, tokenizer.ok() ? tokenizer.value() : none, tmpl && tmpl->AsString() ? *tmpl->AsString() : "",
                                      hparams->n_vocab);
  if (!dataset.ok()) return Fail(dataset.status().message(), dataset.status().code() == vt::StatusCode::kUnavailable ? 1 : 2);
  vt::SamplingParams used = Used(o);
  double duration = 0;
  const auto before = vtbench::ServerCounters(o);
  auto timings = vtbench::RunAgainstServer(o, dataset.value(), used, &duration);
  if (!timings.ok()) return Fail(timings.status().message(), timings.status().code() == vt::StatusCode::kInvalidArgument ? 2 : 1);
  auto summary = vtbench::Summarize(timings.value(), duration, o.percentile_metrics, o.metric_percentiles);
  // A server that counts its prefix cache and drafts (vt-serve, vLLM): this run's hit rate
  // and acceptance.
  vtbench::AddServerRates(before, vtbench::ServerCounters(o), &summary);
  PrintRequests(o, summary, vtbench::Settings(o, used, "server", dataset.value().rendered, dataset.value().enable_thinking));
  return 0;
}

// Request mode: the dataset's prompts one request at a time (specs/vt-bench.md).
int RunRequestMode(const BenchOptions& o, const vt::GgufFile& file, vt::Model& model, const vt::StatusOr<vt::Tokenizer>& tokenizer,
                   const vt::SamplingParams& used, const std::string& device) {
  if (o.TextPrompts() && !tokenizer.ok()) return Fail(o.model + ": " + tokenizer.status().message(), 2);
  const vt::GgufValue* tmpl = file.Find("tokenizer.chat_template");
  vt::Tokenizer none;
  auto dataset = vtbench::LoadDataset(o, tokenizer.ok() ? tokenizer.value() : none, tmpl && tmpl->AsString() ? *tmpl->AsString() : "",
                                      model.hparams().n_vocab);
  if (!dataset.ok()) return Fail(dataset.status().message(), dataset.status().code() == vt::StatusCode::kUnavailable ? 1 : 2);
  double duration = 0;
  auto timings = vtbench::RunRequests(model, dataset.value(), used, tokenizer.ok() ? tokenizer->eog() : std::vector<int32_t>{}, o.kv_dtype,
                                     &duration);
  if (!timings.ok()) return Fail(timings.status().message(), 1);
  auto settings = vtbench::Settings(o, used, device, dataset.value().rendered, dataset.value().enable_thinking);
  settings.push_back({"weights", "", vttools::WeightMix(file)});
  PrintRequests(o, vtbench::Summarize(timings.value(), duration, o.percentile_metrics, o.metric_percentiles), settings);
  return 0;
}

int Run(BenchOptions o) {
  if (o.threads > 0) setenv("VT_THREADS", std::to_string(o.threads).c_str(), 1);  // before the CPU backend starts
  if (const char* pre = std::getenv("VT_BENCH_PRETOKENIZE"); pre && *pre && o.pretokenized.empty()) o.pretokenized = pre;
  auto file = vt::GgufFile::Open(o.model);
  if (!file.ok()) return Fail(file.status().message(), 2);
  auto shared = std::make_shared<const vt::GgufFile>(std::move(file).value());
  vt::Status combos = vtbench::CheckCombinations(o, shared->Find("tokenizer.chat_template") != nullptr);
  if (!combos.ok()) return Fail(combos.message(), 2);
  auto kv = vt::ParseKvCacheDtype(o.kv_cache_dtype, "--kv-cache-dtype");
  if (!kv.ok()) return Fail(kv.status().message(), 2);
  o.kv_dtype = kv.value();
  if (!o.base_url.empty()) return RunServerMode(o, *shared);
  if (o.RequestMode()) vt::KeepBatchInvariantKernels();  // the serving loop, with vt-serve's kernels (specs/amx.md)
  std::unique_ptr<vt::Backend> opened;
  auto device = vttools::OpenDevice(o.device, opened);
  if (!device.ok()) return Fail(device.status().message(), 2);
  auto placement = vt::PlacementQueue::Create(*vt::GetBackend(vt::DeviceType::kCPU));
  auto model = vt::Model::Load(shared, vt::Engine{vt::MakeQueue(*device.value())}, o.moe_on.empty() ? nullptr : &placement.value());
  if (!model.ok()) return Fail(o.model + ": " + model.status().message(), 2);
  if (vt::Status kv = vttools::CheckKvCacheDtype(*model.value(), *device.value(), o.kv_dtype, "--kv-cache-dtype"); !kv.ok()) return Fail(kv.message(), 2);
  std::string device_name = device.value()->name();
  auto tokenizer = vt::Tokenizer::FromGguf(*shared);
  const int32_t bos = tokenizer.ok() ? tokenizer->bos() : -1;
  const std::vector<int32_t> eog = tokenizer.ok() ? tokenizer->eog() : std::vector<int32_t>{};
  vt::SamplingParams used = Used(o);
  if (o.RequestMode()) return RunRequestMode(o, *shared, *model.value(), tokenizer, used, device_name);
  std::vector<Result> results;
  for (int n : o.n_prompt) {
    Result r{"pp" + std::to_string(n), n, 0, {}};
    if (!PromptRate(*model.value(), n, -1, o.kv_dtype).ok()) return Fail("pp" + std::to_string(n) + " failed", 1);  // warm-up, as llama-bench
    for (int rep = 0; rep < o.repetitions; ++rep) {
      auto rate = PromptRate(*model.value(), n, rep, o.kv_dtype);
      if (!rate.ok()) return Fail(rate.status().message(), 1);
      r.tokens_per_s.push_back(rate.value());
    }
    results.push_back(r);
  }
  for (int n : o.n_gen) {
    Result r{"tg" + std::to_string(n), 0, n, {}};
    used.max_tokens = n;
    if (!GenerateRate(*model.value(), used, bos, eog, o.kv_dtype).ok()) return Fail("tg" + std::to_string(n) + " failed", 1);  // warm-up
    for (int rep = 0; rep < o.repetitions; ++rep) {
      auto rate = GenerateRate(*model.value(), used, bos, eog, o.kv_dtype);
      if (!rate.ok()) return Fail(rate.status().message(), 1);
      r.tokens_per_s.push_back(rate.value());
    }
    results.push_back(r);
  }
  int threads = vt::CpuThreads();
  auto settings = vtbench::Settings(o, used, device_name, /*rendered=*/false);
  settings.push_back({"weights", "", vttools::WeightMix(*shared)});
  Print(o, results, settings, threads);
  return 0;
}

}  // namespace

// vLLM's `bench` names for the request mode.
void AddRequestOptions(CLI::App& app, BenchOptions& o) {
  app.add_option("--dataset-name", o.dataset_name, "Request mode: custom (--dataset-path) or random prompts")
      ->check(CLI::IsMember({"custom", "random"}));
  app.add_option("--dataset-path", o.dataset_path, "JSON lines with a \"prompt\" (request mode, custom)");
  app.add_option("--num-prompts", o.num_prompts, "Requests to run (default 100)")->check(CLI::Range(1, 1000000));
  app.add_option("--random-input-len", o.random_input_len, "Prompt tokens of random requests (default 1024)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--random-prefix-len", o.random_prefix_len, "Tokens every random prompt shares before its own (default 0)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--random-output-len", o.random_output_len, "Output tokens of random requests (default 128)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--custom-output-len", o.custom_output_len, "Output tokens of custom/pretokenized requests (default 256)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--seed", o.seed, "Seed of the random dataset");
  app.add_option("--percentile-metrics", o.percentile_metrics, "Metrics with percentiles: ttft,tpot,itl,e2el");
  app.add_option("--metric-percentiles", o.metric_percentiles, "Percentiles to report, e.g. 50,90,99");
  app.add_option("--base-url", o.base_url, "Send the requests to this OpenAI-compatible server (http://HOST:PORT)");
  app.add_option("--endpoint", o.endpoint, "With --base-url: /v1/completions (default) or /v1/chat/completions");
  app.add_option("--served-model-name", o.served_model_name, "With --base-url: the requests' model name");
  app.add_option("--max-concurrency", o.max_concurrency, "With --base-url: requests in flight at most")->check(CLI::Range(1, 1 << 20));
  app.add_option("--request-rate", o.request_rate, "With --base-url: Poisson arrivals per second (default inf)")
      ->check(CLI::PositiveNumber);
}

int main(int argc, char** argv) {
  CLI::App app{"vt-bench: prompt processing and generation speed of a GGUF model"};
  BenchOptions o;
  app.add_option("-m,--model", o.model, "GGUF model file")->required();
  app.add_option("-p,--n-prompt", o.n_prompt, "Prompt lengths to measure (pp), e.g. -p 128,512")->delimiter(',')->check(CLI::Range(1, 1 << 20));
  app.add_option("-n,--n-gen", o.n_gen, "Generation lengths to measure (tg)")->delimiter(',')->check(CLI::Range(0, 1 << 20));
  app.add_option("-r,--repetitions", o.repetitions, "Runs of each test (default 5)")->check(CLI::Range(1, 1000));
  app.add_option("-t,--threads", o.threads, "CPU threads (default: VT_THREADS or all)")->check(CLI::Range(1, 1024));
  app.add_option("--device", o.device, vttools::kDeviceHelp);
  app.add_option("--moe-on", o.moe_on, "Where MoE experts run when not on --device: cpu")->check(CLI::IsMember({"cpu"}));
  app.add_option("--kv-cache-dtype", o.kv_cache_dtype, "KV cache type: auto (f32), f32, f16, bf16 or q8_0");
  app.add_option("-o,--output", o.output, "md, json or csv")->check(CLI::IsMember({"md", "json", "csv"}));
  // Each setting as a yes/no pair; neither given leaves it unset (the default applies).
  auto pair = [&](const char* yes, const char* no, std::optional<bool>& into, const char* about) {
    auto* a = app.add_flag_callback(yes, [&into] { into = true; }, about);
    auto* b = app.add_flag_callback(no, [&into] { into = false; }, std::string("Not ") + yes);
    a->excludes(b);
  };
  pair("--ignore-eos", "--no-ignore-eos", o.ignore_eos, "Generate past EOS (default: on)");
  pair("--skip-chat-template", "--no-skip-chat-template", o.skip_chat_template, "Use prompts as they are (default: on)");
  pair("--enable-thinking", "--no-enable-thinking", o.enable_thinking, "Passed to the chat template");
  app.add_option("--chat-template", o.chat_template, "A chat template file instead of the model's");
  app.add_option("--pretokenized", o.pretokenized, "JSON lines of token ids as requests (also VT_BENCH_PRETOKENIZE)");
  AddRequestOptions(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (const char* flag : {"-p", "-n", "-r"}) o.pp_tg_flags = o.pp_tg_flags || app.get_option(flag)->count() > 0;
  for (const char* flag : {"--endpoint", "--served-model-name", "--max-concurrency", "--request-rate"}) {
    o.server_flags = o.server_flags || app.get_option(flag)->count() > 0;
  }
  for (const char* flag : {"-t", "--device", "--moe-on", "--kv-cache-dtype"}) o.local_flags = o.local_flags || app.get_option(flag)->count() > 0;
  // A server with no dataset named gets random prompts, as `vllm bench serve` does.
  if (!o.base_url.empty() && o.dataset_name.empty() && o.dataset_path.empty() && o.pretokenized.empty()) o.dataset_name = "random";
  for (const char* flag : {"--num-prompts", "--random-input-len", "--random-prefix-len", "--random-output-len", "--custom-output-len",
                           "--percentile-metrics", "--metric-percentiles", "--seed"}) {
    o.request_flags = o.request_flags || app.get_option(flag)->count() > 0;
  }
  o.n_gen.erase(std::remove(o.n_gen.begin(), o.n_gen.end(), 0), o.n_gen.end());  // -n 0: no tg test
  return Run(o);
}
