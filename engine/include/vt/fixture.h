// Deterministic tiny llama models for tests and benchmarks (what vt-fixture writes).
#pragma once

#include <cstdint>
#include <string>

#include "vt/gguf.h"

namespace vt {

struct FixtureSpec {
  // general.architecture, and the prefix of its keys: llama, qwen2, qwen3 (per-head Q/K norms,
  // gains near 2 so attention is sharp enough that a wrong RoPE changes tokens), qwen3moe or
  // phi3 (the FFN's gate and up in one ffn_up.weight) or gemma3 (its embedding drawn at
  // 1/√dim, which the model scales back by √dim; sandwich norms; RoPE base 1e6 as Gemma 3's)
  // or olmo2 (post-norms only; Q/K norms over all heads, gains near qk_norm_gain too).
  std::string arch = "llama";
  float qk_norm_gain = 2.0f;              // qwen3's attn_q_norm/attn_k_norm weights: this, ± 0.2
  int64_t layers = 2, dim = 64, heads = 4, kv_heads = 2, ff = 128, ctx = 512;
  int64_t experts = 0, experts_used = 2;  // experts > 0: a MoE model
  DType dtype = DType::kF32;              // matrices; norms stay f32 as llama.cpp writes them
  uint64_t seed = 1;
  bool tied_output = false;               // no output.weight: the embedding is reused
  bool text_vocab = false;                // whole-text pieces instead of byte tokens (no vocab)
  int64_t head_dim = 0;                   // > 0: llama.attention.key_length/value_length (else dim / heads)
  bool rope_freqs = false;                // a rope_freqs.weight of Llama 3's kind (factors 1 to 8)
  bool biases = false;                    // attention biases, and the dense FFN's
  bool fused_qkv = false;                 // one attn_qkv.weight (and bias) instead of three
  // gemma3, olmo2: > 0 writes <arch>.attention.sliding_window, and swa_pattern > 0 its
  // sliding_window_pattern (else unwritten: llama.cpp's 6 for gemma3, 4 for olmo2).
  int64_t sliding_window = 0, swa_pattern = 0;
  float rope_scale = 0;                   // > 0: <arch>.rope.scaling linear by this factor
  bool yarn = false;                      // ... by YaRN instead, trained at 4096 positions
  float logit_softcap = 0;                // gemma3: > 0 writes final_logit_softcapping
  // A real vocabulary: its tokenizer.* keys are copied and the embedding has one row per token.
  const GgufFile* vocab = nullptr;
};

inline constexpr int32_t kFixtureBos = 256;
inline constexpr int32_t kFixtureEos = 257;

// A byte vocabulary (<0x00>..<0xFF>, <s>, </s>) unless `vocab` is given, and weights drawn from a seeded normal
// distribution scaled by 1/sqrt(fan-in). The EOS row of the output matrix is zero, so greedy
// generation does not stop early.
GgufWriter MakeFixture(const FixtureSpec& spec);

}  // namespace vt
