// gpt-oss's harmony output read as OpenAI's message: the analysis channel as reasoning_content,
// the final channel as content, messages to functions.NAME as tool calls; whole and streamed.
#include "harmony.h"

#include <gtest/gtest.h>

#include "tool_calls.h"

namespace vtserve {
namespace {

// What gpt-oss writes after the prompt's `<|start|>assistant` (its <|call|> and <|return|> end
// generation and are not in the text).
const std::string kReasonThenAnswer =
    "<|channel|>analysis<|message|>The user wants a "
    "greeting.<|end|><|start|>assistant<|channel|>final<|message|>Hello there!";
const std::string kReasonThenCall =
    "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary "
    "to=functions.get_weather "
    "<|constrain|>json<|message|>{\"city\": \"Oslo\", \"days\": 2}";

TEST(Harmony, TheAnalysisIsReasoningAndTheFinalChannelTheContent) {
  HarmonyOutput out = ParseHarmony(kReasonThenAnswer);
  EXPECT_EQ(out.reasoning, "The user wants a greeting.");
  EXPECT_EQ(out.content, "Hello there!");
  EXPECT_TRUE(out.calls.empty());
  EXPECT_EQ(ParseHarmony("Just words, no header.").content,
            "Just words, no header.");  // a model writing plainly
}

TEST(Harmony, AMessageToAFunctionIsACall) {
  HarmonyOutput out = ParseHarmony(kReasonThenCall);
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].name, "get_weather");
  EXPECT_EQ(out.calls[0].arguments, "{\"city\": \"Oslo\", \"days\": 2}");
  EXPECT_EQ(out.calls[0].id.rfind("chatcmpl-tool-", 0), 0u);
  EXPECT_EQ(out.reasoning, "Need the weather.");
  EXPECT_EQ(out.content, "");
  // The recipient may come before the channel, as in harmony's own examples.
  HarmonyOutput first = ParseHarmony(
      "<|start|>assistant to=functions.lookup<|channel|>commentary json<|message|>{\"q\": 1}");
  ASSERT_EQ(first.calls.size(), 1u);
  EXPECT_EQ(first.calls[0].name, "lookup");
  // Arguments cut off by max_tokens are not a call: the text is content, nothing lost.
  HarmonyOutput cut =
      ParseHarmony("<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": ");
  EXPECT_TRUE(cut.calls.empty());
  EXPECT_EQ(cut.content, "{\"a\": ");
}

TEST(Harmony, ParsedAsToolCallsOnlyCallsLeaveContentNull) {
  ToolOutput calls = ParseToolCalls(ToolFormat::kHarmony, kReasonThenCall);
  ASSERT_EQ(calls.calls.size(), 1u);
  EXPECT_FALSE(calls.content);
  EXPECT_EQ(calls.reasoning, "Need the weather.");
  ToolOutput answer = ParseToolCalls(ToolFormat::kHarmony, kReasonThenAnswer);
  EXPECT_EQ(answer.content, "Hello there!");
}

// As the batcher emits them: headers never reach the client, reasoning and content go out as
// they come, a call's arguments only as the call at the end; what a stream sends joins to the
// whole answer. Special tokens come whole from a harmony vocabulary, a byte at a time from a
// model that writes them as text (an outside tester's '<ello' for 'hello').
TEST(Harmony, AStreamSendsReasoningAndContentAndHoldsCalls) {
  const std::string other_recipient =
      "<|channel|>commentary to=browser.search<|message|>{}<|call|>";
  const std::string cut_reasoning =
      "<|channel|>analysis<|message|>think<|en";  // max_tokens ended it there
  for (const std::string& text : {kReasonThenAnswer, kReasonThenCall, other_recipient,
                                  std::string("<|chan"), cut_reasoning}) {
    for (bool bytes : {false, true}) {
      ToolStream s(ToolFormat::kHarmony);
      std::string content, reasoning;
      for (size_t at = 0; at < text.size();) {
        size_t len = text.compare(at, 2, "<|") == 0 ? text.find("|>", at) + 2 - at
                                                    : std::min<size_t>(3, text.find("<|", at) - at);
        if (bytes || len > text.size() - at) len = 1;
        content += s.Push(text.substr(at, len));
        reasoning += s.TakeReasoning();
        at += len;
      }
      ToolOutput end = s.Finish();
      const HarmonyOutput whole = ParseHarmony(text);
      EXPECT_EQ(reasoning + end.reasoning, whole.reasoning)
          << text << (bytes ? ", a byte at a time" : "");
      EXPECT_EQ(content + end.content.value_or(""), whole.content)
          << text << (bytes ? ", a byte at a time" : "");
      EXPECT_EQ(end.calls.size(), whole.calls.size()) << text;
    }
  }
}

// Text that never opens a message is not harmony: it comes back whole, not as a lost header.
TEST(Harmony, TextThatOpensNoMessageIsContent) {
  EXPECT_EQ(ParseHarmony("<|chan").content, "<|chan");
  EXPECT_EQ(ParseHarmony("<|channel|>").content, "<|channel|>");
  EXPECT_EQ(ParseHarmony("<|chan", /*complete=*/false).content, "")
      << "streaming, it may still become a header";
}

TEST(Harmony, TheTemplateOrTheFlagTellsIt) {
  EXPECT_EQ(DetectToolFormat("{{- '<|start|>assistant<|channel|>final<|message|>' }} <tool_call>"),
            ToolFormat::kHarmony);
  EXPECT_EQ(ToolFormatNamed("openai"), ToolFormat::kHarmony);
}

}  // namespace
}  // namespace vtserve
