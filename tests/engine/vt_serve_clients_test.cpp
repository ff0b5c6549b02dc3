// vt-serve through the clients its users run, not ones written here: the official openai npm
// package and the AI SDK (tests/clients, pinned by its lockfile, installed by
// scripts/install-clients). Each test is one check of tests/clients/openai-checks.mjs against a
// real vt-serve process; without Node.js 20+ and the installed clients they skip, saying why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "http_client.h"
#include "tool_support.h"

namespace {

using vt::testing::ServeProcess;

class VtServeClients : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string clients = std::string(CLIENTS_DIR);
    if (vt::testing::Sh(
            "node -e 'process.exit(+process.versions.node.split(\".\")[0] >= 20 ? 0 : 1)'")
            .code != 0) {
      skip_ = new std::string("Node.js 20+ is not installed");
      return;
    }
    if (!std::filesystem::exists(clients + "/node_modules/openai/package.json")) {
      skip_ = new std::string("the clients are not installed: scripts/install-clients");
      return;
    }
    dir_ = new std::string(vt::testing::TinyFixtureDir("vt-serve-clients"));
    std::ofstream(*dir_ + "/hermes.jinja") << vt::testing::kHermesTemplate;
    std::string error;
    server_ =
        ServeProcess::Start(VT_SERVE_BIN,
                            {"-m", *dir_ + "/m.gguf", "--served-model-name", "tiny", "-t", "1",
                             "--max-model-len", "1024", "--chat-template", *dir_ + "/hermes.jinja"},
                            &error)
            .release();
    if (!server_) skip_ = new std::string("vt-serve did not start: " + error);
  }
  static void TearDownTestSuite() {
    delete server_;
    if (dir_) std::filesystem::remove_all(*dir_);
    delete dir_;
    delete skip_;
    server_ = nullptr;
    dir_ = skip_ = nullptr;
  }
  // Runs one check; its output, or the failure it printed.
  static void Check(const std::string& name) {
    if (skip_) GTEST_SKIP() << *skip_;
    const std::string base = "http://127.0.0.1:" + std::to_string(server_->port()) + "/v1";
    vt::testing::ToolResult r =
        vt::testing::Sh("cd " + std::string(CLIENTS_DIR) +
                        " && timeout 120 node openai-checks.mjs " + base + " " + name);
    EXPECT_EQ(r.code, 0) << r.err << r.out << "\nthe server's log:\n" << server_->Log();
  }
  static std::string *dir_, *skip_;
  static ServeProcess* server_;
};
std::string* VtServeClients::dir_ = nullptr;
std::string* VtServeClients::skip_ = nullptr;
ServeProcess* VtServeClients::server_ = nullptr;

TEST_F(VtServeClients, OpenAiChatCompletionsWholeAndStreamedAgree) { Check("chat"); }
TEST_F(VtServeClients, OpenAiParseWithAZodSchemaGivesTheParsedObject) { Check("parse"); }
TEST_F(VtServeClients, OpenAiToolCallsAreMadeAndTheirResultsAnswered) { Check("tools"); }
TEST_F(VtServeClients, OpenAiLogprobsHaveAnEntryPerToken) { Check("logprobs"); }
TEST_F(VtServeClients, OpenAiResponsesWholeAndStreamedAgree) { Check("responses"); }
TEST_F(VtServeClients, OpenAiResponsesParseAndCallFunctions) { Check("responses-structured"); }
TEST_F(VtServeClients, OpenAiEmbeddingsAreUnitVectorsWhicheverEncoding) { Check("embeddings"); }
TEST_F(VtServeClients, AiSdkGenerateTextAndStreamTextAgree) { Check("ai-text"); }
TEST_F(VtServeClients, AiSdkGenerateObjectGivesTheSchemasObject) { Check("ai-object"); }
TEST_F(VtServeClients, AiSdkOpenAiProviderSpeaksTheResponsesApi) { Check("ai-openai"); }

}  // namespace
