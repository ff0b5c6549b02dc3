// Template::Render and the chat rendering on top of it.
#include "interpreter.h"
#include "vt/chat_template.h"

namespace vt::jinja {

StatusOr<std::string> Template::Render(const Value& context) const {
  if (!root_) return Status(StatusCode::kInvalidArgument, "template: not parsed");
  return Interp(context).Run(*root_);
}

}  // namespace vt::jinja

namespace vt {

StatusOr<std::string> RenderChat(const std::string& source, const jinja::Value& messages, const ChatOptions& options) {
  auto t = jinja::Template::Parse(source);
  if (!t.ok()) return t.status();
  jinja::Value context = jinja::Value::MakeObject({{"messages", messages},
                                                   {"add_generation_prompt", jinja::Value::Bool(options.add_generation_prompt)},
                                                   {"bos_token", jinja::Value::String(options.bos_token)},
                                                   {"eos_token", jinja::Value::String(options.eos_token)}});
  if (!options.tools.is_undefined()) context.Set("tools", options.tools);
  if (options.enable_thinking.has_value()) context.Set("enable_thinking", jinja::Value::Bool(*options.enable_thinking));
  if (options.extra.is_object()) {
    for (const auto& [k, v] : options.extra.object()) context.Set(k, v);
  }
  return t.value().Render(context);
}

}  // namespace vt
