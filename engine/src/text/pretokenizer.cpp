// PCRE2 runs the pre-tokenizer regexes: they need Unicode categories (\p{L}, \p{N}), Unicode
// \s and a lookahead, which std::regex lacks. This is the only file that includes PCRE2.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "vt/pretokenizer.h"

#include <pcre2.h>

#include <map>

namespace vt {
namespace {

// The patterns of tokenizer.json's Split pre-tokenizers (llama.cpp: llm_tokenizer_bpe).
const char* const kLlama3 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kQwen2 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kGpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
// o200k (gpt-oss, Llama 4): a word is an optional non-letter, then upper-case letters and lower-case
// ones in either order of preference (so "HelloWorld" is two words), with the contraction kept on it.
const char* const kGpt4o =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
    "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// A family: its regexes in order, whether a whole word is looked up before merging (tokenizer.json's
// ignore_merges, which llama.cpp sets for the llama3 names only), whether text is composed to NFC.
struct Family {
  std::vector<const char*> regexes;
  bool ignore_merges = false, nfc = false;
};

const std::map<std::string, Family>& Known() {
  static const std::map<std::string, Family> known = [] {
    std::map<std::string, Family> m;
    for (const char* n : {"llama3", "llama-v3", "llama-bpe", "falcon3", "pixtral"}) m[n] = {{kLlama3}, true};
    // cl100k's regex is llama3's; llama.cpp merges these (Phi-4's and OLMo 2's files name dbrx).
    for (const char* n : {"dbrx", "smaug-bpe"}) m[n] = {{kLlama3}};
    for (const char* n : {"qwen2", "deepseek-r1-qwen", "megrez"}) m[n] = {{kQwen2}, false, true};
    for (const char* n : {"gpt-4o", "llama4"}) m[n] = {{kGpt4o}, true};
    for (const char* n : {"gpt-2", "phi-2", "roberta-bpe", "jina-es", "jina-de", "jina-v1-en", "jina-v2-es",
                          "jina-v2-de", "smollm", "codeshell"}) {
      m[n] = {{kGpt2}};
    }
    // llama.cpp's "default": punctuation runs first, then GPT-2's words, then digits in threes.
    m["default"] = {{"[\\p{P}\\$\\+<=>\\^~\\|]+", kGpt2, "\\p{N}+", "[0-9][0-9][0-9]"}};
    return m;
  }();
  return known;
}

}  // namespace

std::string PreTokenizer::NameForPattern(const std::string& regex) {
  if (regex == kLlama3) return "llama-bpe";
  if (regex == kQwen2) return "qwen2";
  if (regex == kGpt2) return "gpt-2";
  if (regex == kGpt4o) return "gpt-4o";
  return "";
}

struct PreTokenizer::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

PreTokenizer::~PreTokenizer() = default;

StatusOr<std::shared_ptr<const PreTokenizer>> PreTokenizer::ForName(const std::string& pre) {
  auto found = Known().find(pre.empty() ? "default" : pre);
  if (found == Known().end()) {
    return Status(StatusCode::kUnimplemented, "gguf: tokenizer.ggml.pre \"" + pre + "\" is not a pre-tokenizer vt knows");
  }
  std::shared_ptr<PreTokenizer> p(new PreTokenizer());
  p->name_ = found->first;
  p->ignore_merges_ = found->second.ignore_merges;
  p->nfc_ = found->second.nfc;
  for (const char* pattern : found->second.regexes) {
    int error = 0;
    PCRE2_SIZE at = 0;
    // Invalid UTF-8 in the input never matches and so stays in a gap of its own.
    auto c = std::make_unique<Compiled>();
    c->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                            PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error, &at, nullptr);
    if (!c->code) return Status(StatusCode::kInternal, "pre-tokenizer regex failed to compile at " + std::to_string(at));
    pcre2_jit_compile(c->code, PCRE2_JIT_COMPLETE);  // without JIT (not built in) matching still works
    p->regexes_.push_back(std::move(c));
  }
  return std::shared_ptr<const PreTokenizer>(std::move(p));
}

std::vector<std::string_view> PreTokenizer::Split(std::string_view text) const {
  std::vector<std::string_view> pieces = {text};
  for (const auto& regex : regexes_) {
    pcre2_match_data* md = pcre2_match_data_create_from_pattern(regex->code, nullptr);
    std::vector<std::string_view> next;
    for (std::string_view piece : pieces) {
      auto subject = reinterpret_cast<PCRE2_SPTR>(piece.data());
      size_t from = 0, gap = 0;
      while (from < piece.size() && pcre2_match(regex->code, subject, piece.size(), from, 0, md, nullptr) > 0) {
        PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
        if (ov[1] == ov[0]) {  // no pattern here matches empty, but never loop if one did
          from = ov[1] + 1;
          continue;
        }
        if (ov[0] > gap) next.push_back(piece.substr(gap, ov[0] - gap));
        next.push_back(piece.substr(ov[0], ov[1] - ov[0]));
        from = gap = ov[1];
      }
      if (gap < piece.size()) next.push_back(piece.substr(gap));
    }
    pcre2_match_data_free(md);
    pieces = std::move(next);
  }
  return pieces;
}

}  // namespace vt
