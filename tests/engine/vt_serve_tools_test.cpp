// Tool calling through vt-serve as OpenAI's clients send it: tools rendered by the chat template,
// a required call made by the grammar and parsed into tool_calls, a call and its result sent
// back. A real vt-serve process on 127.0.0.1 over a random-weight fixture.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "http_client.h"
#include "tool_support.h"

namespace {

using Json = nlohmann::json;
using vt::testing::HttpReply;
using vt::testing::ServeProcess;

const char kTools[] =
    R"([{"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
  "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12}, "unit": {"enum": ["c", "f"]}},
  "required": ["city", "unit"]}}}, {"type": "function", "function": {"name": "noop"}}])";

class VtServeTools : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(vt::testing::TinyFixtureDir("vt-serve-tools"));
    std::ofstream(*dir_ + "/hermes.jinja") << vt::testing::kHermesTemplate;
    std::ofstream(*dir_ + "/plain.jinja")
        << "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}[assistant]";
    std::ofstream(*dir_ + "/effort.jinja")
        << "{% for m in messages %}{{ m.content }}{% endfor %}[{{ reasoning_effort }}]";
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  std::unique_ptr<ServeProcess> Serve(const std::string& tmpl, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"-m",
                                     *dir_ + "/m.gguf",
                                     "--served-model-name",
                                     "tiny",
                                     "-t",
                                     "1",
                                     "--chat-template",
                                     *dir_ + "/" + tmpl,
                                     "--max-model-len",
                                     "1024"};
    args.insert(args.end(), more.begin(), more.end());
    std::string error;
    auto server = ServeProcess::Start(VT_SERVE_BIN, args, &error);
    EXPECT_TRUE(server) << error;
    return server;
  }
  static Json Parse(const HttpReply& r) { return Json::parse(r.body, nullptr, false); }
  static Json Ask(const std::string& more) {
    return Json::parse(
        R"({"messages": [{"role": "user", "content": "Weather in Oslo?"}], "max_tokens": 200, "tools": )" +
        std::string(kTools) + ", " + more + "}");
  }
  static std::string* dir_;
};
std::string* VtServeTools::dir_ = nullptr;

// What get_weather's schema allows, by hand.
std::string ArgumentsProblem(const std::string& name, const std::string& arguments) {
  Json a = Json::parse(arguments, nullptr, false);
  if (!a.is_object()) return "arguments are not an object: " + arguments;
  if (name == "noop") return a.empty() ? "" : "noop takes nothing: " + arguments;
  if (name != "get_weather") return "no such function: " + name;
  if (a.size() != 2 || !a["city"].is_string() || a["city"].get<std::string>().size() > 48 ||
      (a["unit"] != "c" && a["unit"] != "f")) {
    return "get_weather's arguments: " + arguments;
  }
  return "";
}

TEST_F(VtServeTools, ARequiredCallIsMadeAndParsedIntoToolCalls) {
  auto server = Serve("hermes.jinja");
  ASSERT_TRUE(server);
  for (int seed = 1; seed <= 6; ++seed) {
    Json body = Ask(
        R"("tool_choice": "required", "parallel_tool_calls": false, "temperature": 1.0, "seed": )" +
        std::to_string(seed));
    HttpReply r = server->Post("/v1/chat/completions", body.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    Json choice = Parse(r)["choices"][0];
    EXPECT_EQ(choice["finish_reason"], "tool_calls") << r.body;
    EXPECT_TRUE(choice["message"]["content"].is_null()) << r.body;
    ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u) << r.body;
    const Json& call = choice["message"]["tool_calls"][0];
    EXPECT_EQ(call["type"], "function");
    EXPECT_EQ(call["id"].get<std::string>().rfind("chatcmpl-tool-", 0), 0u);
    EXPECT_EQ(ArgumentsProblem(call["function"]["name"], call["function"]["arguments"]), "")
        << r.body;
  }
}

