// vt-serve's routes as OpenAI's clients call them beyond generation: one model by its id, and a
// route asked with the wrong method. A real vt-serve process on 127.0.0.1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "http_client.h"
#include "tool_support.h"

namespace {

using Json = nlohmann::json;
using vt::testing::HttpReply;
using vt::testing::ServeProcess;

class VtServeApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(vt::testing::TinyFixtureDir("vt-serve-api"));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  std::unique_ptr<ServeProcess> Serve(const std::string& name) {
    std::string error;
    auto server = ServeProcess::Start(
        VT_SERVE_BIN, {"-m", *dir_ + "/m.gguf", "--served-model-name", name, "-t", "1"}, &error);
    EXPECT_TRUE(server) << error;
    return server;
  }
  static std::string* dir_;
};
std::string* VtServeApi::dir_ = nullptr;

TEST_F(VtServeApi, AModelIsRetrievedByItsIdSlashesAndAll) {
  auto server = Serve("org/tiny-1");
  ASSERT_TRUE(server);
  HttpReply one = server->Get("/v1/models/org/tiny-1");
  ASSERT_EQ(one.status, 200) << one.body;
  Json m = Json::parse(one.body, nullptr, false);
  EXPECT_EQ(m["id"], "org/tiny-1");
  EXPECT_EQ(m["object"], "model");
  HttpReply other = server->Get("/v1/models/other");
  EXPECT_EQ(other.status, 404) << other.body;
  EXPECT_EQ(Json::parse(other.body, nullptr, false)["error"]["param"], "model") << other.body;
}

TEST_F(VtServeApi, AKnownRouteAskedWithTheWrongMethodIs405NamingTheRightOne) {
  auto server = Serve("tiny");
  ASSERT_TRUE(server);
  HttpReply get = server->Get("/v1/completions");
  EXPECT_EQ(get.status, 405) << get.body;
  EXPECT_EQ(get.Header("Allow"), "POST");
  EXPECT_NE(get.body.find("method GET is not allowed on /v1/completions (POST is)"),
            std::string::npos)
      << get.body;
  HttpReply post = server->Post("/v1/models", "{}");
  EXPECT_EQ(post.status, 405) << post.body;
  EXPECT_EQ(post.Header("Allow"), "GET");
  EXPECT_EQ(server->Get("/v1/nothing").status, 404);  // an unknown route is still a 404
  EXPECT_EQ(server->Get("/v1/models/").status, 404);  // and so is a model with no id
}

// OpenAI's clients send presence_penalty and frequency_penalty, often as 0: both are read, 0
// changes nothing, a value outside [-2, 2] is a 400 naming it.
TEST_F(VtServeApi, PresenceAndFrequencyPenaltiesAreOpenAis) {
  auto server = Serve("tiny");
  ASSERT_TRUE(server);
  const std::string plain =
      R"({"prompt": "Hello", "max_tokens": 64, "temperature": 0, "ignore_eos": true)";
  auto text = [&](const std::string& more) {
    return Json::parse(server->Post("/v1/completions", plain + more + "}").body, nullptr, false);
  };
  Json none = text(""), zero = text(R"(, "presence_penalty": 0, "frequency_penalty": 0)");
  ASSERT_TRUE(none.contains("choices")) << none.dump();
  EXPECT_EQ(zero["choices"][0]["text"], none["choices"][0]["text"]);
  Json penalised =
      text(R"(, "frequency_penalty": 2)");  // 64 greedy tokens repeat some: penalised, they change
  ASSERT_TRUE(penalised.contains("choices")) << penalised.dump();
  EXPECT_NE(penalised["choices"][0]["text"], none["choices"][0]["text"])
      << "the penalty did not reach the sampler";
  auto bad = server->Post("/v1/completions", plain + R"(, "presence_penalty": -2.5})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("presence_penalty must be in [-2, 2]"), std::string::npos) << bad.body;
}

}  // namespace

