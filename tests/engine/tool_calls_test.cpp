// The model's output parsed into OpenAI's tool_calls, whole and as it streams, for the formats
// chat templates teach (Hermes/Qwen <tool_call> JSON, Llama 3's JSON).
#include "tool_calls.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace vtserve {
namespace {

TEST(ToolCalls, HermesCallsAreParsedAndTheTextBeforeThemIsContent) {
  ToolOutput out = ParseToolCalls(
      ToolFormat::kHermes,
      "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
      "{\"city\": \"Oslo\", \"days\": 2}}\n</tool_call>\n<tool_call>\n{\"name\": \"noop\", "
      "\"arguments\": {}}\n</tool_call>");
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.content, "Let me look.\n");  // as it came: what a stream sends before the call
  EXPECT_EQ(out.calls[0].name, "get_weather");
  EXPECT_EQ(out.calls[0].arguments, R"({"city":"Oslo","days":2})");  // members in the model's order
  EXPECT_EQ(out.calls[1].name, "noop");
  EXPECT_EQ(out.calls[0].id.rfind("chatcmpl-tool-", 0), 0u);
  EXPECT_NE(out.calls[0].id, out.calls[1].id);
  ToolOutput only = ParseToolCalls(
      ToolFormat::kHermes, "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": [1]}}</tool_call>");
  ASSERT_EQ(only.calls.size(), 1u);
  EXPECT_FALSE(only.content) << "only calls: content is null";
}

TEST(ToolCalls, WhatDoesNotParseIsAllContent) {
  const std::string broken = "Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": }</tool_call>";
  ToolOutput out = ParseToolCalls(ToolFormat::kHermes, broken);
  EXPECT_TRUE(out.calls.empty());
  EXPECT_EQ(out.content, broken);
  EXPECT_TRUE(ParseToolCalls(ToolFormat::kHermes, "no calls here").calls.empty());
  EXPECT_TRUE(ParseToolCalls(ToolFormat::kNone,
                             "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>")
                  .calls.empty());
}

TEST(ToolCalls, Llama3JsonCallsWithOrWithoutThePythonTag) {
  ToolOutput out = ParseToolCalls(ToolFormat::kLlama3Json,
                                  "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"x\": "
                                  "\"y\"}}; {\"name\": \"g\", \"parameters\": {}}");
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_FALSE(out.content);
  EXPECT_EQ(out.calls[0].arguments, R"({"x":"y"})");
  EXPECT_EQ(out.calls[1].name, "g");
  EXPECT_TRUE(ParseToolCalls(ToolFormat::kLlama3Json, "The answer is {\"name\": 1}").calls.empty());
}

// Streamed: content goes out as it comes, except what may start a call, which waits until it
// is known; the calls come at the end.
TEST(ToolCalls, AStreamHoldsBackOnlyWhatMayStartACall) {
  ToolStream s(ToolFormat::kHermes);
  std::string content;
  for (const char* piece :
       {"Sure", ", <to", "ol_call>\n{\"name\": \"f\", ", "\"arguments\": {}}\n</tool_call>"})
    content += s.Push(piece);
  EXPECT_EQ(content, "Sure, ");
  ToolOutput end = s.Finish();
  ASSERT_EQ(end.calls.size(), 1u);
  EXPECT_EQ(end.calls[0].name, "f");
  ToolStream text(ToolFormat::kHermes);
  EXPECT_EQ(text.Push("a <to"), "a ");
  EXPECT_EQ(text.Push("ast> c"), "<toast> c");  // "<to" could not start a call after all
  EXPECT_EQ(text.Finish().content, "");
  ToolStream llama(ToolFormat::kLlama3Json);
  EXPECT_EQ(llama.Push("  {\"name\": \"g\", "), "");
  EXPECT_EQ(llama.Push("\"parameters\": {}}"), "");
  EXPECT_EQ(llama.Finish().calls.size(), 1u);
}

TEST(ToolCalls, TheTemplateTellsTheFormat) {
  EXPECT_EQ(DetectToolFormat("...<tool_call>\\n{\"name\": <function-name>...</tool_call>"),
            ToolFormat::kHermes);
  EXPECT_EQ(DetectToolFormat("{{- '\"parameters\": ' }}"), ToolFormat::kLlama3Json);
  EXPECT_EQ(DetectToolFormat("{% for m in messages %}{{ m.content }}{% endfor %}"),
            ToolFormat::kNone);
  EXPECT_EQ(ToolFormatNamed("hermes"), ToolFormat::kHermes);
  EXPECT_EQ(ToolFormatNamed("pythonic"), ToolFormat::kNone);
}

}  // namespace
}  // namespace vtserve
