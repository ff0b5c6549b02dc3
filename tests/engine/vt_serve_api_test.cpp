// vt-serve's routes as OpenAI's clients call them beyond generation: one model by its id, and a
// route asked with the wrong method. A real vt-serve process on 127.0.0.1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
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
    auto server = ServeProcess::Start(VT_SERVE_BIN, {"-m", *dir_ + "/m.gguf", "--served-model-name", name, "-t", "1"}, &error);
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
  EXPECT_NE(get.body.find("method GET is not allowed on /v1/completions (POST is)"), std::string::npos) << get.body;
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
  const std::string plain = R"({"prompt": "Hello", "max_tokens": 64, "temperature": 0, "ignore_eos": true)";
  auto text = [&](const std::string& more) { return Json::parse(server->Post("/v1/completions", plain + more + "}").body, nullptr, false); };
  Json none = text(""), zero = text(R"(, "presence_penalty": 0, "frequency_penalty": 0)");
  ASSERT_TRUE(none.contains("choices")) << none.dump();
  EXPECT_EQ(zero["choices"][0]["text"], none["choices"][0]["text"]);
  Json penalised = text(R"(, "frequency_penalty": 2)");  // 64 greedy tokens repeat some: penalised, they change
  ASSERT_TRUE(penalised.contains("choices")) << penalised.dump();
  EXPECT_NE(penalised["choices"][0]["text"], none["choices"][0]["text"]) << "the penalty did not reach the sampler";
  auto bad = server->Post("/v1/completions", plain + R"(, "presence_penalty": -2.5})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("presence_penalty must be in [-2, 2]"), std::string::npos) << bad.body;
}

}  // namespace
