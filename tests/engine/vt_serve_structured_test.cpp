// vt-serve's structured outputs, logprobs and logit_bias as clients send them: a real vt-serve
// process on 127.0.0.1 over a random-weight fixture, whose constrained answers must still parse.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "http_client.h"
#include "tool_support.h"

namespace {

using Json = nlohmann::json;
using vt::testing::HttpReply;
using vt::testing::ServeProcess;

class VtServeStructured : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(vt::testing::TinyFixtureDir("vt-serve-structured"));
    std::ofstream(*dir_ + "/chat.jinja")
        << "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}[assistant]";
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  std::unique_ptr<ServeProcess> Serve(std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"-m", *dir_ + "/m.gguf", "--served-model-name", "tiny", "-t",
                                     "1",  "--chat-template", *dir_ + "/chat.jinja"};
    args.insert(args.end(), more.begin(), more.end());
    std::string error;
    auto server = ServeProcess::Start(VT_SERVE_BIN, args, &error);
    EXPECT_TRUE(server) << error;
    return server;
  }
  static Json Parse(const HttpReply& r) { return Json::parse(r.body, nullptr, false); }
  static std::string* dir_;
};
std::string* VtServeStructured::dir_ = nullptr;

const char kPerson[] =
    R"({"type": "object", "properties": {"name": {"type": "string", "maxLength": 10},
  "age": {"type": "integer", "minimum": 0, "maximum": 120}, "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 3},
  "ok": {"type": "boolean"}}, "required": ["name", "age", "ok"], "additionalProperties": false})";

// What kPerson allows, checked by hand.
std::string PersonProblem(const Json& p) {
  if (!p.is_object()) return "not an object";
  for (const auto& [key, value] : p.items()) {
    if (key != "name" && key != "age" && key != "tags" && key != "ok") return "another key: " + key;
  }
  if (!p.contains("name") || !p["name"].is_string()) return "no string name";
  if (!p.contains("age") || !p["age"].is_number_integer() || p["age"].get<int>() < 0 ||
      p["age"].get<int>() > 120)
    return "age";
  if (!p.contains("ok") || !p["ok"].is_boolean()) return "ok";
  if (p.contains("tags")) {
    if (!p["tags"].is_array() || p["tags"].size() > 3) return "tags";
    for (const Json& t : p["tags"]) {
      if (t != "a" && t != "b" && t != "c") return "a tag: " + t.dump();
    }
  }
  return "";
}

// The content of a chat answer, and its finish reason.
std::pair<std::string, std::string> ChatContent(const HttpReply& r) {
  Json j = Json::parse(r.body, nullptr, false);
  if (!j.contains("choices")) return {r.body, "none"};
  return {j["choices"][0]["message"]["content"].get<std::string>(),
          j["choices"][0]["finish_reason"].get<std::string>()};
}

TEST_F(VtServeStructured, AJsonSchemaShapesEverySampledAnswer) {
  auto server = Serve();
  ASSERT_TRUE(server);
  for (int seed = 1; seed <= 12; ++seed) {
    Json body = {{"messages", {{{"role", "user"}, {"content", "Who?"}}}},
                 {"max_tokens", 400},
                 {"temperature", 1.0},
                 {"seed", seed},
                 {"response_format",
                  {{"type", "json_schema"},
                   {"json_schema",
                    {{"name", "person"}, {"strict", true}, {"schema", Json::parse(kPerson)}}}}}};
    HttpReply r = server->Post("/v1/chat/completions", body.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    auto [content, finish] = ChatContent(r);
    EXPECT_EQ(finish, "stop") << content;  // the object closed: nothing more may come
    Json person = Json::parse(content, nullptr, false);
    EXPECT_EQ(PersonProblem(person), "") << content;
  }
}

TEST_F(VtServeStructured, ChoicesRegexesAndGrammarsConstrainCompletions) {
  auto server = Serve();
  ASSERT_TRUE(server);
  const std::set<std::string> choices = {"red", "green", "blue"};
  for (int seed = 1; seed <= 6; ++seed) {
    const std::string s = std::to_string(seed);
    HttpReply c = server->Post(
        "/v1/completions", R"({"prompt": "Colour:", "max_tokens": 20, "seed": )" + s +
                               R"(, "structured_outputs": {"choice": ["red", "green", "blue"]}})");
    EXPECT_TRUE(choices.count(vt::testing::TextOf(c))) << c.body;
    // Past the grammar's end nothing may come, EOS included when it is ignored: the request stops.
    HttpReply ignoring =
        server->Post("/v1/completions",
                     R"({"prompt": "Colour:", "max_tokens": 20, "ignore_eos": true, "seed": )" + s +
                         R"(, "structured_outputs": {"choice": ["red", "green", "blue"]}})");
    EXPECT_TRUE(choices.count(vt::testing::TextOf(ignoring))) << ignoring.body;
    HttpReply old =
        server->Post("/v1/completions", R"({"prompt": "Colour:", "max_tokens": 20, "seed": )" + s +
                                            R"(, "guided_choice": ["red", "green", "blue"]})");
    EXPECT_EQ(vt::testing::TextOf(old), vt::testing::TextOf(c))
        << "vLLM's older name is the same constraint";
    HttpReply re = server->Post("/v1/completions",
                                R"({"prompt": "Code:", "max_tokens": 20, "seed": )" + s +
                                    R"(, "structured_outputs": {"regex": "[A-Z]{2}-\\d{3}"}})");
    EXPECT_TRUE(std::regex_match(vt::testing::TextOf(re), std::regex("[A-Z]{2}-[0-9]{3}")))
        << re.body;
    HttpReply g = server->Post(
        "/v1/completions",
        R"({"prompt": "Go", "max_tokens": 60, "seed": )" + s +
            R"(, "structured_outputs": {"grammar": "root ::= \"(\" [a-c]{1,8} \")\" tail\ntail ::= \"!\"?"}})");
    EXPECT_TRUE(std::regex_match(vt::testing::TextOf(g), std::regex("\\([a-c]{1,8}\\)!?")))
        << g.body;
  }
}

