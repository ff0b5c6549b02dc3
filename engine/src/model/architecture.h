// The architectures vt runs, by GGUF's `general.architecture`: what each one's graph in the
// pinned llama.cpp (src/models/<arch>.cpp) does differently from llama's. Each is defined in a
// file of its own (arch_<name>.cpp); the forward pass composes the shared blocks as it says.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vt/status.h"

namespace vt {

class GgufFile;
struct Hparams;

struct Architecture {
  enum class Experts { kNone, kOptional, kRequired };
  enum class Ffn { kSwiglu, kGeglu };  // the dense FFN's gating: silu(gate)·up or gelu(gate)·up
  const char* name;      // general.architecture, and the prefix of its keys ("qwen3.block_count")
  bool rope_neox;        // RoPE rotates pairs (j, j + n_rot/2): llama.cpp's LLAMA_ROPE_TYPE_NEOX
  bool qk_norm;          // attn_q_norm / attn_k_norm: per-head RMSNorm of Q and K before RoPE
  bool qk_norm_whole;    // ... over all of Q's heads at once, and of K's (olmo2), not per head
  bool pre_norms;        // attn_norm / ffn_norm before each block (all but olmo2)
  bool biases;           // the output projection's and dense FFN's optional biases (Q/K/V's
                         // are optional in every architecture, as llama.cpp's create_tensor_qkv)
  bool rope_freqs;       // a rope_freqs.weight divides the pairs' frequencies (Llama 3's)
  Experts experts;       // MoE layers: none, either, or only
  bool expert_ff_key;    // <arch>.expert_feed_forward_length gives the experts' width
  bool fused_gate_up;    // the dense FFN's gate and up are one ffn_up.weight, gate rows first
  Ffn ffn;
  bool sandwich_norms;   // attn_post_norm / ffn_post_norm: each block's output normalised
                         // before its residual add (Gemma)
  bool embedding_scale;  // the token embedding times √n_embd (Gemma)
  bool attn_sinks;       // blk.N.attn_sinks.weight: a logit per head in each softmax (gpt-oss)
  bool oai_experts;      // the router's and experts' biases and the clamped SwiGLU (gpt-oss)
  const char* ffn_norm;  // the FFN's norm tensor ("ffn_norm"; gpt-oss: "post_attention_norm")
  // Keys of the architecture's own (llama.cpp's load_arch_hparams), read after the shared
  // ones; null: none.
  Status (*read_keys)(const GgufFile& f, Hparams* hp);
};

// <arch>.attention.sliding_window and what goes with a window (gemma3's and olmo2's keys):
// `period` where no scalar sliding_window_pattern gives it, `base` for the windowed layers'
// RoPE where no rope.freq_base_swa does.
Status ReadSlidingWindow(const GgufFile& f, const std::string& arch, int64_t period, float base, Hparams* hp);

extern const Architecture kLlamaArch, kQwen2Arch, kQwen3Arch, kQwen3MoeArch, kPhi3Arch, kGemma3Arch, kOlmo2Arch, kGptOssArch;

// The architecture named `name`, or null.
const Architecture* FindArchitecture(std::string_view name);
// Every supported name, in registry order ("llama, qwen2, ...").
std::string SupportedArchitectures();

}  // namespace vt
