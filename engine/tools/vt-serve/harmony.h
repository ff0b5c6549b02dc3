// gpt-oss's output format, harmony (vLLM's --tool-call-parser openai): after the prompt's
// `<|start|>assistant` the model writes messages, each a header and `<|message|>` its text,
// ended by `<|end|>` (the next starts `<|start|>assistant`), `<|call|>` or `<|return|>`:
//   <|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…
//   <|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{…}
// The analysis channel is the reasoning (`reasoning_content`, as vLLM's), the final channel
// and commentary without a recipient the content, and a message to `functions.NAME` a call.
#pragma once

#include <string>
#include <vector>

#include "tool_calls.h"

namespace vtserve {

struct HarmonyOutput {
  std::string reasoning, content;
  std::vector<ToolCall> calls;
  bool any_message = false;  // a `<|message|>` was seen: the text was harmony, not plain
};

// The text as it stands (a message cut off at the end is taken as far as it goes; before
// `complete`, a call's arguments that do not parse yet are left out). Text that does not open
// with a special token is all content: a model that never wrote a header.
HarmonyOutput ParseHarmony(const std::string& text, bool complete = true);

}  // namespace vtserve
