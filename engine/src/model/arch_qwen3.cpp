// qwen3 (llama.cpp's src/models/qwen3.cpp): Q and K each get a per-head RMSNorm
// (attn_q_norm, attn_k_norm, head-size weights) before RoPE, which rotates halves (NEOX).
#include "architecture.h"

namespace vt {

const Architecture kQwen3Arch = {
    .name = "qwen3",
    .rope_neox = true,
    .qk_norm = true,
    .qk_norm_whole = false,
    .pre_norms = true,
    .biases = false,
    .rope_freqs = false,
    .experts = Architecture::Experts::kNone,
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
