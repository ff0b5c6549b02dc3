// Text ↔ token ids for the vocabulary a GGUF file carries (tokenizer.ggml.*), following
// llama.cpp's tokenizer: SentencePiece-style merges by score for `llama` vocabularies (with
// byte fallback), special tokens split out of the text first.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "vt/gguf.h"
#include "vt/status.h"

namespace vt {

enum class TokenType : int32_t { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

class Tokenizer {
 public:
  // kUnimplemented for vocabularies other than "llama" (SentencePiece), naming the model.
  static StatusOr<Tokenizer> FromGguf(const GgufFile& file);

  // `add_special`: BOS/EOS as the vocabulary asks (add_bos_token, add_eos_token);
  // `parse_special`: text spelling a control token becomes that token (user-defined tokens
  // always do, as in llama.cpp).
  std::vector<int32_t> Encode(const std::string& text, bool add_special, bool parse_special) const;
  // The bytes one token stands for: "▁" as a space, <0xNN> as its byte, control tokens as
  // nothing unless `special`.
  std::string Piece(int32_t id, bool special = false) const;

  int32_t bos() const { return bos_; }
  int32_t eos() const { return eos_; }
  bool add_space_prefix() const { return add_space_prefix_; }
  size_t size() const { return texts_.size(); }
  TokenType type(int32_t id) const { return types_[static_cast<size_t>(id)]; }

 private:
  friend class SpmSession;
  void EncodeSpm(const std::string& text, std::vector<int32_t>* out) const;
  int32_t ByteToken(unsigned char byte) const;
  int32_t Find(const std::string& text) const;

  std::vector<std::string> texts_;
  std::vector<float> scores_;
  std::vector<TokenType> types_;
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<int32_t> specials_;  // control, unknown and user-defined tokens, longest text first
  int32_t bos_ = -1, eos_ = -1, unk_ = -1;
  bool add_bos_ = true, add_eos_ = false, add_space_prefix_ = true;
};

// Decodes a stream of tokens into text that is always whole UTF-8: bytes of a character split
// across byte tokens are held back until it is complete. Drops the space SentencePiece put in
// front of the first word.
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
  std::string Push(int32_t id);
  std::string Flush();  // whatever is held back (an incomplete character, as bytes)

 private:
  const Tokenizer& tokenizer_;
  std::string pending_;
  bool first_ = true;
};

}  // namespace vt