namespace {

// A completion's choices by index, whole or streamed.
std::map<int, std::string> ChoiceTexts(const HttpReply& r) {
  std::map<int, std::string> out;
  if (r.body.rfind("data: ", 0) == 0) {
    for (size_t at = r.body.find("data: {"); at != std::string::npos;
         at = r.body.find("data: {", at + 1)) {
      Json chunk =
          Json::parse(r.body.substr(at + 6, r.body.find("\n\n", at) - at - 6), nullptr, false);
      for (const Json& c : chunk["choices"])
        out[c["index"].get<int>()] += c["text"].get<std::string>();
    }
    return out;
  }
  const Json whole = Json::parse(r.body);
  for (const Json& c : whole["choices"]) out[c["index"].get<int>()] = c["text"].get<std::string>();
  return out;
}

// OpenAI's prompt list and n: choice p × n + i is prompt p's i-th, sampled with seed + i as
// vLLM does, the same whole or streamed; each prompt's tokens are counted once.
TEST_F(VtServeApi, PromptListsAndNAnswerEachChoiceAtItsIndex) {
  auto server = Serve("tiny");
  ASSERT_TRUE(server);
  const std::string common =
      R"("max_tokens": 5, "temperature": 1.0, "seed": 7, "ignore_eos": true)";
  HttpReply both = server->Post("/v1/completions",
                                R"({"prompt": ["Hi", [72, 105, 33]], "n": 2, )" + common + "}");
  ASSERT_EQ(both.status, 200) << both.body;
  std::map<int, std::string> texts = ChoiceTexts(both);
  ASSERT_EQ(texts.size(), 4u) << both.body;
  const std::vector<std::string> prompts = {R"("Hi")", "[72, 105, 33]"};
  for (int index = 0; index < 4; ++index) {
    HttpReply alone =
        server->Post("/v1/completions", R"({"prompt": )" + prompts[static_cast<size_t>(index / 2)] +
                                            R"(, "max_tokens": 5,
      "temperature": 1.0, "ignore_eos": true, "seed": )" +
                                            std::to_string(7 + index % 2) + "}");
    EXPECT_EQ(texts[index], vt::testing::TextOf(alone)) << "choice " << index;
  }
  EXPECT_NE(texts[0], texts[1]) << "n's choices are sampled apart";
  Json usage = Json::parse(both.body)["usage"];
  EXPECT_EQ(usage["prompt_tokens"], 3 + 3);  // <s>Hi and the three ids, once each
  EXPECT_EQ(usage["completion_tokens"], 20);
  HttpReply streamed =
      server->Post("/v1/completions",
                   R"({"prompt": ["Hi", [72, 105, 33]], "n": 2, "stream": true, )" + common + "}");
  EXPECT_EQ(ChoiceTexts(streamed), texts);
  HttpReply too_many = server->Post("/v1/completions", R"({"prompt": ["a", "b", "c"], "n": 50})");
  EXPECT_EQ(too_many.status, 400);
  EXPECT_EQ(Json::parse(too_many.body)["error"]["param"], "n");
}

TEST_F(VtServeApi, EchoRepeatsThePromptBeforeItsCompletion) {
  auto server = Serve("tiny");
  ASSERT_TRUE(server);
  const std::string plain = vt::testing::TextOf(
      server->Post("/v1/completions",
                   R"({"prompt": "Hi", "max_tokens": 4, "temperature": 0, "ignore_eos": true})"));
  HttpReply echo = server->Post(
      "/v1/completions",
      R"({"prompt": "Hi", "max_tokens": 4, "temperature": 0, "ignore_eos": true, "echo": true})");
  EXPECT_EQ(vt::testing::TextOf(echo), "Hi" + plain);
  HttpReply ids = server->Post(
      "/v1/completions", R"({"prompt": [72, 105], "max_tokens": 1, "echo": true, "stream": true})");
  EXPECT_EQ(ChoiceTexts(ids)[0].substr(0, 2), "Hi") << ids.body;
}

