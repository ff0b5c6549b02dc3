// Byte-level BPE (`gpt2` vocabularies) on a vocabulary small enough to work out by hand, and the
// pre-tokenizer regexes on their own.
#include <gtest/gtest.h>

#include <random>

#include "tokenizer_support.h"
#include "vt/pretokenizer.h"
#include "vt/tokenizer.h"

namespace vt {
namespace {

// GPT-2's byte stand-ins, written out independently of the engine's table.
std::string StandIn(int b) {
  int extra = 0x100;
  for (int x = 0; x < 256; ++x) {
    bool printable = (x >= '!' && x <= '~') || (x >= 0xA1 && x <= 0xAC) || (x >= 0xAE);
    int cp = printable ? x : extra++;
    if (x != b) continue;
    std::string s;
    if (cp < 0x80) return std::string(1, static_cast<char>(cp));
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
    return s;
  }
  return "";
}

const std::string kG = "\xc4\xa0";  // Ġ, the stand-in for a space
// Ids 0..255: the bytes; then merged words; then specials.
const std::vector<std::string> kWords = {"he",  "ll",      "hell",   "hello", kG + "w", "el",
                                         "xyz", "<|end|>", "<tool>", "cabx",  "ca"};
constexpr int32_t kHe = 256, kHello = 259, kGw = 260, kEl = 261, kXyz = 262, kEnd = 263,
                  kTool = 264, kCabx = 265, kCa = 266;

GgufWriter BpeVocab(const std::string& pre,
                    std::vector<std::string> merges = {"h e", "l l", "he ll", "hell o", kG + " w",
                                                       "e l"}) {
  std::vector<GgufValue> tokens, types, m;
  for (int b = 0; b < 256; ++b) tokens.push_back(GgufValue::String(StandIn(b)));
  for (const std::string& w : kWords) tokens.push_back(GgufValue::String(w));
  for (size_t i = 0; i < tokens.size(); ++i) {
    int type = i == kEnd ? 3 : i == kTool || i == kCabx || i == kCa ? 4 : 1;
    types.push_back(GgufValue::Int(GgufType::kI32, type));
  }
  for (const std::string& s : merges) m.push_back(GgufValue::String(s));
  GgufWriter w;
  w.Set("tokenizer.ggml.model", GgufValue::String("gpt2"));
  w.Set("tokenizer.ggml.pre", GgufValue::String(pre));
  w.Set("tokenizer.ggml.tokens", GgufValue::Array(GgufType::kString, tokens));
  w.Set("tokenizer.ggml.token_type", GgufValue::Array(GgufType::kI32, types));
  w.Set("tokenizer.ggml.merges", GgufValue::Array(GgufType::kString, m));
  w.Set("tokenizer.ggml.eos_token_id", GgufValue::Uint(GgufType::kU32, kEnd));
  w.Set("tokenizer.ggml.add_bos_token", GgufValue::Bool(false));
  return w;
}

StatusOr<Tokenizer> Load(const GgufWriter& w) { return testing::LoadTokenizer(w); }

Tokenizer Load(const std::string& pre) {
  auto t = Load(BpeVocab(pre));
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(t).value();
}

std::vector<std::string> Words(const std::string& pre, const std::string& text) {
  auto p = PreTokenizer::ForName(pre);
  EXPECT_TRUE(p.ok()) << p.status().message();
  std::vector<std::string> words;
  for (std::string_view w : p.value()->Split(text)) words.emplace_back(w);
  return words;
}

int32_t Byte(char c) { return static_cast<unsigned char>(c); }

using Ids = std::vector<int32_t>;
using Strings = std::vector<std::string>;

// "hel": h+e (rank 0) before e+l (rank 5), so he + l, never h + el.
TEST(BpeTokenizer, TheLowestRankedMergeGoesFirst) {
  Tokenizer t = Load("qwen2");
  EXPECT_EQ(t.Encode("hello", false, false), (Ids{kHello}));
  EXPECT_EQ(t.Encode("hel", false, false), (Ids{kHe, Byte('l')}));
  EXPECT_EQ(t.Encode("el", false, false), (Ids{kEl}));
}

TEST(BpeTokenizer, SpacesAreByteStandInsWithinWords) {
  Tokenizer t = Load("qwen2");
  EXPECT_EQ(t.Encode("hello world", false, false),
            (Ids{kHello, kGw, Byte('o'), Byte('r'), Byte('l'), Byte('d')}));
}

// "xyz" is a token no merge makes: the llama3 family takes a whole word that is a token as is.
TEST(BpeTokenizer, TheLlama3FamilyTakesAWholeWordThatIsAToken) {
  EXPECT_EQ(Load("llama-bpe").Encode("xyz", false, false), (Ids{kXyz}));
  EXPECT_EQ(Load("qwen2").Encode("xyz", false, false), (Ids{Byte('x'), Byte('y'), Byte('z')}));
}

TEST(BpeTokenizer, Llama3SplitsDigitsInThreesAndContractionsInAnyCase) {
  EXPECT_EQ(Words("llama-bpe", "abc 1234567"), (Strings{"abc", " ", "123", "456", "7"}));
  EXPECT_EQ(Words("llama-bpe", "DON'T it's"), (Strings{"DON", "'T", " it", "'s"}));
  EXPECT_EQ(Words("llama-bpe", "a   b\n\n c"), (Strings{"a", "  ", " b", "\n\n", " c"}));
}

TEST(BpeTokenizer, QwenSplitsSingleDigitsAndGpt2ContractionsOnlyInLowerCase) {
  EXPECT_EQ(Words("qwen2", "x1234"), (Strings{"x", "1", "2", "3", "4"}));
  EXPECT_EQ(Words("gpt-2", "DON'T it's 1234"), (Strings{"DON", "'", "T", " it", "'s", " 1234"}));
}

// o200k (gpt-oss): a word's capitals lead its lower-case letters, so a new capital starts a new
// word; a combining mark stays on its word; contractions stay on theirs.
TEST(BpeTokenizer, Gpt4oSplitsWordsAtCapitalsAndKeepsMarksAndContractions) {
  EXPECT_EQ(Words("gpt-4o", "CamelCase HTTPServer"), (Strings{"Camel", "Case", " HTTPServer"}));
  EXPECT_EQ(Words("gpt-4o", "DON'T it's 12345"), (Strings{"DON'T", " it's", " ", "123", "45"}));
  EXPECT_EQ(Words("gpt-4o", "e\xcc\x81\\n ->/x"), (Strings{"e\xcc\x81", "\\n", " ->/", "x"}));
}

// dbrx (Phi-4's and OLMo 2's cl100k) splits as llama3 but merges: no whole-word lookup.
TEST(BpeTokenizer, DbrxSplitsAsLlama3ButMergesEveryWord) {
  EXPECT_EQ(Words("dbrx", "DON'T 1234"), Words("llama-bpe", "DON'T 1234"));
  EXPECT_EQ(Load("dbrx").Encode("xyz", false, false), (Ids{Byte('x'), Byte('y'), Byte('z')}));
  EXPECT_EQ(Load("gpt-4o").Encode("xyz", false, false), (Ids{kXyz}));
}

// llama.cpp's default list: punctuation runs, GPT-2's words, digit runs, then ASCII digits in
// threes.
TEST(BpeTokenizer, TheDefaultPreTokenizerAppliesItsRegexesInTurn) {
  EXPECT_EQ(Words("default", "a+=b 12345"), (Strings{"a", "+=", "b", " ", "123", "45"}));
}

// U+FEFF is not Unicode White_Space (JavaScript's \s says otherwise; Rust tokenizers and
// llama.cpp agree with Unicode): after a space it is a symbol run, before letters it leads them.
TEST(BpeTokenizer, ByteOrderMarkIsNotWhitespace) {
  EXPECT_EQ(Words("llama-bpe",
                  "a \xef\xbb\xbf"
                  "b"),
            (Strings{"a", " \xef\xbb\xbf", "b"}));
  EXPECT_EQ(Words("llama-bpe",
                  "a\xef\xbb\xbf"
                  "b"),
            (Strings{"a",
                     "\xef\xbb\xbf"
                     "b"}));
}

TEST(BpeTokenizer, WordsAlwaysConcatenateBackToTheTextEvenWhenItIsNotUtf8) {
  std::mt19937 rng(7);
  for (const char* pre : {"llama-bpe", "qwen2", "gpt-2", "default"}) {
    for (int i = 0; i < 200; ++i) {
      std::string text;
      for (int n = rng() % 24; n > 0; --n)
        text += static_cast<char>(rng() % 4 == 0 ? rng() % 256 : " a1.\n\xc3\xa9"[rng() % 7]);
      std::string joined;
      for (const std::string& w : Words(pre, text)) joined += w;
      EXPECT_EQ(joined, text) << pre;
    }
  }
}

// Qwen's tokenizer.json composes to NFC: e + U+0301 encodes as é does.
TEST(BpeTokenizer, QwenComposesToNfcBeforeSplitting) {
  Tokenizer qwen = Load("qwen2");
  EXPECT_EQ(qwen.Encode("e\xcc\x81", false, false), qwen.Encode("\xc3\xa9", false, false));
  Tokenizer llama3 = Load("llama-bpe");
  EXPECT_NE(llama3.Encode("e\xcc\x81", false, false), llama3.Encode("\xc3\xa9", false, false));
}

// llama.cpp splits the longest special spelling first over the whole text: "cabx" wins over an
// earlier-starting "ca", however few of the vocabulary's specials the text holds.
TEST(BpeTokenizer, SpecialTokensSplitLongestFirstAsLlamaCppDoes) {
  Tokenizer t = Load("qwen2");
  EXPECT_EQ(t.Encode("hecabx<tool><|end|>", false, true), (Ids{kHe, kCabx, kTool, kEnd}));
  EXPECT_EQ(t.Encode("ca<|end|>", false, false), (Ids{kCa, Byte('<'), Byte('|'), Byte('e'),
                                                      Byte('n'), Byte('d'), Byte('|'), Byte('>')}));
}

TEST(BpeTokenizer, PiecesAreTheBytesTheirStandInsSpell) {
  Tokenizer t = Load("qwen2");
  EXPECT_EQ(t.Piece(kGw), " w");
  EXPECT_EQ(t.Piece(Byte('\n')), "\n");
  EXPECT_EQ(t.Piece(kEnd), "");
  EXPECT_EQ(t.Piece(kEnd, true), "<|end|>");
  EXPECT_EQ(t.Piece(kTool), "<tool>");
  for (std::string text : {" hello world", "h\xc3\xa9llo \xf0\x9f\x98\x80!\n", "  two  spaces "}) {
    StreamDecoder d(t);
    std::string back;
    for (int32_t id : t.Encode(text, true, false)) back += d.Push(id);
    EXPECT_EQ(back + d.Flush(), text);  // no space prefix to drop for byte-level BPE
  }
}

TEST(BpeTokenizer, UnknownPreTokenizersAndBadMergesAreNamedErrors) {
  auto unknown = Load(BpeVocab("klingon"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(unknown.status().message(),
            "gguf: tokenizer.ggml.pre \"klingon\" is not a pre-tokenizer vt knows");
  auto bad = Load(BpeVocab("qwen2", {"h e", "hello"}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "gguf: tokenizer.ggml.merges[1] is not \"left right\"");
  GgufWriter none = BpeVocab("qwen2");
  none.Set("tokenizer.ggml.merges", GgufValue::Array(GgufType::kString, {}));
  EXPECT_TRUE(Load(none).ok());  // an empty merge list is a vocabulary of bytes, not an error
}

}  // namespace
}  // namespace vt
