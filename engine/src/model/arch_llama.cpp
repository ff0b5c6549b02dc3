// llama (llama.cpp's src/models/llama.cpp): RMSNorm, RoPE in adjacent pairs (mode 0) with
// Llama 3's optional frequency factors, optional biases, a dense SwiGLU or a MoE FFN whose
// experts are feed_forward_length wide (Mixtral).
#include "architecture.h"

namespace vt {

const Architecture kLlamaArch = {
    .name = "llama",
    .rope_neox = false,
    .qk_norm = false,
    .qk_norm_whole = false,
    .pre_norms = true,
    .biases = true,
    .rope_freqs = true,
    .experts = Architecture::Experts::kOptional,
    .expert_ff_key = false,
    .fused_gate_up = false,
    .ffn = Architecture::Ffn::kSwiglu,
    .sandwich_norms = false,
    .embedding_scale = false,
    .attn_sinks = false,
    .oai_experts = false,
    .ffn_norm = "ffn_norm",
    .read_keys = nullptr,
};

}  // namespace vt
