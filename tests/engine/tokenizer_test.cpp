// The SentencePiece-style tokenizer on a small vocabulary whose merges can be worked out by hand.
#include "vt/tokenizer.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "tokenizer_support.h"

namespace vt {
namespace {

// 0 <unk>, 1 <s>, 2 </s>, 3..258 <0x00>..<0xFF>, then words with scores, then a user-defined token.
const std::vector<std::pair<std::string, float>> kWords = {{"\xe2\x96\x81", -10},
                                                           {"\xe2\x96\x81h", -5},
                                                           {"el", -3},
                                                           {"ll", -4},
                                                           {"lo", -6},
                                                           {"\xe2\x96\x81hel", -1},
                                                           {"h", -100},
                                                           {"e", -100},
                                                           {"l", -100},
                                                           {"o", -100},
                                                           {"xy", -1},
                                                           {"yz", -2},
                                                           {"ab", -2},
                                                           {"bc", -1},
                                                           {"x", -100},
                                                           {"y", -100},
                                                           {"z", -100},
                                                           {"a", -100},
                                                           {"b", -100},
                                                           {"c", -100}};
constexpr int32_t kSpace = 259, kSpaceH = 260, kLo = 263, kSpaceHel = 264, kH = 265;
constexpr int32_t kXy = 269, kBc = 272, kZ = 275, kA = 276, kTool = 279, kSpaces = 280;

int32_t Byte(unsigned char b) { return 3 + b; }

GgufWriter Vocab(const std::string& model = "llama",
                 const std::vector<std::string>& controls = {}) {
  std::vector<GgufValue> tokens, scores, types;
  auto add = [&](const std::string& text, float score, TokenType type) {
    tokens.push_back(GgufValue::String(text));
    scores.push_back(GgufValue::Float(GgufType::kF32, score));
    types.push_back(GgufValue::Int(GgufType::kI32, static_cast<int32_t>(type)));
  };
  add("<unk>", 0, TokenType::kUnknown);
  add("<s>", 0, TokenType::kControl);
  add("</s>", 0, TokenType::kControl);
  for (int b = 0; b < 256; ++b) {
    char hex[7];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    add(hex, 0, TokenType::kByte);
  }
  for (const auto& [text, score] : kWords) add(text, score, TokenType::kNormal);
  add("<tool>", 0, TokenType::kUserDefined);
  add("\xe2\x96\x81\xe2\x96\x81", 0, TokenType::kUserDefined);  // Gemma has such space runs
  for (const std::string& text : controls) add(text, 0, TokenType::kControl);
  GgufWriter w;
  w.Set("tokenizer.ggml.model", GgufValue::String(model));
  w.Set("tokenizer.ggml.tokens", GgufValue::Array(GgufType::kString, tokens));
  w.Set("tokenizer.ggml.scores", GgufValue::Array(GgufType::kF32, scores));
  w.Set("tokenizer.ggml.token_type", GgufValue::Array(GgufType::kI32, types));
  w.Set("tokenizer.ggml.bos_token_id", GgufValue::Uint(GgufType::kU32, 1));
  w.Set("tokenizer.ggml.eos_token_id", GgufValue::Uint(GgufType::kU32, 2));
  w.Set("tokenizer.ggml.unknown_token_id", GgufValue::Uint(GgufType::kU32, 0));
  return w;
}

StatusOr<Tokenizer> Load(const GgufWriter& w) { return testing::LoadTokenizer(w); }

Tokenizer Load() {
  auto t = Load(Vocab());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

std::string Decode(const Tokenizer& t, const std::vector<int32_t>& ids) {
  StreamDecoder d(t);
  std::string text;
  for (int32_t id : ids) text += d.Push(id);
  return text + d.Flush();
}

// "▁hello": el (-3) first, ll is then stale, ▁h (-5) next, which makes ▁hel (-1), then lo.
TEST(Tokenizer, MergesTheHighestScoringPairFirstAsSentencePieceDoes) {
  EXPECT_EQ(Load().Encode("hello", /*add_special=*/true, /*parse_special=*/false),
            (std::vector<int32_t>{1, kSpaceHel, kLo}));
}

// xy (-1) beats yz (-2): "xyz" is xy + z, not x + yz.
TEST(Tokenizer, TheBetterScoringOfTwoOverlappingPairsWins) {
  EXPECT_EQ(Load().Encode("xyz", false, false), (std::vector<int32_t>{kSpace, kXy, kZ}));
}

// bc (-1) merges first; the queued ab (-2) is stale then (b has grown), and "abc" is no token.
TEST(Tokenizer, APairQueuedBeforeOneSideGrewIsNotMerged) {
  EXPECT_EQ(Load().Encode("abc", false, false), (std::vector<int32_t>{kSpace, kA, kBc}));
}

// No text, no space prefix: llama.cpp and tokenizers both give nothing (or only BOS).
TEST(Tokenizer, EmptyTextIsNoTokens) {
  EXPECT_EQ(Load().Encode("", false, false), (std::vector<int32_t>{}));
  EXPECT_EQ(Load().Encode("", true, false), (std::vector<int32_t>{1}));
}

TEST(Tokenizer, CharactersWithoutATokenFallBackToTheirBytes) {
  EXPECT_EQ(Load().Encode("h\xc3\xa9", false, false),
            (std::vector<int32_t>{kSpaceH, Byte(0xC3), Byte(0xA9)}));
}

TEST(Tokenizer, SpecialTokensAreSplitOutFirstControlOnesOnlyWhenAsked) {
  Tokenizer t = Load();
  EXPECT_EQ(t.Encode("<s>hi<tool>", false, true),
            (std::vector<int32_t>{1, kSpaceH, Byte('i'), kTool}));
  EXPECT_EQ(t.Encode("<s>hi<tool>", false, false),
            (std::vector<int32_t>{kSpace, Byte('<'), Byte('s'), Byte('>'), kH, Byte('i'), kTool}));
}

TEST(Tokenizer, PiecesAndStreamingDecodeHoldBackSplitCharacters) {
  Tokenizer t = Load();
  EXPECT_EQ(t.Piece(kSpaceHel), " hel");
  EXPECT_EQ(t.Piece(1), "");
  EXPECT_EQ(t.Piece(1, /*special=*/true), "<s>");
  StreamDecoder d(t);
  EXPECT_EQ(d.Push(1), "");
  EXPECT_EQ(d.Push(kSpaceH), "h");    // the space SentencePiece added in front is dropped
  EXPECT_EQ(d.Push(Byte(0xC3)), "");  // half of é
  EXPECT_EQ(d.Push(Byte(0xA9)), "\xc3\xa9");
  EXPECT_EQ(d.Flush(), "");
}

// A user-defined SentencePiece piece spells spaces with ▁ as normal pieces do (Gemma's "▁▁").
TEST(Tokenizer, UserDefinedPiecesSpellSpacesWithTheSpaceMark) {
  EXPECT_EQ(Load().Piece(kSpaces), "  ");
  EXPECT_EQ(Load().Piece(kTool), "<tool>");
}

TEST(Tokenizer, TextSurvivesARoundTrip) {
  Tokenizer t = Load();
  for (std::string text : {"hello", "hello  world", "h\xc3\xa9llo \xf0\x9f\x98\x80!", "  leading",
                           "tab\tand\nnewline"}) {
    EXPECT_EQ(Decode(t, t.Encode(text, true, false)), text) << text;
  }
}

TEST(Tokenizer, TheVocabularyDecidesBosAndEos) {
  GgufWriter w = Vocab();
  w.Set("tokenizer.ggml.add_bos_token", GgufValue::Bool(false));
  w.Set("tokenizer.ggml.add_eos_token", GgufValue::Bool(true));
  auto t = Load(w);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->Encode("hello", true, false), (std::vector<int32_t>{kSpaceHel, kLo, 2}));
  EXPECT_EQ(t->Encode("hello", false, false), (std::vector<int32_t>{kSpaceHel, kLo}));
}

// The tokens that end a generation, as llama.cpp's special_eog_ids: eos, an eot id, and the
// end-of-turn spellings; gpt-oss's <|end|> is not one where <|return|> and <|call|> are there.
TEST(Tokenizer, EndOfTurnTokensEndAGenerationButHarmonysEndOfMessage) {
  auto eog = [](const GgufWriter& w, const std::string& text) {
    Tokenizer t = Load(w).value();
    return t.IsEog(t.Find(text));
  };
  const GgufWriter harmony =
      Vocab("llama", {"<|return|>", "<|call|>", "<|end|>", "<end_of_turn>", "<|channel|>"});
  EXPECT_TRUE(eog(harmony, "</s>"));  // the eos
  EXPECT_TRUE(eog(harmony, "<|return|>"));
  EXPECT_TRUE(eog(harmony, "<|call|>"));
  EXPECT_TRUE(eog(harmony, "<end_of_turn>"));
  EXPECT_FALSE(eog(harmony, "<|end|>"));
  EXPECT_FALSE(eog(harmony, "<|channel|>"));
  EXPECT_FALSE(eog(harmony, "<s>"));
  EXPECT_TRUE(eog(Vocab("llama", {"<|end|>"}), "<|end|>"));  // Phi's end of turn
  GgufWriter eot = Vocab();
  const int32_t hello = Load(eot).value().Find("xy");
  ASSERT_GE(hello, 0);
  eot.Set("tokenizer.ggml.eot_token_id",
          GgufValue::Uint(GgufType::kU32, static_cast<uint64_t>(hello)));
  EXPECT_TRUE(eog(eot, "xy"));
  EXPECT_FALSE(Load(Vocab()).value().IsEog(-1));
}

TEST(Tokenizer, OtherModelsAndMalformedVocabulariesAreNamedErrors) {
  auto bert = Load(Vocab("bert"));
  ASSERT_FALSE(bert.ok());
  EXPECT_EQ(bert.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(bert.status().message(),
            "gguf: tokenizer.ggml.model \"bert\" is not supported (only \"llama\" and \"gpt2\")");
  GgufWriter w = Vocab();
  w.Set("tokenizer.ggml.scores",
        GgufValue::Array(GgufType::kF32, {GgufValue::Float(GgufType::kF32, 0)}));
  auto short_scores = Load(w);
  ASSERT_FALSE(short_scores.ok());
  EXPECT_EQ(short_scores.status().code(), StatusCode::kInvalidArgument);
  // A BOS past the vocabulary is refused when the vocabulary loads, not met at generation.
  GgufWriter far = Vocab();
  const size_t n = testing::LoadTokenizer(Vocab()).value().size();
  far.Set("tokenizer.ggml.bos_token_id", GgufValue::Uint(GgufType::kU32, n));
  auto bos = Load(far);
  ASSERT_FALSE(bos.ok());
  EXPECT_EQ(bos.status().message(), "gguf: tokenizer.ggml.bos_token_id " + std::to_string(n) +
                                        " is not a token id (the vocabulary has " +
                                        std::to_string(n) + " tokens)");
  far.Set("tokenizer.ggml.bos_token_id", GgufValue::Uint(GgufType::kU32, n - 1));
  EXPECT_TRUE(Load(far).ok());
  // A token type past llama.cpp's seven (0 undefined .. 6 byte) names its index.
  GgufWriter typed = Vocab();
  std::vector<GgufValue> types(n, GgufValue::Int(GgufType::kI32, 1));
  types[5] = GgufValue::Int(GgufType::kI32, 99);
  typed.Set("tokenizer.ggml.token_type", GgufValue::Array(GgufType::kI32, types));
  auto bad_type = Load(typed);
  ASSERT_FALSE(bad_type.ok());
  EXPECT_EQ(bad_type.status().message(),
            "gguf: tokenizer.ggml.token_type[5] is 99, not a token type (0-6)");
}

}  // namespace
}  // namespace vt
