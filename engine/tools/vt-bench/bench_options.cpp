#include "bench_options.h"

namespace vtbench {
namespace {

vt::Status Refuse(const std::string& message) { return vt::Status(vt::StatusCode::kInvalidArgument, message); }

std::string Requested(const std::optional<bool>& flag, bool fallback) {
  if (!flag) return std::string(fallback ? "true" : "false") + " (default)";
  return *flag ? "true" : "false";
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
  if (!skip) {
    return vt::Status(vt::StatusCode::kUnimplemented,
                      "--no-skip-chat-template: rendering chat templates is not built yet (specs/vt-bench.md, Owed)");
  }
  return vt::Status();
}

std::vector<Setting> Settings(const BenchOptions& o, const vt::SamplingParams& used, bool rendered) {
  return {
      {"ignore_eos", Requested(o.ignore_eos, kDefaultIgnoreEos), used.ignore_eos ? "true" : "false"},
      {"skip_chat_template", Requested(o.skip_chat_template, kDefaultSkipChatTemplate), rendered ? "false" : "true"},
      {"enable_thinking", o.enable_thinking ? (*o.enable_thinking ? "true" : "false") : "unset (default)",
       rendered ? "passed to the template" : "unused (no template rendered)"},
  };
}

}  // namespace vtbench
