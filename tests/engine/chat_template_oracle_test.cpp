// vt's Jinja against @huggingface/jinja (pinned in tests/oracle): every template of
// tests/oracle/templates and the chat templates of the pinned tokenizer packages (read back from
// the GGUF vt-convert-vocab writes, the way vt meets them) over every conversation of
// tests/oracle/conversations.json: the same bytes, or both raising the same exception.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "json_value.h"
#include "oracle_support.h"
#include "tool_support.h"
#include "vt/gguf.h"
#include "vt/jinja.h"

namespace vt {
namespace {

namespace fs = std::filesystem;
using testing::Sh;

const std::string kOracle = ORACLE_DIR;

std::string Read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ChatTemplateOracle : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Sh("node --version").code != 0 ||
        !fs::exists(kOracle + "/node_modules/@huggingface/jinja")) {
      GTEST_SKIP() << "@huggingface/jinja not installed (scripts/install-oracle needs Node.js 20+)";
    }
    dir_ = fs::temp_directory_path() / ("vt-chat-oracle-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    auto r = Sh("cd " + kOracle + " && node render.mjs");
    ASSERT_EQ(r.code, 0) << r.err;
    theirs_ = nlohmann::json::parse(r.out);
    conversations_ = nlohmann::ordered_json::parse(Read(kOracle + "/conversations.json"));
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // A package's template as vt reads it: tokenizer.chat_template of the converted vocabulary.
  std::string FromPackage(const std::string& name) {
    auto f = GgufFile::Open(testing::ConvertOraclePackage(name, dir_.string()));
    EXPECT_TRUE(f.ok());
    const GgufValue* t = f.ok() ? f.value().Find("tokenizer.chat_template") : nullptr;
    return t && t->AsString() ? *t->AsString() : "";
  }

  void Compare(const std::string& name, const std::string& source) {
    auto parsed = jinja::Template::Parse(source);
    ASSERT_TRUE(parsed.ok()) << name << ": " << parsed.status().message();
    size_t same = 0, compared = 0;
    for (const auto& c : conversations_) {
      if (c.contains("templates") &&
          std::find(c["templates"].begin(), c["templates"].end(), name) == c["templates"].end())
        continue;
      std::string key = name + "/" + c["name"].get<std::string>();
      nlohmann::ordered_json context = {{"bos_token", "<BOS>"}, {"eos_token", "<EOS>"}};
      context.update(c["context"]);
      auto value = ParseJsonValue(context.dump(), key);
      ASSERT_TRUE(value.ok());
      auto ours = parsed.value().Render(value.value());
      const auto& expected = theirs_[key];
      ++compared;
      if (expected.contains("error")) {
        ASSERT_FALSE(ours.ok()) << key << ": @huggingface/jinja raised \"" << expected["error"]
                                << "\", vt rendered:\n"
                                << ours.value();
        std::string raised = ours.status().message();
        size_t at = raised.find("raise_exception: ");
        raised = at == std::string::npos ? raised : raised.substr(at + 17);
        EXPECT_EQ(raised, expected["error"].get<std::string>()) << key;
        same += raised == expected["error"].get<std::string>();
      } else {
        ASSERT_TRUE(ours.ok()) << key << ": " << ours.status().message();
        EXPECT_EQ(ours.value(), expected["output"].get<std::string>()) << key;
        same += ours.value() == expected["output"].get<std::string>();
      }
    }
    std::printf("[ oracle   ] %s: %zu/%zu conversations byte-identical with @huggingface/jinja\n",
                name.c_str(), same, compared);
    EXPECT_GT(compared, 0u);
  }

  fs::path dir_;
  nlohmann::json theirs_;
  nlohmann::ordered_json conversations_;
};

TEST_F(ChatTemplateOracle, ChatMl) { Compare("chatml", Read(kOracle + "/templates/chatml.jinja")); }
TEST_F(ChatTemplateOracle, Llama31WithTools) {
  Compare("llama31", Read(kOracle + "/templates/llama31.jinja"));
}
TEST_F(ChatTemplateOracle, MistralRaisesOnRolesThatDoNotAlternate) {
  Compare("mistral", Read(kOracle + "/templates/mistral.jinja"));
}
TEST_F(ChatTemplateOracle, FeaturesTemplate) {
  Compare("features", Read(kOracle + "/templates/features.jinja"));
}
TEST_F(ChatTemplateOracle, GptOssHarmony) {
  Compare("gpt-oss", Read(kOracle + "/templates/gpt-oss.jinja"));
}
TEST_F(ChatTemplateOracle, Qwen25) { Compare("qwen25", Read(kOracle + "/templates/qwen25.jinja")); }
TEST_F(ChatTemplateOracle, Phi35) { Compare("phi35", Read(kOracle + "/templates/phi35.jinja")); }
TEST_F(ChatTemplateOracle, SmolLm3) {
  Compare("smollm3", Read(kOracle + "/templates/smollm3.jinja"));
}
TEST_F(ChatTemplateOracle, Llama3FromItsPackage) { Compare("llama3", FromPackage("llama3")); }
TEST_F(ChatTemplateOracle, Qwen3WithThinkingAndToolsFromItsPackage) {
  Compare("qwen3", FromPackage("qwen3"));
}
TEST_F(ChatTemplateOracle, Gemma3FromItsPackage) { Compare("gemma3", FromPackage("gemma3")); }

}  // namespace
}  // namespace vt
