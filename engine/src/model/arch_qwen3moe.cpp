// qwen3moe (llama.cpp's src/models/qwen3moe.cpp; Qwen3-30B-A3B): qwen3's attention, and in
// every layer a MoE FFN with softmax routing over the experts, the chosen ones' weights
// renormalised, each expert expert_feed_forward_length wide.
#include "architecture.h"

namespace vt {

const Architecture kQwen3MoeArch = {
    .name = "qwen3moe",
    .rope_neox = true,
    .qk_norm = true,
    .qk_norm_whole = false,
    .pre_norms = true,
    .biases = false,
    .rope_freqs = false,
    .experts = Architecture::Experts::kRequired,
    .expert_ff_key = true,
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
