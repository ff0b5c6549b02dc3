// Tool calling (OpenAI's `tools` and `tool_choice`, vLLM's tool parsers): the request's fields,
// the format the model's chat template teaches it (Hermes/Qwen `<tool_call>` JSON, Llama 3's
// JSON), the grammar that makes a required call, and the model's output parsed into
// `tool_calls`, whole or as it streams.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api_request.h"

namespace vtserve {

// vLLM's --tool-call-parser names: "hermes", "llama3_json" and "openai" (gpt-oss's harmony,
// harmony.h: its channels are parsed for every chat request, tools or not).
enum class ToolFormat { kNone, kHermes, kLlama3Json, kHarmony };
ToolFormat DetectToolFormat(const std::string& chat_template);
// kNone for a name vLLM's flag would not take (or that vt-serve does not parse).
ToolFormat ToolFormatNamed(const std::string& name);

// `tools`, `tool_choice` and `parallel_tool_calls` of a chat request into `r`; false with a 400
// naming the field. `body` is the request's text: a tool's parameters keep their members' order.
bool ReadTools(const nlohmann::json& j, const std::string& body, ServeRequest* r, ApiError* e);

// The GBNF of a required call (`tool_choice` "required", or the function it names), one or
// several when parallel; `where` names the field for a tool's schema the grammar cannot say.
vt::StatusOr<std::string> ToolCallGbnf(ToolFormat format, const ServeRequest& r);

struct ToolCall {
  std::string id, name, arguments;  // arguments: the JSON text of an object
};
struct ToolOutput {
  std::optional<std::string> content;  // null when the output was only calls
  std::vector<ToolCall> calls;
  std::string reasoning;  // harmony's analysis channel
};
// vLLM's id for a call: "chatcmpl-tool-" and 16 hex digits.
std::string NewToolCallId();
// The model's whole output: its calls (none when they do not parse: it is all content).
ToolOutput ParseToolCalls(ToolFormat format, const std::string& text);

// Streaming: what of the text is content that may go out now; what could start a call is held
// back until it is known.
class ToolStream {
 public:
  explicit ToolStream(ToolFormat format) : format_(format) {}
  std::string Push(const std::string& text);
  // Harmony: the reasoning that arrived with the last Push.
  std::string TakeReasoning() { return std::move(reasoning_); }
  // At the end: the calls, and the content (and harmony's reasoning) held back that was not one.
  ToolOutput Finish();

 private:
  ToolFormat format_;
  std::string reasoning_;
  size_t reasoning_sent_ = 0;  // harmony: how much of the analysis channel went out
  std::string all_;
  size_t sent_ = 0;  // how much of all_ went out as content
  bool calling_ = false;
};

// The `tool_calls` array of a message or a delta (with each call's index for deltas).
nlohmann::json ToolCallsJson(const std::vector<ToolCall>& calls, bool delta);

}  // namespace vtserve
