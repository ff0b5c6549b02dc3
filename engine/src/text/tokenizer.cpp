#include "vt/tokenizer.h"

#include <algorithm>
#include <cstdio>

namespace vt {
namespace {

const std::string kSpace = "\xe2\x96\x81";  // ▁, SentencePiece's space

Status Bad(const std::string& what) { return Status(StatusCode::kInvalidArgument, "gguf: " + what); }

// GGUF writes these flags as bool; some converters used integers.
bool Flag(const GgufFile& file, const std::string& key, bool fallback) {
  const GgufValue* v = file.Find(key);
  if (!v) return fallback;
  if (const bool* b = std::get_if<bool>(&v->v)) return *b;
  auto i = v->AsInt();
  return i ? *i != 0 : fallback;
}

int32_t Id(const GgufFile& file, const std::string& key) {
  const GgufValue* v = file.Find(key);
  auto i = v ? v->AsInt() : std::nullopt;
  return i ? static_cast<int32_t>(*i) : -1;
}

// A piece of the input: text still to tokenize, or a special token already found in it.
struct Fragment {
  std::string text;
  int32_t token = -1;
};

}  // namespace

StatusOr<Tokenizer> Tokenizer::FromGguf(const GgufFile& file) {
  const GgufValue* model = file.Find("tokenizer.ggml.model");
  std::string name = model && model->AsString() ? *model->AsString() : "";
  if (name != "llama" && name != "gpt2") {
    return Status(StatusCode::kUnimplemented, "gguf: tokenizer.ggml.model \"" + name + "\" is not supported (only \"llama\" and \"gpt2\")");
  }
  const GgufValue* tokens = file.Find("tokenizer.ggml.tokens");
  if (!tokens || !tokens->AsArray()) return Bad("missing tokenizer.ggml.tokens");
  const GgufValue* scores = file.Find("tokenizer.ggml.scores");
  const GgufValue* types = file.Find("tokenizer.ggml.token_type");
  size_t n = tokens->AsArray()->size();
  if ((scores && (!scores->AsArray() || scores->AsArray()->size() != n)) || (types && (!types->AsArray() || types->AsArray()->size() != n))) {
    return Bad("tokenizer.ggml.scores and token_type must have one entry per token (" + std::to_string(n) + ")");
  }
  Tokenizer t;
  for (size_t i = 0; i < n; ++i) {
    const std::string* s = (*tokens->AsArray())[i].AsString();
    if (!s) return Bad("tokenizer.ggml.tokens[" + std::to_string(i) + "] is not a string");
    t.texts_.push_back(*s);
    t.scores_.push_back(scores ? static_cast<float>((*scores->AsArray())[i].AsFloat().value_or(0)) : 0.f);
    const int64_t code = types ? (*types->AsArray())[i].AsInt().value_or(-1) : 1;
    if (code < 0 || code > 6) return Bad("tokenizer.ggml.token_type[" + std::to_string(i) + "] is " + std::to_string(code) + ", not a token type (0-6)");
    t.types_.push_back(static_cast<TokenType>(code));
    t.ids_.emplace(*s, static_cast<int32_t>(i));  // the first of duplicate texts wins, as in llama.cpp
    TokenType type = t.types_.back();
    if (type == TokenType::kControl || type == TokenType::kUnknown || type == TokenType::kUserDefined) t.specials_.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(t.specials_.begin(), t.specials_.end(), [&](int32_t a, int32_t b) { return t.texts_[a].size() > t.texts_[b].size(); });
  for (size_t at = 0; at < t.specials_.size(); ++at) {
    const std::string& text = t.texts_[static_cast<size_t>(t.specials_[at])];
    if (text.empty() || !t.special_at_.emplace(text, at).second) continue;
    auto& lengths = t.special_lengths_[static_cast<unsigned char>(text[0])];
    if (lengths.empty() || lengths.back() != text.size()) lengths.push_back(text.size());
  }
  t.bos_ = Id(file, "tokenizer.ggml.bos_token_id");
  t.eos_ = Id(file, "tokenizer.ggml.eos_token_id");
  t.unk_ = Id(file, "tokenizer.ggml.unknown_token_id");
  // A special id past the vocabulary is refused here, not met as an out-of-range row later.
  for (const auto& [key, id] : {std::pair{"bos", t.bos_}, {"eos", t.eos_}, {"unknown", t.unk_}}) {
    if (id >= static_cast<int64_t>(n)) {
      return Bad(std::string("tokenizer.ggml.") + key + "_token_id " + std::to_string(id) + " is not a token id (the vocabulary has " +
                 std::to_string(n) + " tokens)");
    }
  }
  t.FindEog(file);
  t.add_bos_ = Flag(file, "tokenizer.ggml.add_bos_token", true);
  t.add_eos_ = Flag(file, "tokenizer.ggml.add_eos_token", false);
  // llama.cpp's defaults differ by model: SentencePiece prefixes a space, byte-level BPE does not.
  t.bpe_ = name == "gpt2";
  t.add_space_prefix_ = Flag(file, "tokenizer.ggml.add_space_prefix", !t.bpe_);
  if (t.bpe_) VT_RETURN_IF_ERROR(ReadMerges(file, &t));
  return t;
}

// llama.cpp's special_eog_ids (llama-vocab.cpp): the spellings it takes for an end of turn,
// the eos/eot/eom ids, and gpt-oss's exception (its <|end|> closes a message, not the turn).
void Tokenizer::FindEog(const GgufFile& file) {
  static const char* const kEnds[] = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>",
                                      "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>",
                                      "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>",
                                      "\xef\xbd\x9c" "end" "\xe2\x96\x81" "of" "\xe2\x96\x81" "sentence" "\xef\xbd\x9c"};  // DeepSeek's
  auto add = [&](int32_t id) {
    if (id >= 0 && id < static_cast<int32_t>(texts_.size()) && !IsEog(id)) eog_.push_back(id);
  };
  for (const char* end : kEnds) add(Find(end));
  add(eos_);
  add(Id(file, "tokenizer.ggml.eot_token_id"));
  add(Id(file, "tokenizer.ggml.eom_token_id"));
  const int32_t end = Find("<|end|>");
  if (Find("<|return|>") >= 0 && Find("<|call|>") >= 0 && end >= 0) {
    eog_.erase(std::remove(eog_.begin(), eog_.end(), end), eog_.end());
  }
}

int32_t Tokenizer::Find(const std::string& text) const {
  auto it = ids_.find(text);
  return it == ids_.end() ? -1 : it->second;
}

int32_t Tokenizer::ByteToken(unsigned char byte) const {
  char hex[7];
  std::snprintf(hex, sizeof hex, "<0x%02X>", byte);
  int32_t id = Find(hex);
  if (id < 0) id = Find(std::string(1, static_cast<char>(byte)));
  if (id < 0) id = unk_;
  return id >= 0 ? id : Lost(byte);
}

// The special tokens spelled somewhere in `text`, in specials_ order: only they can split it,
// so the partition below (one scan per token) runs over a handful instead of thousands.
std::vector<int32_t> Tokenizer::SpecialsIn(const std::string& text) const {
  std::vector<size_t> found;
  std::string_view view = text;
  for (size_t i = 0; i < text.size(); ++i) {
    for (size_t len : special_lengths_[static_cast<unsigned char>(text[i])]) {
      if (i + len > text.size()) continue;
      auto it = special_at_.find(view.substr(i, len));
      if (it != special_at_.end()) found.push_back(it->second);
    }
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::vector<int32_t> ids;
  for (size_t at : found) ids.push_back(specials_[at]);
  return ids;
}

namespace {

// Splits raw text around each special token's spelling, longest first (llama.cpp's
// tokenizer_st_partition); control and unknown tokens only when `parse_special`.
std::vector<Fragment> Partition(const std::string& text, const std::vector<int32_t>& specials,
                                const std::vector<std::string>& texts, const std::vector<TokenType>& types, bool parse_special) {
  std::vector<Fragment> parts = {{text, -1}};
  for (int32_t id : specials) {
    const std::string& s = texts[static_cast<size_t>(id)];
    if (s.empty() || (!parse_special && types[static_cast<size_t>(id)] != TokenType::kUserDefined)) continue;
    std::vector<Fragment> next;
    for (const Fragment& f : parts) {
      if (f.token >= 0) {
        next.push_back(f);
        continue;
      }
      size_t from = 0;
      for (size_t at; (at = f.text.find(s, from)) != std::string::npos; from = at + s.size()) {
        if (at > from) next.push_back({f.text.substr(from, at - from), -1});
        next.push_back({"", id});
      }
      if (from < f.text.size()) next.push_back({f.text.substr(from), -1});
    }
    parts = std::move(next);
  }
  return parts;
}

}  // namespace

std::vector<int32_t> Tokenizer::Encode(const std::string& text, bool add_special, bool parse_special, std::string* unencodable) const {
  std::vector<int32_t> out;
  if (add_special && add_bos_ && bos_ >= 0) out.push_back(bos_);
  bool after_special = true;  // the text's start counts: SentencePiece prefixes a space there
  for (const Fragment& f : Partition(text, SpecialsIn(text), texts_, types_, parse_special)) {
    if (f.token >= 0) {
      out.push_back(f.token);
      after_special = true;
      continue;
    }
    if (f.text.empty()) continue;  // empty input: no space prefix either, as llama.cpp
    std::string escaped = add_space_prefix_ && after_special ? " " + f.text : f.text;
    if (bpe_) {
      EncodeBpe(escaped, &out);
    } else {
      for (size_t at = 0; (at = escaped.find(' ', at)) != std::string::npos; at += kSpace.size()) escaped.replace(at, 1, kSpace);
      EncodeSpm(escaped, &out);
    }
    after_special = false;
  }
  if (add_special && add_eos_ && eos_ >= 0) out.push_back(eos_);
  // The encoders mark a byte with no token as Lost(byte); no id outside the vocabulary leaves.
  size_t kept = 0;
  for (int32_t id : out) {
    if (id >= 0) out[kept++] = id;
    else if (unencodable) *unencodable += static_cast<char>(-1 - id);
  }
  out.resize(kept);
  return out;
}

std::string Tokenizer::Piece(int32_t id, bool special) const {
  if (id < 0 || static_cast<size_t>(id) >= texts_.size()) return "";
  const std::string& text = texts_[static_cast<size_t>(id)];
  switch (types_[static_cast<size_t>(id)]) {
    case TokenType::kControl: return special ? text : "";
    case TokenType::kUnknown: return "\xe2\x96\x85";  // ▅, as llama.cpp prints an unknown token
    case TokenType::kUserDefined:
      if (bpe_) return text;
      break;  // SentencePiece's user-defined pieces (Gemma's "▁▁") spell spaces with ▁ too
    case TokenType::kByte: {
      unsigned byte = 0;
      return std::sscanf(text.c_str(), "<0x%2X>", &byte) == 1 ? std::string(1, static_cast<char>(byte)) : "";
    }
    default: break;
  }
  if (bpe_) return BpePiece(text);
  std::string piece = text;
  for (size_t at = 0; (at = piece.find(kSpace, at)) != std::string::npos;) piece.replace(at, kSpace.size(), " ");
  return piece;
}

std::string StreamDecoder::Push(int32_t id) {
  std::string piece = tokenizer_.Piece(id, special_);
  if (first_ && !piece.empty()) {
    if (tokenizer_.add_space_prefix() && piece[0] == ' ') piece.erase(0, 1);
    first_ = false;
  }
  pending_ += piece;
  // Hold back a trailing character whose bytes have not all arrived.
  size_t cut = pending_.size();
  for (size_t back = 1; back <= std::min<size_t>(3, pending_.size()); ++back) {
    unsigned char c = static_cast<unsigned char>(pending_[pending_.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: keep looking for the lead
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (need > back) cut = pending_.size() - back;
    break;
  }
  std::string ready = pending_.substr(0, cut);
  pending_.erase(0, cut);
  return ready;
}

std::string StreamDecoder::Flush() {
  std::string rest;
  rest.swap(pending_);
  return rest;
}

}  // namespace vt