// Echo with logprobs scores the prompt (lm-evaluation-harness's loglikelihood: max_tokens 0):
// each prompt token after the ones before it, the first null, and the distribution at a place
// is the one generation samples from there.
TEST_F(VtServeApi, EchoWithLogprobsScoresThePromptAsGenerationWouldSampleIt) {
  auto server = Serve("tiny");
  ASSERT_TRUE(server);
  HttpReply scored =
      server->Post("/v1/completions",
                   R"({"prompt": [72, 105, 33], "max_tokens": 0, "echo": true, "logprobs": 3})");
  ASSERT_EQ(scored.status, 200) << scored.body;
  const Json choice = Json::parse(scored.body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "length");
  EXPECT_EQ(Json::parse(scored.body)["usage"]["completion_tokens"], 0);
  const Json& lp = choice["logprobs"];
  ASSERT_EQ(lp["tokens"].size(), 3u) << scored.body;
  EXPECT_TRUE(lp["token_logprobs"][0].is_null());
  EXPECT_TRUE(lp["top_logprobs"][0].is_null());
  for (size_t at = 1; at < 3; ++at) {
    // Generation from the prompt's first `at` ids samples its first token from this place's
    // distribution.
    const std::string prefix = at == 1 ? "[72]" : "[72, 105]";
    HttpReply gen = server->Post(
        "/v1/completions",
        R"({"prompt": )" + prefix +
            R"(, "max_tokens": 1, "temperature": 0, "ignore_eos": true, "logprobs": 3})");
    const Json want = Json::parse(gen.body)["choices"][0]["logprobs"]["top_logprobs"][0];
    const Json& got = lp["top_logprobs"][at];
    ASSERT_EQ(got.size(), want.size()) << "place " << at << ": " << got << " vs " << want;
    for (const auto& [token, value] : want.items()) {
      ASSERT_TRUE(got.contains(token)) << "place " << at << ": " << got << " vs " << want;
      EXPECT_NEAR(got[token].get<double>(), value.get<double>(), 2e-3) << "place " << at;
    }
  }
  // The prompt's own token there: generation made to write it ("!", id 33) reports its raw logprob.
  HttpReply forced = server->Post(
      "/v1/completions",
      R"({"prompt": [72, 105], "max_tokens": 1, "logprobs": 1, "structured_outputs": {"regex": "!"}})");
  const Json made = Json::parse(forced.body)["choices"][0]["logprobs"];
  ASSERT_EQ(made["tokens"][0], "!") << forced.body;
  EXPECT_EQ(lp["tokens"][2], "!");
  EXPECT_NEAR(lp["token_logprobs"][2].get<double>(), made["token_logprobs"][0].get<double>(), 2e-3);
  HttpReply streamed = server->Post(
      "/v1/completions",
      R"({"prompt": [72, 105, 33], "max_tokens": 0, "echo": true, "logprobs": 3, "stream": true})");
  const size_t first = streamed.body.find("data: {");
  ASSERT_NE(first, std::string::npos) << streamed.body;
  const Json chunk =
      Json::parse(streamed.body.substr(first + 6, streamed.body.find("\n\n", first) - first - 6));
  EXPECT_EQ(chunk["choices"][0]["logprobs"]["token_logprobs"], lp["token_logprobs"]);
  HttpReply no_echo = server->Post("/v1/completions", R"({"prompt": "Hi", "max_tokens": 0})");
  EXPECT_EQ(no_echo.status, 400);
  EXPECT_EQ(Json::parse(no_echo.body)["error"]["param"], "max_tokens");
  HttpReply chat =
      server->Post("/v1/chat/completions",
                   R"({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 0})");
  EXPECT_EQ(chat.status, 400);
}

// Scoring needs no place after the prompt: one that fills the context is scored whole, one past
// it is a 400 that counts no completion token.
TEST_F(VtServeApi, AScoredPromptMayFillTheContext) {
  std::string error;
  auto server = ServeProcess::Start(
      VT_SERVE_BIN,
      {"-m", *dir_ + "/m.gguf", "--served-model-name", "tiny", "-t", "1", "--max-model-len", "16"},
      &error);
  ASSERT_TRUE(server) << error;
  auto ids = [](int n) {
    std::string out = "[72";
    for (int i = 1; i < n; ++i) out += ", 105";
    return out + "]";
  };
  HttpReply full =
      server->Post("/v1/completions", R"({"prompt": )" + ids(16) +
                                          R"(, "max_tokens": 0, "echo": true, "logprobs": 1})");
  ASSERT_EQ(full.status, 200) << full.body;
  EXPECT_EQ(Json::parse(full.body)["choices"][0]["logprobs"]["tokens"].size(), 16u);
  HttpReply over =
      server->Post("/v1/completions", R"({"prompt": )" + ids(17) +
                                          R"(, "max_tokens": 0, "echo": true, "logprobs": 1})");
  EXPECT_EQ(over.status, 400);
  EXPECT_NE(over.body.find("(17 in the prompt, 0 in the completion)"), std::string::npos)
      << over.body;
  HttpReply generate = server->Post("/v1/completions", R"({"prompt": )" + ids(16) + "}");
  EXPECT_EQ(generate.status, 400) << "a generation needs a place after the prompt";
}