TEST_F(VtServeTools, ANamedFunctionIsTheOneCalledAndStreamsAsADelta) {
  auto server = Serve("hermes.jinja");
  ASSERT_TRUE(server);
  Json body = Ask(
      R"("tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "parallel_tool_calls": false, "seed": 3,
                     "stream": true)");
  HttpReply r = server->Post("/v1/chat/completions", body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  Json call;
  std::string finish, content;
  for (size_t at = r.body.find("data: {"); at != std::string::npos;
       at = r.body.find("data: {", at + 1)) {
    Json chunk = Json::parse(r.body.substr(at + 6, r.body.find("\n\n", at) - at - 6));
    const Json& c = chunk["choices"][0];
    if (c["delta"].contains("tool_calls")) call = c["delta"]["tool_calls"][0];
    if (c["delta"].contains("content")) content += c["delta"]["content"].get<std::string>();
    if (!c["finish_reason"].is_null()) finish = c["finish_reason"];
  }
  EXPECT_EQ(finish, "tool_calls") << r.body;
  EXPECT_EQ(content, "") << "a call is no content";
  ASSERT_FALSE(call.is_null()) << r.body;
  EXPECT_EQ(call["index"], 0);
  EXPECT_EQ(call["function"]["name"], "get_weather");
  EXPECT_EQ(ArgumentsProblem("get_weather", call["function"]["arguments"]), "") << r.body;
}

// An assistant turn with content null and a call (arguments as a JSON string), then the tool's
// result: the template writes the arguments as an object, as vLLM renders them.
TEST_F(VtServeTools, ACallAndItsResultAreRenderedThroughTheTemplate) {
  auto server = Serve("hermes.jinja");
  ASSERT_TRUE(server);
  Json body = Json::parse(R"({"max_tokens": 1, "messages": [{"role": "user", "content": "Weather?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
      "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\", \"unit\": \"c\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "-3"}]})");
  HttpReply r = server->Post("/v1/chat/completions", body.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string rendered =
      "[user]Weather?[assistant]<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": "
      "\"Oslo\", \"unit\": \"c\"}}</tool_call>"
      "[tool]-3[assistant]";
  HttpReply ids = server->Post("/tokenize", Json{{"prompt", rendered}}.dump());
  EXPECT_EQ(Parse(r)["usage"]["prompt_tokens"], Parse(ids)["count"])
      << "the prompt was not " << rendered;
  // The tools are the template's too, even with tool_choice none.
  body["tools"] = Json::parse(kTools);
  body["tool_choice"] = "none";
  HttpReply with_tools = server->Post("/v1/chat/completions", body.dump());
  EXPECT_GT(Parse(with_tools)["usage"]["prompt_tokens"].get<int>(),
            Parse(r)["usage"]["prompt_tokens"].get<int>() + 200)
      << "the tools were not rendered: " << with_tools.body;
}

TEST_F(VtServeTools, BadToolsAndChoicesAre400sNamingTheirField) {
  auto server = Serve("hermes.jinja");
  ASSERT_TRUE(server);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("tools": [{"type": "function", "function": {"name": "bad name!"}}])",
       "tools[0].function.name"},
      {R"("tools": [{"type": "code"}])", "tools[0]"},
      {R"("tools": {})", "tools"},
      {R"("tool_choice": "required")", "tool_choice"},
      {R"("tools": )" + std::string(kTools) +
           R"(, "tool_choice": {"type": "function", "function": {"name": "other"}})",
       "tool_choice"},
      {R"("tools": )" + std::string(kTools) + R"(, "tool_choice": "sometimes")", "tool_choice"},
      {R"("tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"x": {"not": {}}}}}}],
          "tool_choice": "required")",
       "tools"},
      {R"("messages": [{"role": "assistant", "content": null, "tool_calls": {}}])",
       "messages[0].tool_calls"},
  };
  for (const auto& [fields, param] : cases) {
    const std::string messages = fields.find("\"messages\"") == std::string::npos
                                     ? R"("messages": [{"role": "user", "content": "x"}], )"
                                     : "";
    HttpReply r =
        server->Post("/v1/chat/completions", "{" + messages + fields + R"(, "max_tokens": 2})");
    EXPECT_EQ(r.status, 400) << fields << " -> " << r.body;
    EXPECT_EQ(Parse(r)["error"]["param"], param) << fields << " -> " << r.body;
  }
}

