// Text ↔ token ids for the vocabulary a GGUF file carries (tokenizer.ggml.*), following
// llama.cpp's tokenizer: special tokens split out of the text first, then SentencePiece-style
// merges by score for `llama` vocabularies (with byte fallback), or byte-level BPE by merge rank
// within the pre-tokenizer's words for `gpt2` vocabularies.
#pragma once

#include <algorithm>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vt/gguf.h"
#include "vt/status.h"

namespace vt {

enum class TokenType : int32_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

class PreTokenizer;

class Tokenizer {
 public:
  // kUnimplemented for vocabularies other than "llama" (SentencePiece) and "gpt2" (byte-level
  // BPE), naming the model, and for pre-tokenizer names vt has no regexes for.
  static StatusOr<Tokenizer> FromGguf(const GgufFile& file);

  // `add_special`: BOS/EOS as the vocabulary asks (add_bos_token, add_eos_token);
  // `parse_special`: text spelling a control token becomes that token (user-defined tokens
  // always do, as in llama.cpp). Every id is in the vocabulary: a byte with no token (no
  // <0xNN>, no one-byte piece, no unknown token) is left out, and appended to `unencodable`.
  std::vector<int32_t> Encode(const std::string& text, bool add_special, bool parse_special,
                              std::string* unencodable = nullptr) const;
  // The bytes one token stands for: "▁" as a space, <0xNN> as its byte, a byte-level BPE token
  // as the bytes its characters stand for, control tokens as nothing unless `special`.
  std::string Piece(int32_t id, bool special = false) const;

  int32_t bos() const { return bos_; }
  int32_t eos() const { return eos_; }
  // Whether `id` ends a generation: eos, eot, eom, or a token spelled as an end of turn
  // (specs/tokenizer.md), as llama.cpp's special_eog_ids; eog() lists them.
  bool IsEog(int32_t id) const { return std::find(eog_.begin(), eog_.end(), id) != eog_.end(); }
  const std::vector<int32_t>& eog() const { return eog_; }
  bool add_space_prefix() const { return add_space_prefix_; }
  size_t size() const { return texts_.size(); }
  int32_t Find(const std::string& text) const;  // the token spelled `text` (the first such), or -1
  const std::string& text(int32_t id) const { return texts_[static_cast<size_t>(id)]; }  // as the file spells it
  TokenType type(int32_t id) const { return types_[static_cast<size_t>(id)]; }

 private:
  friend class SpmSession;
  friend class BpeSession;
  static Status ReadMerges(const GgufFile& file, Tokenizer* t);
  void EncodeSpm(const std::string& text, std::vector<int32_t>* out) const;
  void EncodeBpe(const std::string& text, std::vector<int32_t>* out) const;
  std::string BpePiece(const std::string& text) const;
  int32_t ByteToken(unsigned char byte) const;  // or Lost(byte)
  static int32_t Lost(unsigned char byte) { return -1 - static_cast<int32_t>(byte); }

  std::vector<std::string> texts_;
  std::vector<float> scores_;
  std::vector<TokenType> types_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<int32_t> specials_;  // control, unknown and user-defined tokens, longest text first
  // Which of them a text holds, found in one pass (Gemma has 6000+ user-defined tokens):
  // spelling → position in specials_, and the distinct spelling lengths, longest first.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> special_at_;
  std::array<std::vector<size_t>, 256> special_lengths_;  // by first byte
  std::vector<int32_t> SpecialsIn(const std::string& text) const;
  // gpt2: (left id << 32 | right id) → (rank, merged id); the words' splitter.
  std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges_;
  std::shared_ptr<const PreTokenizer> pre_;
  bool bpe_ = false, ignore_merges_ = false;
  int32_t bos_ = -1, eos_ = -1, unk_ = -1;
  std::vector<int32_t> eog_;
  void FindEog(const GgufFile& file);
  bool add_bos_ = true, add_eos_ = false, add_space_prefix_ = true;
};

// Decodes a stream of tokens into text that is always whole UTF-8: bytes of a character split
// across byte tokens are held back until it is complete. Drops the space SentencePiece put in
// front of the first word.
class StreamDecoder {
 public:
  // `special`: control tokens come out as their text (a parser of them reads it), else nothing.
  explicit StreamDecoder(const Tokenizer& tokenizer, bool special = false) : tokenizer_(tokenizer), special_(special) {}
  std::string Push(int32_t id);
  std::string Flush();  // whatever is held back (an incomplete character, as bytes)

 private:
  const Tokenizer& tokenizer_;
  bool special_;
  std::string pending_;
  bool first_ = true;
};

}  // namespace vt