// vLLM's stop_reason: the stop string that ended a choice, null when EOS or the length did.
TEST_F(VtServeApi, StopReasonNamesTheStopStringThatEndedIt) {
  auto server = Serve("tiny");
  ASSERT_TRUE(server);
  const std::string body =
      R"({"prompt": "Hi", "max_tokens": 12, "temperature": 0, "ignore_eos": true)";
  HttpReply plain = server->Post("/v1/completions", body + "}");
  Json choice = Json::parse(plain.body)["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "length");
  EXPECT_TRUE(choice["stop_reason"].is_null()) << plain.body;
  const std::string text = choice["text"].get<std::string>();
  size_t at = 1;  // two ASCII characters past the first: a stop string that is whole text
  while (at + 1 < text.size() && !(std::isprint(static_cast<unsigned char>(text[at])) &&
                                   std::isprint(static_cast<unsigned char>(text[at + 1]))))
    ++at;
  ASSERT_LT(at + 1, text.size()) << text;
  const std::string stop = text.substr(at, 2);
  HttpReply stopped = server->Post(
      "/v1/completions", body + R"(, "stop": ["never seen", )" + Json(stop).dump() + "]}");
  Json s = Json::parse(stopped.body)["choices"][0];
  EXPECT_EQ(s["finish_reason"], "stop") << stopped.body;
  EXPECT_EQ(s["stop_reason"], stop) << stopped.body;
}

// OpenAI's Responses API over chat: what it cannot do is refused naming the Responses field.
TEST_F(VtServeApi, TheResponsesApiRefusesWhatItCannotDoNamingItsOwnFields) {
  auto server = Serve("tiny");
  ASSERT_TRUE(server);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"input": "x", "previous_response_id": "resp_1"})", "previous_response_id"},
      {R"({"input": "x", "background": true})", "background"},
      {R"({"input": []})", "input"},
      {R"({"input": [{"type": "image", "url": "x"}]})", "input[0].type"},
      {R"({"input": "x", "max_output_tokens": 0})", "max_output_tokens"},
      {R"({"input": "x", "tools": [{"type": "web_search"}]})", "tools[0]"},
      {R"({"input": "x", "text": {"format": {"type": "xml"}}})", "text.format"},
  };
  for (const auto& [body, param] : cases) {
    HttpReply r = server->Post("/v1/responses", body);
    EXPECT_EQ(r.status, 400) << body << " -> " << r.body;
    EXPECT_EQ(Json::parse(r.body, nullptr, false)["error"]["param"], param)
        << body << " -> " << r.body;
  }
  for (const char* n : {"0", "-1"}) {
    HttpReply none = server->Post("/v1/responses",
                                  std::string(R"({"input": "x", "max_output_tokens": )") + n + "}");
    EXPECT_EQ(Json::parse(none.body, nullptr, false)["error"]["message"],
              "max_output_tokens must be at least 1")
        << n << ": not chat's max_tokens";
  }
  HttpReply untemplated = server->Post("/v1/responses", R"({"input": "Hi"})");
  EXPECT_EQ(Json::parse(untemplated.body, nullptr, false)["error"]["param"], "input")
      << "chat's messages are the input";
  std::ofstream(*dir_ + "/chat.jinja")
      << "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}[assistant]";
  std::string error;
  auto chat = ServeProcess::Start(
      VT_SERVE_BIN, {"-m", *dir_ + "/m.gguf", "-t", "1", "--chat-template", *dir_ + "/chat.jinja"},
      &error);
  ASSERT_TRUE(chat) << error;
  HttpReply ok = chat->Post(
      "/v1/responses",
      R"({"input": [{"role": "user", "content": [{"type": "input_text", "text": "Hi"}]}], "max_output_tokens": 2})");
  ASSERT_EQ(ok.status, 200) << ok.body;
  Json r = Json::parse(ok.body);
  EXPECT_EQ(r["object"], "response");
  EXPECT_EQ(r["status"], "incomplete");
  EXPECT_EQ(r["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(r["usage"]["output_tokens"], 2);
  HttpReply instructed = chat->Post(
      "/v1/responses", R"({"input": "Hi", "instructions": "Be brief.", "max_output_tokens": 1})");
  HttpReply plain = chat->Post("/v1/responses", R"({"input": "Hi", "max_output_tokens": 1})");
  const int system = Json::parse(
      chat->Post("/tokenize", R"({"prompt": "[system]Be brief.", "add_special_tokens": false})")
          .body)["count"];
  EXPECT_EQ(Json::parse(instructed.body)["usage"]["input_tokens"].get<int>(),
            Json::parse(plain.body)["usage"]["input_tokens"].get<int>() + system)
      << "the instructions are a system message: [system]Be brief.";
  // Fields there with another type than the answer echoes (null) are no crash (scripts/fuzz-serve's
  // find: the streamed response read "temperature": null as a number and the server aborted).
  HttpReply nulls = chat->Post(
      "/v1/responses", R"({"input": "Hi", "temperature": null, "top_p": null, "tool_choice": null,
    "parallel_tool_calls": null, "max_output_tokens": 2, "stream": true})");
  EXPECT_NE(nulls.body.find("event: response.incomplete"), std::string::npos) << nulls.body;
  EXPECT_EQ(chat->Get("/health").status, 200);
  EXPECT_EQ(server->Get("/v1/responses").status, 405);
}

