// qwen2 (llama.cpp's src/models/qwen2.cpp; Qwen2 and Qwen2.5): llama's graph with RoPE
// rotating halves (NEOX) and biases on Q, K and V.
#include "architecture.h"

namespace vt {

const Architecture kQwen2Arch = {
    .name = "qwen2",
    .rope_neox = true,
    .qk_norm = false,
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