TEST_F(VtServeStructured, AStreamedConstrainedAnswerIsTheWholeOne) {
  auto server = Serve();
  ASSERT_TRUE(server);
  const std::string common =
      R"({"prompt": "{", "max_tokens": 300, "seed": 5, "response_format": {"type": "json_object"})";
  HttpReply whole = server->Post("/v1/completions", common + "}");
  HttpReply streamed = server->Post("/v1/completions", common + R"(, "stream": true})");
  ASSERT_EQ(streamed.status, 200) << streamed.body;
  std::string text;
  for (size_t at = streamed.body.find("data: {"); at != std::string::npos;
       at = streamed.body.find("data: {", at + 1)) {
    Json chunk = Json::parse(streamed.body.substr(at + 6, streamed.body.find("\n\n", at) - at - 6),
                             nullptr, false);
    if (chunk.contains("choices") && !chunk["choices"].empty())
      text += chunk["choices"][0]["text"].get<std::string>();
  }
  EXPECT_EQ(text, vt::testing::TextOf(whole));
  Json object = Json::parse(text, nullptr, false);
  EXPECT_TRUE(object.is_object()) << text;
}

TEST_F(VtServeStructured, BadConstraintsAre400sNamingTheirField) {
  auto server = Serve();
  ASSERT_TRUE(server);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("response_format": {"type": "json_object"}, "structured_outputs": {"regex": "a"})",
       "structured_outputs.regex"},
      {R"("structured_outputs": {"grammar": "root ::= \"a\" b"})", "structured_outputs.grammar"},
      {R"("structured_outputs": {"json": {"type": "string", "format": "hostname"}})",
       "structured_outputs.json"},
      {R"("response_format": {"type": "json_schema", "json_schema": {"schema": {"not": {}}}})",
       "response_format.json_schema.schema"},
      {R"("response_format": {"type": "xml"})", "response_format.type"},
      {R"j("structured_outputs": {"regex": "(?=a)"})j", "structured_outputs.regex"},
      {R"("structured_outputs": {"choice": []})", "structured_outputs.choice"},
      {R"("structured_outputs": {"whitespace": 1})", "structured_outputs.whitespace"},
      {R"("logit_bias": {"x": 1})", "logit_bias"},
      {R"("logit_bias": {"5": 101})", "logit_bias"},
      {R"("logit_bias": {"999999": 1})", "logit_bias"},
      {R"("logprobs": 21)", "logprobs"},
      // An outside tester's: a grammar that matches nothing was a 500 at the first token.
      {R"("structured_outputs": {"grammar": "root ::= [\\uD800-\\uDFFF]"})",
       "structured_outputs.grammar"},
      // An outside tester's: nesting that overflowed the parsers' stacks.
      {R"("structured_outputs": {"json": ")" + std::string(5000, '[') + std::string(5000, ']') +
           R"("})",
       "structured_outputs.json"},
      {R"("structured_outputs": {"regex": ")" + std::string(5000, '(') + "a" +
           std::string(5000, ')') + R"("})",
       "structured_outputs.regex"},
      {R"("structured_outputs": {"grammar": "root ::= )" + std::string(5000, '(') + "x" +
           std::string(5000, ')') + R"(\nx ::= \"a\""})",
       "structured_outputs.grammar"},
  };
  for (const auto& [fields, param] : cases) {
    HttpReply r =
        server->Post("/v1/completions", R"({"prompt": "x", "max_tokens": 4, )" + fields + "}");
    EXPECT_EQ(r.status, 400) << fields << " -> " << r.body;
    EXPECT_EQ(Parse(r)["error"]["param"], param) << fields << " -> " << r.body;
  }
  HttpReply grammar =
      server->Post("/v1/completions",
                   R"({"prompt": "x", "structured_outputs": {"grammar": "root ::= \"a\" b"}})");
  EXPECT_NE(grammar.body.find("line 1, column 14: rule 'b' is not defined"), std::string::npos)
      << grammar.body;
  HttpReply top =
      server->Post("/v1/chat/completions",
                   R"({"messages": [{"role": "user", "content": "x"}], "top_logprobs": 2})");
  EXPECT_EQ(Parse(top)["error"]["param"], "top_logprobs") << top.body;
}

