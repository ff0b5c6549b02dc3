#include "bench_options.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "vt/cpu_kernels.h"

namespace vtbench {
namespace {

vt::Status Refuse(const std::string& message) { return vt::Status(vt::StatusCode::kInvalidArgument, message); }

std::string Requested(const std::optional<bool>& flag, bool fallback) {
  if (!flag) return std::string(fallback ? "true" : "false") + " (default)";
  return *flag ? "true" : "false";
}

std::vector<std::string> List(const std::string& csv) {
  std::vector<std::string> items;
  std::stringstream s(csv);
  for (std::string item; std::getline(s, item, ',');) items.push_back(item);
  return items;
}

vt::Status CheckPercentiles(const BenchOptions& o) {
  for (const std::string& m : List(o.percentile_metrics)) {
    if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el") {
      return Refuse("--percentile-metrics: unknown metric '" + m + "' (ttft, tpot, itl, e2el)");
    }
  }
  for (const std::string& p : List(o.metric_percentiles)) {
    char* end = nullptr;
    double v = std::strtod(p.c_str(), &end);
    if (p.empty() || *end != '\0' || v < 0 || v > 100) return Refuse("--metric-percentiles: '" + p + "' is not a percentile (0..100)");
  }
  return vt::Status();
}

// Flags of one mode given in the other would change nothing: refuse them.
vt::Status CheckModes(const BenchOptions& o) {
  if (o.RequestMode() && o.pp_tg_flags) {
    return Refuse("-p/-n/-r set pp/tg tests, which do not run in request mode (--dataset-name / --dataset-path / "
                  "--pretokenized); drop them or the dataset");
  }
  if (!o.RequestMode() && o.request_flags) {
    return Refuse("--num-prompts, --random-*, --custom-output-len and the percentile flags need a request dataset "
                  "(--dataset-name custom|random, --dataset-path or --pretokenized)");
  }
  if (o.base_url.empty() && o.server_flags) {
    return Refuse("--endpoint, --served-model-name, --max-concurrency and --request-rate need --base-url (a server to send to)");
  }
  if (!o.base_url.empty() && o.local_flags) {
    return Refuse("-t, --device, --moe-on and --kv-cache-dtype do nothing with --base-url " + o.base_url + ": the server runs the model");
  }
  if (o.endpoint != "/v1/completions" && o.endpoint != "/v1/chat/completions") {
    return Refuse("--endpoint " + o.endpoint + ": expected /v1/completions or /v1/chat/completions");
  }
  if (o.endpoint == "/v1/chat/completions" && !o.TextPrompts()) {
    return Refuse("--endpoint /v1/chat/completions sends text messages; token-id prompts (random, pretokenized) have none: "
                  "use --dataset-name custom --dataset-path FILE or --endpoint /v1/completions");
  }
  if (o.endpoint == "/v1/chat/completions" && !o.skip_chat_template.value_or(kDefaultSkipChatTemplate)) {
    return Refuse("--no-skip-chat-template with --endpoint /v1/chat/completions would render twice: the server renders "
                  "chat messages itself");
  }
  if (o.dataset_name == "custom" && o.dataset_path.empty() && o.pretokenized.empty()) {
    return Refuse("--dataset-name custom needs --dataset-path FILE (JSON lines with a \"prompt\")");
  }
  if (o.dataset_name == "random" && !o.dataset_path.empty()) {
    return Refuse("--dataset-path " + o.dataset_path + " would be ignored by --dataset-name random");
  }
  return CheckPercentiles(o);
}

}  // namespace

vt::Status CheckCombinations(const BenchOptions& o, bool model_has_template) {
  bool skip = o.skip_chat_template.value_or(kDefaultSkipChatTemplate);
  if (!o.pretokenized.empty() && (o.skip_chat_template.has_value() || !o.chat_template.empty() || o.enable_thinking)) {
    return Refuse("chat template flags (--chat-template, --[no-]skip-chat-template, --[no-]enable-thinking) "
                  "do nothing with pretokenized input (--pretokenized / VT_BENCH_PRETOKENIZE)");
  }
  if (skip && !o.chat_template.empty()) {
    return Refuse("--chat-template " + o.chat_template + " would be ignored while --skip-chat-template is in effect "
                  "(the default); add --no-skip-chat-template");
  }
  if (skip && o.enable_thinking) {
    return Refuse("--[no-]enable-thinking would be ignored while --skip-chat-template is in effect (the default); "
                  "add --no-skip-chat-template");
  }
  if (!skip && o.chat_template.empty() && !model_has_template) {
    return Refuse("--no-skip-chat-template: " + o.model + " has no tokenizer.chat_template and no --chat-template was given");
  }
  if (!skip && !o.TextPrompts()) {
    return Refuse("--no-skip-chat-template: " +
                  std::string(o.RequestMode() ? "--dataset-name random prompts" : "pp/tg tests") +
                  " are token ids, there is no text to render; use --dataset-name custom --dataset-path FILE");
  }
  return CheckModes(o);
}

std::vector<Setting> Settings(const BenchOptions& o, const vt::SamplingParams& used, const std::string& device, bool rendered,
                              std::optional<bool> thinking_passed) {
  std::string thinking = !rendered ? "unused (no template rendered)"
                         : thinking_passed ? std::string(*thinking_passed ? "true" : "false") + " (passed to the template)"
                                           : "undefined in the template";
  std::vector<Setting> out = {
      {"device", o.device + (o.moe_on.empty() ? "" : ", experts on " + o.moe_on), device + (o.moe_on.empty() ? "" : ", experts on cpu")},
      {"ignore_eos", Requested(o.ignore_eos, kDefaultIgnoreEos), used.ignore_eos ? "true" : "false"},
      {"skip_chat_template", Requested(o.skip_chat_template, kDefaultSkipChatTemplate), rendered ? "false" : "true"},
      {"enable_thinking", o.enable_thinking ? (*o.enable_thinking ? "true" : "false") : "unset (default)", thinking},
  };
  if (o.base_url.empty()) {
    const vt::CpuKernelsInfo k = vt::CpuKernels();  // a server's kernels are its own: local runs only
    out.push_back({"kernels", k.requested, k.resolved + (k.why.empty() ? "" : " (" + k.why + ")")});
    out.push_back({"kv_cache_dtype", o.kv_cache_dtype == "auto" ? "auto (default)" : o.kv_cache_dtype, std::string(vt::DTypeName(o.kv_dtype))});
    return out;
  }
  std::ostringstream rate;
  rate << o.request_rate;
  out.push_back({"server", o.base_url + o.endpoint, o.base_url + o.endpoint});
  out.push_back({"max_concurrency", o.max_concurrency > 0 ? std::to_string(o.max_concurrency) : "unlimited (default)",
                 o.max_concurrency > 0 ? std::to_string(o.max_concurrency) : "every request at once"});
  out.push_back({"request_rate", std::isfinite(o.request_rate) ? rate.str() : "inf (default)",
                 std::isfinite(o.request_rate) ? rate.str() + " per second, Poisson" : "all at once"});
  return out;
}

}  // namespace vtbench
