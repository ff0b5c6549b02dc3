#include "vt/generate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace vt {

int32_t GreedyToken(const std::vector<float>& logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

StatusOr<Generation> Generate(LlamaModel& model, KvCache& cache, const std::vector<int32_t>& prompt, int n,
                              const TokenSampler& sample, const std::function<bool(int32_t)>& on_token) {
  using Clock = std::chrono::steady_clock;
  Generation g;
  g.prompt_tokens = static_cast<int64_t>(prompt.size());
  if (n <= 0) return g;
  auto start = Clock::now();
  auto logits = model.Forward(prompt, cache);
  if (!logits.ok()) return logits.status();
  g.prompt_s = std::chrono::duration<double>(Clock::now() - start).count();
  int32_t next = sample(logits.value());
  g.tokens.push_back(next);
  bool more = !on_token || on_token(next);
  start = Clock::now();
  for (int i = 1; i < n && more; ++i) {
    logits = model.Forward({next}, cache);
    if (!logits.ok()) return logits.status();
    next = sample(logits.value());
    g.tokens.push_back(next);
    more = !on_token || on_token(next);
  }
  g.decode_s = std::chrono::duration<double>(Clock::now() - start).count();
  return g;
}

StatusOr<ByteVocab> ByteVocab::FromGguf(const GgufFile& file) {
  const GgufValue* tokens = file.Find("tokenizer.ggml.tokens");
  if (!tokens || !tokens->AsArray()) return Status(StatusCode::kInvalidArgument, "gguf: missing tokenizer.ggml.tokens");
  ByteVocab v;
  std::fill(std::begin(v.byte_ids_), std::end(v.byte_ids_), -1);
  for (const GgufValue& t : *tokens->AsArray()) {
    const std::string* s = t.AsString();
    std::string piece = s ? *s : "";
    unsigned byte = 0;
    int32_t id = static_cast<int32_t>(v.pieces_.size());
    if (piece.size() == 6 && std::sscanf(piece.c_str(), "<0x%2X>", &byte) == 1) {
      v.byte_ids_[byte] = id;
      piece = std::string(1, static_cast<char>(byte));
    }
    for (size_t at; (at = piece.find("\xe2\x96\x81")) != std::string::npos;) piece.replace(at, 3, " ");  // ▁
    v.pieces_.push_back(piece);
  }
  if (const GgufValue* b = file.Find("tokenizer.ggml.bos_token_id")) v.bos_ = static_cast<int32_t>(b->AsInt().value_or(-1));
  if (const GgufValue* e = file.Find("tokenizer.ggml.eos_token_id")) v.eos_ = static_cast<int32_t>(e->AsInt().value_or(-1));
  return v;
}

StatusOr<std::vector<int32_t>> ByteVocab::Encode(const std::string& text) const {
  std::vector<int32_t> ids;
  for (unsigned char c : text) {
    if (byte_ids_[c] < 0) {
      return Status(StatusCode::kUnimplemented, "this vocabulary has no byte token for 0x" + std::to_string(c) +
                                                    " (real tokenizers arrive with the tokenizer issue)");
    }
    ids.push_back(byte_ids_[c]);
  }
  return ids;
}

std::string ByteVocab::Decode(int32_t id) const {
  if (id < 0 || id >= static_cast<int32_t>(pieces_.size()) || id == bos_ || id == eos_) return "";
  return pieces_[id];
}

}  // namespace vt
