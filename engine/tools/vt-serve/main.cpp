// vt-serve: an OpenAI-compatible HTTP server over a GGUF llama model (vLLM's flag names).
#include <signal.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

#include "device_flag.h"
#include "model_loader.h"
#include "http_server.h"
#include "speculative_config.h"
#include "vt/cpu_kernels.h"
#include "vt/jinja.h"

namespace {

struct Flags {
  std::string model, served_name, chat_template, device = "cpu", tool_call_parser, pooling;
  int64_t max_model_len = 0;
  int threads = 0;
  vtserve::HttpOptions http;
  int max_queued = 64, max_num_seqs = 8, max_num_batched_tokens = 2048;
  bool cpu_moe = false, no_warmup = false, prefix_caching = true;
  int64_t kv_cache_memory_bytes = 0, block_size = 16;
  std::string kv_cache_dtype = "auto";
  std::string speculative_config;
  bool speculative_given = false;  // --speculative-config on the command line (even empty: refused)
  double keep_alive_s = 5, request_read_s = 10;
};

// "1 block", "20 blocks".
std::string Count(int64_t n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

// Bytes as a person reads them: "160.0 KiB", "1.5 GiB".
std::string Size(int64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  for (; v >= 1024 && u < 4; ++u) v /= 1024;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return text;
}

int Fail(const std::string& message, int code) {
  std::cerr << "vt-serve: " << message << "\n";
  return code;
}

// SIGINT and SIGTERM are waited for on a thread of their own (nothing runs in a signal
// handler). The first stops listening and lets every accepted request finish (the drain);
// a second one cancels what is still running, so the drain ends at the next token. The
// waiting thread outlives Run: it reaches the server and engine only through `targets`,
// which Run empties (and whose drain it joins) before they are destroyed; a second signal
// after that finds nothing to cancel (it once found a destroyed engine: exit 134 or 139).
struct SignalTargets {
  std::mutex mutex;
  vtserve::HttpServer* server = nullptr;
  vtserve::ServeEngine* engine = nullptr;
  std::thread drain;
};

void StopOnSignal(std::shared_ptr<SignalTargets> targets, sigset_t set) {
  std::thread([targets, set] {
    int sig = 0;
    sigwait(&set, &sig);
    std::cerr << "vt-serve: " << (sig == SIGTERM ? "SIGTERM" : "SIGINT") << ": draining the requests in flight\n";
    {
      std::lock_guard<std::mutex> lock(targets->mutex);
      if (targets->server) targets->drain = std::thread([server = targets->server] { server->Drain(); });
    }
    sigwait(&set, &sig);
    std::lock_guard<std::mutex> lock(targets->mutex);
    if (!targets->engine) return;
    std::cerr << "vt-serve: a second signal: cancelling them\n";
    targets->engine->CancelAll();
  }).detach();
}

// --speculative-config's draft model: on the target's device, its vocabulary the target's.
vt::StatusOr<std::unique_ptr<vttools::LoadedModel>> LoadDraft(const std::string& path, const Flags& f, const vt::GgufFile& target) {
  auto draft = vttools::LoadModel(path, f.device, f.cpu_moe);
  if (!draft.ok()) return vt::Status(draft.status().code(), "--speculative-config model " + draft.status().message());
  auto ours = vt::Tokenizer::FromGguf(target);
  auto theirs = vt::Tokenizer::FromGguf(*draft.value()->file);
  if (!ours.ok() || !theirs.ok()) return vt::Status(vt::StatusCode::kInvalidArgument, "--speculative-config model " + path + ": " + (ours.ok() ? theirs : ours).status().message());
  if (vt::Status same = vt::CheckDraftVocabulary(ours.value(), theirs.value()); !same.ok()) {
    return vt::Status(same.code(), "--speculative-config model " + path + ": " + same.message());
  }
  return draft;
}

int Run(Flags f) {
  sigset_t stops;
  sigemptyset(&stops);
  sigaddset(&stops, SIGINT);
  sigaddset(&stops, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stops, nullptr);  // before any thread starts, so all inherit it
  if (f.threads > 0) setenv("VT_THREADS", std::to_string(f.threads).c_str(), 1);
  vt::KeepBatchInvariantKernels();  // continuous batching, speculation and preemption keep each request's tokens
  auto ms = [](double s) { return std::chrono::milliseconds(static_cast<int64_t>(s * 1000)); };
  f.http.timeouts.keep_alive = ms(f.keep_alive_s);
  f.http.timeouts.request_read = ms(f.request_read_s);
  if (f.max_num_batched_tokens < f.max_num_seqs) {
    return Fail("--max-num-batched-tokens " + std::to_string(f.max_num_batched_tokens) + " is below --max-num-seqs " +
                    std::to_string(f.max_num_seqs) + ": every running sequence needs a token each step",
                2);
  }
  auto kv_dtype = vt::ParseKvCacheDtype(f.kv_cache_dtype, "--kv-cache-dtype");
  if (!kv_dtype.ok()) return Fail(kv_dtype.status().message(), 2);
  vtserve::ServeOptions o{f.served_name.empty() ? f.model : f.served_name, f.max_model_len, f.max_queued, "",
                          f.max_num_seqs, f.max_num_batched_tokens, !f.no_warmup, f.kv_cache_memory_bytes, f.block_size, f.prefix_caching,
                          kv_dtype.value(), f.device == "cpu", {}, f.tool_call_parser, f.pooling};
  if (!f.chat_template.empty()) {
    std::ifstream in(f.chat_template, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return Fail("--chat-template " + f.chat_template + ": cannot read", 2);
    o.chat_template = text.str();
    // The user's file, wrong from the start: refused now, not as each chat request's 400.
    auto parsed = vt::jinja::Template::Parse(o.chat_template);
    if (!parsed.ok()) return Fail("--chat-template " + f.chat_template + ": " + parsed.status().message(), 2);
  }
  if (f.speculative_given) {
    auto spec = vtserve::ParseSpeculativeConfig(f.speculative_config);
    if (!spec.ok()) return Fail(spec.status().message(), 2);
    o.speculative = spec.value();
  }
  auto loaded = vttools::LoadModel(f.model, f.device, f.cpu_moe);
  if (!loaded.ok()) return Fail(loaded.status().message(), 2);
  if (vt::Status kv = vttools::CheckKvCacheDtype(*loaded.value()->model, *loaded.value()->device, o.kv_dtype, "--kv-cache-dtype"); !kv.ok()) {
    return Fail(kv.message(), 2);
  }
  std::unique_ptr<vttools::LoadedModel> draft;  // owns what the draft model points into
  if (o.speculative.method == vt::SpeculativeConfig::Method::kDraftModel) {
    auto d = LoadDraft(o.speculative.draft_model, f, *loaded.value()->file);
    if (!d.ok()) return Fail(d.status().message(), 2);
    draft = std::move(d).value();
    if (vt::Status kv = vttools::CheckKvCacheDtype(*draft->model, *draft->device, o.kv_dtype, "--kv-cache-dtype"); !kv.ok()) {
      return Fail(kv.message() + " (the draft model " + o.speculative.draft_model + ")", 2);
    }
  }
  const std::string held = vttools::HeldMix(*loaded.value()->model);  // before the engine takes the model
  auto engine = vtserve::ServeEngine::Start(loaded.value()->file, std::move(loaded.value()->model), o,
                                            draft ? std::move(draft->model) : nullptr);
  if (!engine.ok()) return Fail(f.model + ": " + engine.status().message(), 2);
  // The model's own template, broken: completions still serve, chat requests answer 400
  // naming it; said once now so the operator need not learn it from a client.
  if (const vt::GgufValue* key = loaded.value()->file->Find("tokenizer.chat_template"); f.chat_template.empty() && key && !key->AsString()) {
    std::cerr << "vt-serve: warning: the model's tokenizer.chat_template is not a string; chat requests will be refused "
                 "(start with --chat-template FILE)\n";
  }
  if (const std::string& own = engine.value()->options().chat_template; f.chat_template.empty() && !own.empty()) {
    if (auto parsed = vt::jinja::Template::Parse(own); !parsed.ok()) {
      std::cerr << "vt-serve: warning: the model's chat template (tokenizer.chat_template) does not parse: "
                << parsed.status().message() << "; chat requests will be refused (start with --chat-template FILE)\n";
    }
  }
  const vtserve::KvPoolInfo& kv = engine.value()->kv_pool();
  std::cerr << "vt-serve: KV cache: " << Count(kv.n_blocks, "block") << " of " << Count(kv.block_size, "position") << " ("
            << Size(kv.bytes) << ", " << vt::DTypeName(kv.dtype) << ", " << kv.bytes_per_position << " bytes per position"
            << (kv.draft_bytes_per_position > 0 ? ", " + std::to_string(kv.draft_bytes_per_position) + " of them the draft model's" : "") << "), "
            << Count(kv.n_blocks * kv.block_size, "position") << " in all; the longest context " << engine.value()->options().max_model_len
            << (kv.max_model_len_lowered ? " (lowered to fit: --kv-cache-memory-bytes)" : "") << "; prefix caching "
            << (f.prefix_caching ? "on" : "off") << "\n";
  if (f.device == "cpu") {
    const vt::CpuKernelsInfo k = vt::CpuKernels();
    std::cerr << "vt-serve: matmul kernels: " << k.resolved << (k.why.empty() ? "" : " (" + k.why + ")") << "\n";
  }
  std::cerr << "vt-serve: weights held as: " << held << "\n";
  if (o.speculative.enabled()) {
    std::cerr << "vt-serve: speculative decoding: "
              << (o.speculative.method == vt::SpeculativeConfig::Method::kNgram
                      ? "n-gram lookup (" + std::to_string(o.speculative.prompt_lookup_min) + " to " + std::to_string(o.speculative.prompt_lookup_max) + " tokens)"
                      : "draft model " + o.speculative.draft_model)
              << ", " << o.speculative.num_speculative_tokens << " tokens per step at most\n";
  }
  if (engine.value()->warmup_ms() >= 0) std::cerr << "vt-serve: warmed up in " << static_cast<int64_t>(engine.value()->warmup_ms()) << " ms\n";
  vtserve::HttpServer server(*engine.value(), f.http);
  auto port = server.Bind();
  if (!port.ok()) return Fail(port.status().message(), 1);
  auto targets = std::make_shared<SignalTargets>();
  targets->server = &server;
  targets->engine = engine.value().get();
  StopOnSignal(targets, stops);
  std::cerr << "vt-serve: serving " << o.served_name << " (max_model_len " << engine.value()->options().max_model_len
            << ") on " << loaded.value()->device->name() << "\n";
  std::cerr << "vt-serve: listening on http://" << f.http.host << ":" << port.value() << std::endl;
  const bool served = server.Serve();  // after the drain, every accepted request answered whole
  std::thread drain;
  {
    std::lock_guard<std::mutex> lock(targets->mutex);
    targets->server = nullptr;
    targets->engine = nullptr;
    drain = std::move(targets->drain);
  }
  if (drain.joinable()) drain.join();
  return served ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vt-serve: an OpenAI-compatible server for a GGUF model"};
  Flags f;
  app.add_option("-m,--model", f.model, "GGUF model file")->required();
  app.add_option("--host", f.http.host, "Address to listen on (default 127.0.0.1)");
  app.add_option("--port", f.http.port, "Port (default 8000; 0: any free port)")->check(CLI::Range(0, 65535));
  app.add_option("--served-model-name", f.served_name, "The model's name in requests (default: the --model path)");
  app.add_option("--max-model-len,--ctx", f.max_model_len, "Context length (default: the model's)")->check(CLI::Range(1, 1 << 24));
  app.add_option("--api-key", f.http.api_key, "Ask every /v1 request for Authorization: Bearer KEY");
  app.add_option("--chat-template", f.chat_template, "Chat template file (default: the model's)");
  app.add_option("--tool-call-parser", f.tool_call_parser,
                 "How the model writes tool calls: hermes, llama3_json or openai (gpt-oss's harmony) (default: told by the chat template)")
      ->check(CLI::IsMember({"hermes", "llama3_json", "openai"}));
  app.add_option("--pooling", f.pooling, "How /v1/embeddings pools the hidden states: mean, last or cls (default: the file's, else mean)")
      ->check(CLI::IsMember({"mean", "last", "cls"}));
  app.add_option("--max-num-seqs", f.max_num_seqs, "Sequences run together (default 8)")->check(CLI::Range(1, 4096));
  app.add_option("--max-num-batched-tokens", f.max_num_batched_tokens, "Tokens per step (default 2048)")->check(CLI::Range(1, 1 << 24));
  app.add_option("--max-queued-requests", f.max_queued, "Requests waiting at most; more get 503")->check(CLI::Range(0, 1 << 20));
  app.add_option("--max-body-bytes", f.http.max_body_bytes, "Largest request body; larger gets 413")->check(CLI::Range(1, 1 << 30));
  app.add_option("-t,--threads", f.threads, "CPU threads (default: VT_THREADS or all)")->check(CLI::Range(1, 1024));
  app.add_option("--device", f.device, vttools::kDeviceHelp);
  app.add_option("--kv-cache-memory-bytes", f.kv_cache_memory_bytes,
                 "KV cache size, e.g. 4GiB (default: --max-num-seqs full contexts, at most half the free memory)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 50));
  app.add_option("--kv-cache-dtype", f.kv_cache_dtype, "KV cache type: auto (f32), f32, f16, bf16 or q8_0");
  app.add_option("--speculative-config", f.speculative_config,
                 "Speculative decoding, vLLM's JSON: {\"method\": \"ngram\", \"num_speculative_tokens\": 4, \"prompt_lookup_max\": 5} "
                 "or {\"model\": \"draft.gguf\", \"num_speculative_tokens\": 4}");
  app.add_option("--block-size", f.block_size, "Positions per KV-cache block (default 16)")->check(CLI::Range(1, 4096));
  app.add_flag("--enable-prefix-caching,!--no-enable-prefix-caching", f.prefix_caching,
               "Reuse the KV blocks of prompts' shared prefixes (default on)");
  app.add_flag("--cpu-moe", f.cpu_moe, "Place MoE experts on the CPU (llama.cpp's --cpu-moe)");
  app.add_flag("--no-warmup", f.no_warmup, "Skip the warm-up run before listening (llama-server's flag)");
  app.add_option("--max-connections", f.http.max_connections, "Connections served at once, a thread each (1024); idle ones yield to new ones")
      ->check(CLI::Range(2, 1 << 16));
  app.add_option("--timeout-keep-alive", f.keep_alive_s, "Seconds an idle connection may wait to start its next request (5)")
      ->check(CLI::Range(0.01, 3600.0));
  app.add_option("--request-read-timeout", f.request_read_s, "Seconds from a request's first byte to its last (10); slower clients are closed")
      ->check(CLI::Range(0.01, 3600.0));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (const char* key = std::getenv("VLLM_API_KEY"); key && f.http.api_key.empty()) f.http.api_key = key;
  f.speculative_given = app.count("--speculative-config") > 0;
  return Run(std::move(f));
}
