// vt-run: load a GGUF llama model, generate greedily, print the text and the speed, the way
// llama.cpp's CLI does (text on stdout, timings on stderr; --json: one document on stdout).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "device_flag.h"
#include "grammar_flags.h"
#include "model_loader.h"
#include "speculation.h"
#include "vt/backend.h"
#include "vt/cpu_kernels.h"
#include "vt/generate.h"
#include "vt/sampling.h"
#include "vt/token_constraint.h"
#include "vt/tokenizer.h"

namespace {

struct Flags {
  std::string model, prompt, device = "cpu", moe_on;
  int threads = 0, ctx = 0;
  std::string cache_type_k = "f32", cache_type_v = "f32";  // llama.cpp's default is f16; vt's has been f32
  bool json = false, cpu_moe = false, no_bos = false;
  vt::SamplingParams sampling;  // temperature 0 unless asked: vt-run stays greedy by default
  vtrun::SpeculationFlags spec;
  vtrun::GrammarFlags grammar;
};

int Fail(const std::string& message, int code) {
  std::cerr << "vt-run: " << message << "\n";
  return code;
}

// What speculation did: llama.cpp's --spec-type name and the counts of its drafts.
struct SpecReport {
  std::string type;
  vt::SpeculationCounts counts;
};

void Report(const Flags& f, const vt::Generation& g, const std::string& text, const char* finish, int threads,
            const vt::Backend& device, const vt::MoeCopies& copies, const std::string& weights, vt::DType kv_dtype,
            const SpecReport& spec) {
  const vt::CpuKernelsInfo kernels = vt::CpuKernels();  // the CPU's matmul set (specs/amx.md), whatever the device
  if (f.json) {
    nlohmann::json j = {{"model", f.model},
                        {"device", device.name()},
                        {"moe_copies", copies.count},
                        {"moe_copied_bytes", copies.bytes},
                        {"finish_reason", finish},
                        {"prompt_tokens", g.prompt_tokens},
                        {"generated_tokens", g.tokens.size()},
                        {"tokens", g.tokens},
                        {"text", text},
                        {"threads", threads},
                        {"prompt_s", g.prompt_s},
                        {"decode_s", g.decode_s},
                        {"prompt_tokens_per_s", g.PromptTokensPerSecond()},
                        {"decode_tokens_per_s", g.DecodeTokensPerSecond()},
                        {"weights", weights},
                        {"kv_cache_dtype", vt::DTypeName(kv_dtype)},  // read back from the cache that ran
                        {"kernels", kernels.resolved},
                        {"kernels_note", kernels.why},
                        {"spec_type", spec.type},
                        {"drafts", spec.counts.drafts},
                        {"draft_tokens", spec.counts.draft_tokens},
                        {"accepted_tokens", spec.counts.accepted_tokens}};
    // Random fixtures produce bytes that are not UTF-8: replace them rather than throw.
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cout << "\n";
  std::fprintf(stderr, "weights:     %s\n", weights.c_str());
  std::fprintf(stderr, "kernels:     %s%s%s\n", kernels.resolved.c_str(), kernels.why.empty() ? "" : "; ", kernels.why.c_str());
  std::fprintf(stderr, "prompt eval: %lld tokens in %.2f ms (%.1f tokens/s)\n", static_cast<long long>(g.prompt_tokens),
               g.prompt_s * 1e3, g.PromptTokensPerSecond());
  std::fprintf(stderr, "decode:      %zu tokens in %.2f ms (%.1f tokens/s)\n", g.tokens.size() - 1, g.decode_s * 1e3,
               g.DecodeTokensPerSecond());
  if (spec.type != "none") {
    const vt::SpeculationCounts& c = spec.counts;
    std::fprintf(stderr, "draft:       %s, %lld tokens drafted, %lld accepted (%.1f%%)\n", spec.type.c_str(), static_cast<long long>(c.draft_tokens),
                 static_cast<long long>(c.accepted_tokens), c.draft_tokens > 0 ? 100.0 * c.accepted_tokens / c.draft_tokens : 0.0);
  }
}

// Bytes as \xHH each: what the vocabulary could not take, shown whatever they are.
std::string Hex(const std::string& bytes) {
  std::string out;
  char hex[8];
  for (unsigned char c : bytes) {
    std::snprintf(hex, sizeof hex, "\\x%02x", c);
    out += hex;
  }
  return out;
}

// -ctk and -ctv: one type for both (vt's attention reads keys and values of one type).
vt::StatusOr<vt::DType> CacheType(const Flags& f) {
  auto k = vt::ParseKvCacheDtype(f.cache_type_k, "--cache-type-k");
  if (!k.ok()) return k.status();
  auto v = vt::ParseKvCacheDtype(f.cache_type_v, "--cache-type-v");
  if (!v.ok()) return v.status();
  if (k.value() != v.value()) {
    return vt::Status(vt::StatusCode::kInvalidArgument, "--cache-type-k " + f.cache_type_k + " and --cache-type-v " + f.cache_type_v +
                                                            " differ: vt's caches hold keys and values of one type");
  }
  return k;
}

int Run(const Flags& f) {
  auto cache_type = CacheType(f);
  if (!cache_type.ok()) return Fail(cache_type.status().message(), 2);
  if (f.threads > 0) setenv("VT_THREADS", std::to_string(f.threads).c_str(), 1);  // before the CPU backend starts
  // Speculation verifies up to 1 + --draft-max rows at once: a step that large would go to the
  // tiles (specs/amx.md) and part from the tokens without speculation, so such a run keeps them
  // off. Below that the prompt goes to the tiles in both runs and every step stays off them.
  const bool speculates = !f.spec.model_draft.empty() || (!f.spec.type.empty() && f.spec.type != "none");
  if (speculates && f.spec.draft_max + 1 >= vt::kCpuTileMinRows) vt::KeepBatchInvariantKernels();
  auto loaded = vttools::LoadModel(f.model, f.device, f.cpu_moe || f.moe_on == "cpu");
  if (!loaded.ok()) return Fail(loaded.status().message(), 2);
  vt::Model* model = loaded.value()->model.get();
  const vt::Backend* device = loaded.value()->device;
  auto tokenizer = vt::Tokenizer::FromGguf(*loaded.value()->file);
  if (!tokenizer.ok()) return Fail(f.model + ": " + tokenizer.status().message(), 2);
  std::string lost;
  std::vector<int32_t> ids = tokenizer->Encode(f.prompt, /*add_special=*/!f.no_bos, /*parse_special=*/false, &lost);
  if (!lost.empty()) return Fail("--prompt holds bytes the model's vocabulary has no token for (no byte tokens, no unknown token): " + Hex(lost), 2);
  if (ids.empty()) return Fail("empty prompt", 2);
  const int64_t prompt = static_cast<int64_t>(ids.size()), ctx = f.ctx > 0 ? f.ctx : prompt + f.sampling.max_tokens;
  if (prompt > ctx) {
    return Fail("--ctx-size " + std::to_string(ctx) + " holds fewer than the prompt's " + std::to_string(prompt) + " tokens", 2);
  }
  // A full cache ends the generation ("length", as a max_tokens limit does): the last token
  // sampled needs no room of its own, so a cache of ctx holds ctx - prompt + 1 new tokens.
  const int n = static_cast<int>(std::min<int64_t>(f.sampling.max_tokens, ctx - prompt + 1));
  auto speculation = vtrun::MakeSpeculation(f.spec, f.device, tokenizer.value(), ctx);
  if (!speculation.ok()) return Fail(speculation.status().message(), 2);
  if (vt::Status kv = vttools::CheckKvCacheDtype(*model, *loaded.value()->device, cache_type.value(), "-ctk"); !kv.ok()) return Fail(kv.message(), 2);
  auto cache = model->NewCache(ctx, cache_type.value());
  if (!cache.ok()) return Fail(cache.status().message(), 1);
  auto sampler = vt::Sampler::Create(f.sampling);
  if (!sampler.ok()) return Fail(sampler.status().message(), 2);
  for (int32_t id : ids) sampler->Accept(id);
  auto grammar = vtrun::LoadGrammar(f.grammar);
  if (!grammar.ok()) return Fail(grammar.status().message(), 2);
  if (grammar.value()) sampler->Constrain(std::make_shared<vt::GrammarConstraint>(grammar.value(), vt::VocabTrie::Build(tokenizer.value())));
  const auto& constraint = sampler->constraint();
  int64_t generated = 0;  // tokens the loop has shown: a speculative step accepts several at once
  std::string text;
  vt::StreamDecoder decoder(tokenizer.value());
  vt::StopStrings stops(f.sampling.stop);
  bool eos = false;
  auto show = [&](const std::string& piece) {
    text += piece;
    if (!f.json) std::cout << piece << std::flush;
  };
  auto on_token = [&](int32_t id) {
    eos = tokenizer->IsEog(id) && !f.sampling.ignore_eos;
    if (!eos) show(stops.Push(decoder.Push(id)));
    eos = eos || (constraint && constraint->CompleteAfter(++generated));  // the grammar allows nothing more
    return !eos && !stops.stopped();
  };
  SpecReport spec{speculation.value()->type, {}};
  auto g = speculation.value()->config.enabled()
               ? vt::GenerateSpeculative(*model, cache.value(), ids, n, sampler.value(), on_token, speculation.value()->config,
                                         speculation.value()->propose, &spec.counts)
               : vt::Generate(*model, cache.value(), ids, n, sampler->AsTokenSampler(), on_token);
  if (!g.ok()) return Fail(sampler->status().ok() ? g.status().message() : sampler->status().message(), 1);
  if (!stops.stopped()) show(stops.Push(decoder.Flush()) + stops.Flush());  // what was held back
  const char* finish = eos || stops.stopped() ? "stop" : "length";  // vLLM's finish_reason
  Report(f, g.value(), text, finish, vt::CpuThreads(), *device,
         model->moe_copies(), vttools::WeightMix(*loaded.value()->file), cache->k.empty() ? cache_type.value() : cache->k[0].dtype, spec);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vt-run: generate text with a GGUF model"};
  Flags f;
  f.sampling.temperature = 0;  // vt-run is greedy unless asked, and generates 64 tokens
  f.sampling.max_tokens = 64;
  app.add_option("-m,--model", f.model, "GGUF model file")->required();
  app.add_option("-p,--prompt", f.prompt, "Prompt text")->required();
  app.add_option("-n,--n-predict,--max-tokens", f.sampling.max_tokens, "Tokens to generate")->check(CLI::Range(1, 1 << 20));
  app.add_option("-t,--threads", f.threads, "CPU threads (default: VT_THREADS or all)")->check(CLI::Range(1, 1024));
  app.add_option("-c,--ctx-size", f.ctx, "KV cache size (default: prompt + n-predict)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--cache-type-k", f.cache_type_k, "KV cache type of keys (-ctk): f32 (default), f16, bf16 or q8_0");
  app.add_option("--cache-type-v", f.cache_type_v, "KV cache type of values (-ctv): the same as -ctk");
  app.add_flag("--json", f.json, "Print one JSON document instead of text and timings");
  app.add_flag("--ignore-eos", f.sampling.ignore_eos, "Keep generating past the end-of-sequence token");
  app.add_option("--stop", f.sampling.stop, "Stop when the text contains this string (repeatable; not printed)");
  app.add_flag("--cpu-moe", f.cpu_moe, "Place MoE experts on the CPU (llama.cpp's --cpu-moe)");
  app.add_option("--device", f.device, vttools::kDeviceHelp);
  app.add_option("--moe-on", f.moe_on, "Where MoE experts run when not on --device: cpu")->check(CLI::IsMember({"cpu"}));
  app.add_flag("--no-bos", f.no_bos, "Do not prepend the beginning-of-sequence token");
  app.add_option("--temperature", f.sampling.temperature, "Sampling temperature (default 0: greedy)");
  app.add_option("--top-k", f.sampling.top_k, "Keep the K most likely tokens (-1: all)");
  app.add_option("--top-p", f.sampling.top_p, "Keep the most likely tokens up to this mass");
  app.add_option("--min-p", f.sampling.min_p, "Drop tokens below this share of the top one");
  app.add_option("--seed", f.sampling.seed, "Seed: the same seed gives the same tokens");
  app.add_option("--presence-penalty", f.sampling.presence_penalty, "Subtract this from each generated token's logit (0: off)");
  app.add_option("--frequency-penalty", f.sampling.frequency_penalty, "Subtract this times each generated token's count (0: off)");
  app.add_option("--repetition-penalty", f.sampling.repetition_penalty, "Penalty on tokens already seen (1: off)");
  app.add_option("--grammar", f.grammar.grammar, "Constrain the output to this GBNF grammar (llama.cpp's format)");
  app.add_option("--grammar-file", f.grammar.grammar_file, "Constrain the output to the GBNF grammar in this file");
  app.add_option("-j,--json-schema", f.grammar.json_schema, "Constrain the output to JSON this JSON Schema allows");
  app.add_option("--json-schema-file", f.grammar.json_schema_file, "Constrain the output to the JSON Schema in this file");
  app.add_option("--model-draft,--spec-draft-model", f.spec.model_draft, "Draft model for speculative decoding (-md; same vocabulary)");
  app.add_option("--spec-type", f.spec.type, "Speculative decoding: draft-simple (with --model-draft) or ngram-simple")
      ->check(CLI::IsMember({"none", "draft-simple", "ngram-simple"}));
  app.add_option("--draft-max,--draft,--spec-draft-n-max", f.spec.draft_max, "Tokens drafted per step at most (default 3)")->check(CLI::Range(0, 64));
  app.add_option("--draft-min,--spec-draft-n-min", f.spec.draft_min, "A shorter draft is not verified (default 0)")->check(CLI::Range(0, 64));
  app.add_option("--spec-ngram-simple-size-n", f.spec.ngram_size_n, "ngram-simple: the longest n-gram looked up (default 12)")
      ->check(CLI::Range(1, 1024));
  try {
    // llama.cpp's -ctk, -ctv and -md: CLI11 names a short flag with one letter, so they are
    // spelled out before parsing.
    std::vector<std::string> args;
    for (int i = argc - 1; i > 0; --i) {
      const std::string a = argv[i];
      args.push_back(a == "-ctk" ? "--cache-type-k" : a == "-ctv" ? "--cache-type-v" : a == "-md" ? "--model-draft" : a);
    }
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  for (const char* flag : {"--model-draft", "--draft-max", "--draft-min", "--spec-ngram-simple-size-n"}) {
    if (app.count(flag) > 0) f.spec.given.push_back(flag);
  }
  return Run(f);
}
