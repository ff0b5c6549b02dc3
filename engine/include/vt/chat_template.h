// Chat messages → prompt text through the model's chat template, with the variables
// transformers' apply_chat_template passes.
#pragma once

#include <optional>
#include <string>

#include "vt/jinja.h"

namespace vt {

struct ChatOptions {
  bool add_generation_prompt = true;
  std::optional<bool> enable_thinking;  // only defined for the template when set
  std::string bos_token, eos_token;
  jinja::Value tools;  // undefined: no `tools` variable
  jinja::Value extra;  // an object: more variables (e.g. date_string)
};

StatusOr<std::string> RenderChat(const std::string& source, const jinja::Value& messages, const ChatOptions& options);

}  // namespace vt
