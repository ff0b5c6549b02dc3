// vt-convert-vocab and vt-tokenize as a user runs them: tokenizer.json files written here, the
// built binaries, the GGUF read back with the engine's reader.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tool_support.h"
#include "vt/gguf.h"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using vt::testing::Sh;

const char* kLlama3Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

Json ByteLevelTokenizer() {
  return {
      {"model",
       {{"type", "BPE"},
        {"vocab", {{"h", 0}, {"e", 1}, {"he", 2}, {"\xc4\xa0", 3}}},
        {"merges", {"h e"}}}},
      {"added_tokens",
       {{{"id", 5}, {"content", "<|end|>"}, {"special", true}},
        {{"id", 6}, {"content", "<think>"}, {"special", false}}}},
      {"pre_tokenizer",
       {{"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"}, {"pattern", {{"Regex", kLlama3Regex}}}}, {{"type", "ByteLevel"}}}}}},
      {"post_processor", nullptr}};
}

Json SentencePieceTokenizer() {
  return {
      {"model",
       {{"type", "BPE"},
        {"byte_fallback", true},
        {"vocab",
         {{"<unk>", 0},
          {"<0x41>", 1},
          {"\xe2\x96\x81", 2},
          {"a", 3},
          {"\xe2\x96\x81"
           "a",
           4},
          {"aa", 5}}},
        {"merges", Json::array({Json::array({"\xe2\x96\x81", "a"}), Json::array({"a", "a"})})}}},
      {"normalizer",
       {{"type", "Sequence"},
        {"normalizers", {{{"type", "Prepend"}, {"prepend", "\xe2\x96\x81"}}}}}},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", {{{"SpecialToken", {{"id", "<unk>"}}}}, {{"Sequence", {{"id", "A"}}}}}}}}};
}

class VtConvertVocab : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vt-convert-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  vt::testing::ToolResult Convert(const Json& tokenizer, const Json& config) {
    std::string cmd =
        std::string(VT_CONVERT_VOCAB_BIN) + " " + Write("tokenizer.json", tokenizer.dump());
    if (!config.is_null()) cmd += " --config " + Write("tokenizer_config.json", config.dump());
    return Sh(cmd + " -o " + (dir_ / "vocab.gguf").string());
  }
  vt::GgufFile Read() {
    auto f = vt::GgufFile::Open((dir_ / "vocab.gguf").string());
    EXPECT_TRUE(f.ok()) << f.status().message();
    return std::move(f).value();
  }
  static std::vector<int64_t> Ints(const vt::GgufFile& f, const std::string& key) {
    std::vector<int64_t> out;
    for (const auto& v : *f.Find(key)->AsArray()) out.push_back(v.AsInt().value_or(-99));
    return out;
  }
  fs::path dir_;
};

TEST_F(VtConvertVocab, ByteLevelBpeBecomesGpt2WithItsPreTokenizerNamedFromTheRegex) {
  auto r = Convert(ByteLevelTokenizer(),
                   {{"eos_token", "<|end|>"}, {"chat_template", "{{ messages }}"}});
  ASSERT_EQ(r.code, 0) << r.err;
  vt::GgufFile f = Read();
  EXPECT_EQ(*f.Find("tokenizer.ggml.model")->AsString(), "gpt2");
  EXPECT_EQ(*f.Find("tokenizer.ggml.pre")->AsString(), "llama-bpe");
  EXPECT_EQ(*(*f.Find("tokenizer.ggml.tokens")->AsArray())[4].AsString(), "[PAD4]");
  // normal ×4, the missing id unused, special → control, non-special added → user-defined
  EXPECT_EQ(Ints(f, "tokenizer.ggml.token_type"), (std::vector<int64_t>{1, 1, 1, 1, 5, 3, 4}));
  EXPECT_EQ(*(*f.Find("tokenizer.ggml.merges")->AsArray())[0].AsString(), "h e");
  EXPECT_EQ(f.Find("tokenizer.ggml.eos_token_id")->AsInt(), 5);
  EXPECT_EQ(*f.Find("tokenizer.chat_template")->AsString(), "{{ messages }}");
  EXPECT_EQ(std::get<bool>(f.Find("tokenizer.ggml.add_bos_token")->v), false);
}

