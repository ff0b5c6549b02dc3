// vt-bench's settings: what the user asked for (vLLM's flag names), the combinations that would
// be silently ignored (refused), and what was resolved, read back from what the run used.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "vt/dtype.h"
#include "vt/sampling.h"
#include "vt/status.h"

namespace vtbench {

struct BenchOptions {
  std::string model;
  std::vector<int> n_prompt = {512}, n_gen = {128};
  int repetitions = 5, threads = 0;
  std::string output = "md";  // md, json, csv
  std::string device = "cpu", moe_on;  // --device, --moe-on (tools/common/device_flag.h)
  std::string kv_cache_dtype = "auto";  // --kv-cache-dtype, as given
  vt::DType kv_dtype = vt::DType::kF32;  // what it resolved to (vt::ParseKvCacheDtype)
  // Requested; unset means the default, which keeps what older scripts relied on.
  std::optional<bool> ignore_eos, skip_chat_template, enable_thinking;
  std::string chat_template;  // --chat-template FILE
  std::string pretokenized;   // --pretokenized FILE (or VT_BENCH_PRETOKENIZE)
  // Request mode (vLLM's `bench` names): a dataset of prompts run one request at a time.
  std::string dataset_name;  // "", "custom" or "random"
  std::string dataset_path;
  int num_prompts = 100, random_input_len = 1024, random_output_len = 128, custom_output_len = 256;
  int random_prefix_len = 0;  // tokens every random prompt starts with (vLLM's --random-prefix-len)
  uint64_t seed = 0;
  std::string percentile_metrics = "ttft,tpot,itl", metric_percentiles = "99";
  // Server mode (`vllm bench serve`): the dataset goes to an OpenAI-compatible server.
  std::string base_url, endpoint = "/v1/completions", served_model_name;
  int max_concurrency = 0;  // 0: no limit
  double request_rate = std::numeric_limits<double>::infinity();
  // Which flags the command line gave, for the refusals of flags the mode would ignore.
  bool pp_tg_flags = false, request_flags = false, server_flags = false, local_flags = false;

  bool RequestMode() const {
    return !dataset_name.empty() || !dataset_path.empty() || !pretokenized.empty() || !base_url.empty();
  }
  bool TextPrompts() const { return RequestMode() && pretokenized.empty() && dataset_name != "random"; }
};

inline constexpr bool kDefaultIgnoreEos = true;
inline constexpr bool kDefaultSkipChatTemplate = true;

// kInvalidArgument naming both flags for each combination that would be silently ignored.
// `model_has_template`: the GGUF carries tokenizer.chat_template.
vt::Status CheckCombinations(const BenchOptions& o, bool model_has_template);

// One setting as requested and as resolved from what the run used.
struct Setting {
  std::string name, requested, resolved;
};

// `used` is the SamplingParams the generation ran with; `rendered`: whether prompts went
// through a chat template (the render step's own answer).
// `device`: the backend the model ran on.
std::vector<Setting> Settings(const BenchOptions& o, const vt::SamplingParams& used, const std::string& device, bool rendered,
                              std::optional<bool> thinking_passed = std::nullopt);

}  // namespace vtbench
