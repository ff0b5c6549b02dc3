// vt-bench as a user runs it: the built binary on a fixture model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tool_support.h"

namespace {

using Result = vt::testing::ToolResult;
using vt::testing::Sh;

class VtBench : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = (std::filesystem::temp_directory_path() / ("vt-bench-" + std::to_string(getpid()) + ".gguf")).string();
    ASSERT_EQ(Sh(std::string(VT_FIXTURE_BIN) + " -o " + model_ + " --layers 2 --dim 64 --heads 4 --kv-heads 2").code, 0);
  }
  void TearDown() override { std::filesystem::remove(model_); }
  Result Bench(const std::string& args) { return Sh(std::string(VT_BENCH_BIN) + " -m " + model_ + " " + args); }
  nlohmann::json Setting(const nlohmann::json& doc, const std::string& name) {
    for (const auto& s : doc["settings"]) {
      if (s["name"] == name) return s;
    }
    return nullptr;
  }
  std::string model_;
};

TEST_F(VtBench, MeasuresEachPromptAndGenerationLengthWithRepetitions) {
  Result r = Bench("-p 8,16 -n 4 -r 3 -o json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 3u);
  EXPECT_EQ(doc["results"][0]["test"], "pp8");
  EXPECT_EQ(doc["results"][1]["test"], "pp16");
  EXPECT_EQ(doc["results"][2]["test"], "tg4");
  for (const auto& res : doc["results"]) {
    EXPECT_EQ(res["samples_ts"].size(), 3u);
    EXPECT_GT(res["avg_ts"].get<double>(), 0);
  }
}

TEST_F(VtBench, DefaultsKeepWhatOlderScriptsReliedOnAndSayWhatWasResolved) {
  auto doc = nlohmann::json::parse(Bench("-p 8 -n 4 -r 1 -o json").out);
  EXPECT_EQ(Setting(doc, "ignore_eos")["requested"], "true (default)");
  EXPECT_EQ(Setting(doc, "ignore_eos")["resolved"], "true");
  EXPECT_EQ(Setting(doc, "skip_chat_template")["requested"], "true (default)");
  EXPECT_EQ(Setting(doc, "skip_chat_template")["resolved"], "true");
  auto asked = nlohmann::json::parse(Bench("-p 8 -n 4 -r 1 -o json --no-ignore-eos").out);
  EXPECT_EQ(Setting(asked, "ignore_eos")["requested"], "false");
  EXPECT_EQ(Setting(asked, "ignore_eos")["resolved"], "false");  // read back from the SamplingParams used
}

TEST_F(VtBench, CombinationsThatWouldBeSilentlyIgnoredAreRefusedNamingBothFlags) {
  Result tpl = Bench("--chat-template t.jinja");
  EXPECT_EQ(tpl.code, 2);
  EXPECT_NE(tpl.err.find("--chat-template t.jinja would be ignored while --skip-chat-template"), std::string::npos) << tpl.err;
  Result none = Bench("--no-skip-chat-template");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("--no-skip-chat-template: " + model_ + " has no tokenizer.chat_template"), std::string::npos)
      << none.err;
  Result pre = Sh("VT_BENCH_PRETOKENIZE=ids.txt " + std::string(VT_BENCH_BIN) + " -m " + model_ + " --no-skip-chat-template");
  EXPECT_EQ(pre.code, 2);
  EXPECT_NE(pre.err.find("do nothing with pretokenized input (--pretokenized / VT_BENCH_PRETOKENIZE)"), std::string::npos)
      << pre.err;
  Result thinking = Bench("--enable-thinking");
  EXPECT_EQ(thinking.code, 2);
  EXPECT_NE(thinking.err.find("--[no-]enable-thinking would be ignored while --skip-chat-template"), std::string::npos);
  EXPECT_EQ(Bench("--ignore-eos --no-ignore-eos").code, 2);
}

TEST_F(VtBench, TheMarkdownTableHasARowPerTestAndTheSettings) {
  Result r = Bench("-p 8 -n 4 -r 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| pp8 | "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| tg4 | "), std::string::npos);
  EXPECT_NE(r.out.find("| ignore_eos | true (default) | true |"), std::string::npos) << r.out;
}

}  // namespace