TEST_F(VtConvertVocab, SentencePieceExportsBecomeLlamaWithScoresInMergeOrder) {
  auto r = Convert(SentencePieceTokenizer(), {{"unk_token", "<unk>"}});
  ASSERT_EQ(r.code, 0) << r.err;
  vt::GgufFile f = Read();
  EXPECT_EQ(*f.Find("tokenizer.ggml.model")->AsString(), "llama");
  EXPECT_EQ(Ints(f, "tokenizer.ggml.token_type"), (std::vector<int64_t>{2, 6, 1, 1, 1, 1}));
  std::vector<double> scores;
  for (const auto& v : *f.Find("tokenizer.ggml.scores")->AsArray()) scores.push_back(*v.AsFloat());
  EXPECT_EQ(scores, (std::vector<double>{-1e9f, -1e9f, -1e9f, -1e9f, 0, -1}));
  EXPECT_EQ(std::get<bool>(f.Find("tokenizer.ggml.add_space_prefix")->v), true);
  // The post-processor puts a special token first: BOS is added, and it is that token.
  EXPECT_EQ(std::get<bool>(f.Find("tokenizer.ggml.add_bos_token")->v), true);
  EXPECT_EQ(f.Find("tokenizer.ggml.unknown_token_id")->AsInt(), 0);
  auto ids = Sh(std::string(VT_TOKENIZE_BIN) + " -m " + (dir_ / "vocab.gguf").string() +
                " -p 'aaa A' --ids --no-bos");
  ASSERT_EQ(ids.code, 0) << ids.err;
  EXPECT_EQ(ids.out, "[4,5,2,1]\n");  // ▁a (rank 0) before aa (rank 1), then ▁ and A's byte
}

TEST_F(VtConvertVocab, VtTokenizeEncodesWhatWasConverted) {
  ASSERT_EQ(Convert(ByteLevelTokenizer(), nullptr).code, 0);
  std::string corpus = Write("corpus.json", R"(["hehe", "he<|end|>", "<think>h"])");
  auto r = Sh(std::string(VT_TOKENIZE_BIN) + " -m " + (dir_ / "vocab.gguf").string() +
              " --corpus " + corpus + " --parse-special");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[[2,2],[2,5],[6,0]]\n");
}

TEST_F(VtConvertVocab, WhatItCannotConvertIsRefusedNamingTheFile) {
  Json unknown = ByteLevelTokenizer();
  unknown["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\w+";
  auto r = Convert(unknown, nullptr);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("tokenizer.json: pre-tokenizer regex is not one vt knows: \\w+"),
            std::string::npos)
      << r.err;
  Json bad_merge = ByteLevelTokenizer();
  bad_merge["model"]["merges"] = {"h e", "he"};
  r = Convert(bad_merge, nullptr);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("model.merges entry 1 is neither \"a b\" nor [a, b]"), std::string::npos)
      << r.err;
  Json unigram = ByteLevelTokenizer();
  unigram["model"]["type"] = "Unigram";
  r = Convert(unigram, nullptr);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("model.type must be \"BPE\""), std::string::npos) << r.err;
  r = Sh(std::string(VT_CONVERT_VOCAB_BIN) + " " + Write("broken.json", "{\"model\": ") + " -o " +
         (dir_ / "x.gguf").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("broken.json: not valid JSON"), std::string::npos) << r.err;
  r = Sh(std::string(VT_CONVERT_VOCAB_BIN) + " " + (dir_ / "absent.json").string() + " -o " +
         (dir_ / "x.gguf").string());
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("absent.json: cannot open"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.gguf"));
}

}  // namespace