// /v1/embeddings: each input's hidden states pooled (mean unless --pooling says) and normalized;
// a list is each input alone; base64 is the same floats; the engine computes them between the
// steps of a stream in flight.
TEST_F(VtServeApi, EmbeddingsArePooledNormalizedAndTheSameAloneOrListed) {
  auto server = Serve("tiny");
  ASSERT_TRUE(server);
  auto vector_of = [](const Json& item) { return item["embedding"].get<std::vector<float>>(); };
  HttpReply one = server->Post("/v1/embeddings", R"({"input": "Hello"})");
  ASSERT_EQ(one.status, 200) << one.body;
  Json a = Json::parse(one.body);
  const std::vector<float> hello = vector_of(a["data"][0]);
  ASSERT_EQ(hello.size(), 64u);  // the fixture's width
  double norm = 0;
  for (float v : hello) norm += static_cast<double>(v) * v;
  EXPECT_NEAR(norm, 1.0, 1e-5);
  EXPECT_EQ(a["usage"]["prompt_tokens"], 6);  // <s>Hello
  int fd = server->OpenStream(
      "/v1/completions",
      R"({"prompt": "Hi", "max_tokens": 300, "ignore_eos": true, "stream": true})");
  ASSERT_GE(fd, 0);
  HttpReply listed =
      server->Post("/v1/embeddings", R"({"input": ["Bye", "Hello"], "model": "tiny"})");
  close(fd);
  ASSERT_EQ(listed.status, 200) << listed.body;
  Json b = Json::parse(listed.body);
  ASSERT_EQ(b["data"].size(), 2u);
  EXPECT_EQ(b["data"][1]["index"], 1);
  EXPECT_EQ(vector_of(b["data"][1]), hello) << "listed or alone, the same vector";
  EXPECT_NE(vector_of(b["data"][0]), hello);
  Json c = Json::parse(
      server->Post("/v1/embeddings", R"({"input": "Hello", "encoding_format": "base64"})").body);
  const std::string b64 = c["data"][0]["embedding"].get<std::string>();
  std::string bytes;
  for (size_t i = 0; i + 3 < b64.size(); i += 4) {  // RFC 4648, by hand: 64 floats are 256 bytes
    uint32_t chunk = 0;
    for (int k = 0; k < 4; ++k) {
      const char ch = b64[i + static_cast<size_t>(k)];
      const size_t at =
          std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/").find(ch);
      chunk = chunk << 6 | static_cast<uint32_t>(at == std::string::npos ? 0 : at);
    }
    for (int k = 2; k >= 0; --k) bytes += static_cast<char>((chunk >> (8 * k)) & 0xFF);
  }
  ASSERT_GE(bytes.size(), 256u);
  std::vector<float> decoded(64);
  std::memcpy(decoded.data(), bytes.data(), 256);
  EXPECT_EQ(decoded, hello);
  EXPECT_EQ(server->Post("/v1/embeddings", R"({"input": "x", "dimensions": 8})").status, 400);
  EXPECT_EQ(Json::parse(server->Post("/v1/embeddings", R"({"input": []})").body)["error"]["param"],
            "input");
  std::string error;
  auto last = ServeProcess::Start(
      VT_SERVE_BIN, {"-m", *dir_ + "/m.gguf", "-t", "1", "--pooling", "last"}, &error);
  ASSERT_TRUE(last) << error;
  EXPECT_NE(
      vector_of(Json::parse(last->Post("/v1/embeddings", R"({"input": "Hello"})").body)["data"][0]),
      hello)
      << "last is not mean";
}

}  // namespace