// A template that teaches no call format: tools are refused, naming the flag that says one.
TEST_F(VtServeTools, ATemplateWithoutACallFormatNeedsTheParserFlag) {
  auto plain = Serve("plain.jinja");
  ASSERT_TRUE(plain);
  Json body = Ask(R"("tool_choice": "required", "parallel_tool_calls": false, "seed": 1)");
  HttpReply refused = plain->Post("/v1/chat/completions", body.dump());
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_NE(refused.body.find("--tool-call-parser"), std::string::npos) << refused.body;
  auto told = Serve("plain.jinja", {"--tool-call-parser", "hermes"});
  ASSERT_TRUE(told);
  HttpReply r = told->Post("/v1/chat/completions", body.dump());
  EXPECT_EQ(Parse(r)["choices"][0]["finish_reason"], "tool_calls") << r.body;
}

// gpt-oss's harmony (--tool-call-parser openai): a named call is made by a grammar of its header
// and arguments, parsed back into tool_calls whole and streamed; `required` among several tools
// is a 400 (one call a turn names one function); text written without a header is the content.
TEST_F(VtServeTools, HarmonyMakesANamedCallAndPassesPlainTextAsContent) {
  auto harmony = Serve("plain.jinja", {"--tool-call-parser", "openai"});
  ASSERT_TRUE(harmony);
  HttpReply required =
      harmony->Post("/v1/chat/completions", Ask(R"("tool_choice": "required")").dump());
  EXPECT_EQ(required.status, 400) << required.body;
  EXPECT_NE(required.body.find("harmony"), std::string::npos) << required.body;
  const std::string named =
      R"("tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "seed": 5)";
  HttpReply called = harmony->Post("/v1/chat/completions", Ask(named).dump());
  ASSERT_EQ(called.status, 200) << called.body;
  const Json message = Parse(called)["choices"][0]["message"];
  ASSERT_TRUE(message.contains("tool_calls") && message["tool_calls"].size() == 1u) << called.body;
  EXPECT_EQ(message["tool_calls"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(ArgumentsProblem("get_weather",
                             message["tool_calls"][0]["function"]["arguments"].get<std::string>()),
            "");
  EXPECT_EQ(Parse(called)["choices"][0]["finish_reason"], "tool_calls");
  HttpReply streamed =
      harmony->Post("/v1/chat/completions", Ask(named + R"(, "stream": true)").dump());
  EXPECT_NE(streamed.body.find(R"("tool_calls":[{"function":{"arguments":)" +
                               Json(message["tool_calls"][0]["function"]["arguments"]).dump()),
            std::string::npos)
      << streamed.body;
  const std::string chat =
      R"({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 8, "temperature": 0, "ignore_eos": true})";
  HttpReply read = harmony->Post("/v1/chat/completions", chat);
  auto plain = Serve("plain.jinja");
  ASSERT_TRUE(plain);
  HttpReply as_is = plain->Post("/v1/chat/completions", chat);
  EXPECT_EQ(Parse(read)["choices"][0]["message"]["content"],
            Parse(as_is)["choices"][0]["message"]["content"])
      << read.body;
  EXPECT_FALSE(Parse(read)["choices"][0]["message"].contains("reasoning_content"));
}

// OpenAI's reasoning_effort reaches the template as its variable (gpt-oss's system message
// says it), from the field or chat_template_kwargs; another value is a 400 naming the field.
TEST_F(VtServeTools, ReasoningEffortIsTheTemplatesVariable) {
  auto server = Serve("effort.jinja");
  ASSERT_TRUE(server);
  auto prompt_tokens = [&](const std::string& more) {
    HttpReply r = server->Post(
        "/v1/chat/completions",
        R"({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1)" + more + "}");
    return Parse(r)["usage"]["prompt_tokens"].get<int>();
  };
  const int none = prompt_tokens("");
  EXPECT_EQ(prompt_tokens(R"(, "reasoning_effort": "high")"),
            none + 4);  // "[high]" against "[]", a token a byte
  EXPECT_EQ(prompt_tokens(R"(, "chat_template_kwargs": {"reasoning_effort": "low"})"), none + 3);
  HttpReply bad = server->Post(
      "/v1/chat/completions",
      R"({"messages": [{"role": "user", "content": "Hi"}], "reasoning_effort": "max"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Parse(bad)["error"]["param"], "reasoning_effort");
}

}  // namespace
