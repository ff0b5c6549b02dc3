// phi3 (llama.cpp's src/models/phi3.cpp; Phi-3 and Phi-4): llama's graph with RoPE rotating
// halves (NEOX), Q/K/V usually fused in one attn_qkv.weight, and the FFN's gate and up fused
// in one ffn_up.weight of 2·n_ff rows (gate first: ggml's swiglu of its halves). llama.cpp
// runs it without a sliding window (phi3.attention.sliding_window is read and switched off),
// and so does vt; the long/short RoPE factors of the 128k variants are not read (refused).
#include "architecture.h"

namespace vt {

const Architecture kPhi3Arch = {
    .name = "phi3",
    .rope_neox = true,
    .qk_norm = false,
    .qk_norm_whole = false,
    .pre_norms = true,
    .biases = false,
    .rope_freqs = false,
    .experts = Architecture::Experts::kNone,
    .expert_ff_key = false,
    .fused_gate_up = true,
    .ffn = Architecture::Ffn::kSwiglu,
    .sandwich_norms = false,
    .embedding_scale = false,
    .attn_sinks = false,
    .oai_experts = false,
    .ffn_norm = "ffn_norm",
    .read_keys = nullptr,
};

}  // namespace vt