// Greedy takes the likeliest token: each step's token is its own first top_logprob, and the
// log-probabilities are a distribution's (below 0, the top ones falling).
TEST_F(VtServeStructured, LogprobsAreTheModelsAndGreedyTakesTheLikeliest) {
  auto server = Serve();
  ASSERT_TRUE(server);
  HttpReply chat = server->Post(
      "/v1/chat/completions", R"({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 8,
    "temperature": 0, "ignore_eos": true, "logprobs": true, "top_logprobs": 3})");
  ASSERT_EQ(chat.status, 200) << chat.body;
  Json choice = Parse(chat)["choices"][0];
  const Json& content = choice["logprobs"]["content"];
  ASSERT_EQ(content.size(), 8u) << chat.body;
  std::string bytes;  // every token's own bytes: a byte of a split character is no text of its own
  for (const Json& t : content) {
    for (const Json& b : t["bytes"]) bytes += static_cast<char>(b.get<int>());
    ASSERT_EQ(t["top_logprobs"].size(), 3u);
    EXPECT_EQ(t["top_logprobs"][0]["token"], t["token"]) << t.dump();
    EXPECT_EQ(t["top_logprobs"][0]["logprob"], t["logprob"]);
    EXPECT_LT(t["logprob"].get<double>(), 0.0);
    EXPECT_GE(t["top_logprobs"][0]["logprob"].get<double>(),
              t["top_logprobs"][1]["logprob"].get<double>());
  }
  EXPECT_EQ(Json(bytes).dump(-1, ' ', false, Json::error_handler_t::replace),
            Json(choice["message"]["content"]).dump());
  HttpReply plain =
      server->Post("/v1/chat/completions",
                   R"({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 2})");
  EXPECT_TRUE(Parse(plain)["choices"][0]["logprobs"].is_null()) << "not asked for: null";
  HttpReply completion = server->Post(
      "/v1/completions",
      R"({"prompt": "Hi", "max_tokens": 6, "temperature": 0, "ignore_eos": true, "logprobs": 2})");
  Json lp = Parse(completion)["choices"][0]["logprobs"];
  ASSERT_EQ(lp["tokens"].size(), 6u) << completion.body;
  ASSERT_EQ(lp["text_offset"].size(), 6u);
  EXPECT_EQ(lp["text_offset"][0], 0);
  int64_t offset = 0;  // each token's offset: the characters of the tokens before it
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(lp["top_logprobs"][i].size(), 2u);
    EXPECT_EQ(lp["top_logprobs"][i][lp["tokens"][i].get<std::string>()], lp["token_logprobs"][i]);
    EXPECT_EQ(lp["text_offset"][i], offset) << "text_offset of token " << i << ": " << lp.dump();
    for (unsigned char c : lp["tokens"][i].get<std::string>()) offset += (c & 0xC0) != 0x80;
  }
}

TEST_F(VtServeStructured, LogitBiasMakesAFavouriteAndTakesItAway) {
  auto server = Serve();
  ASSERT_TRUE(server);
  auto id_of = [&](const std::string& text) {
    return Parse(server->Post(
        "/tokenize", Json{{"prompt", text}, {"add_special_tokens", false}}.dump()))["tokens"][0]
        .get<int>();
  };
  HttpReply biased = server->Post(
      "/v1/completions", R"({"prompt": "Hi", "max_tokens": 5, "temperature": 0.8, "seed": 1,
    "ignore_eos": true, "logit_bias": {")" +
                             std::to_string(id_of("Z")) + R"(": 100}})");
  EXPECT_EQ(vt::testing::TextOf(biased), "ZZZZZ") << biased.body;
  HttpReply greedy = server->Post(
      "/v1/completions",
      R"({"prompt": "Hi", "max_tokens": 1, "temperature": 0, "ignore_eos": true, "logprobs": 0})");
  const std::string first = Parse(greedy)["choices"][0]["logprobs"]["tokens"][0].get<std::string>();
  HttpReply without = server->Post(
      "/v1/completions", R"({"prompt": "Hi", "max_tokens": 1, "temperature": 0, "ignore_eos": true,
    "logit_bias": {")" + std::to_string(id_of(first)) +
                             R"(": -100}})");
  EXPECT_NE(vt::testing::TextOf(without), first) << "a -100 bias takes the greedy token away";
}

TEST_F(VtServeStructured, SpeculativeDraftsAreVerifiedAgainstTheGrammar) {
  auto server =
      Serve({"--speculative-config",
             R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 3})"});
  ASSERT_TRUE(server);
  for (int seed = 1; seed <= 5; ++seed) {
    Json body = {
        {"prompt",
         R"({"name": "ab", "age": 7, "ok": true} {"name": "ab", "age": 7, "ok": true} {"name": ")"},
        {"max_tokens", 300},
        {"temperature", 0.7},
        {"seed", seed},
        {"structured_outputs", {{"json", Json::parse(kPerson)}}}};
    HttpReply r = server->Post("/v1/completions", body.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(PersonProblem(Json::parse(vt::testing::TextOf(r), nullptr, false)), "") << r.body;
  }
}

}  // namespace
