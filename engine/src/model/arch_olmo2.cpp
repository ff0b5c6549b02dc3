// olmo2 (llama.cpp's src/models/olmo2.cpp; OLMo 2, and Olmo 3 whose files say olmo2 too): no
// norm before the attention or the FFN; their outputs are normalised instead, before each
// residual add (post_attention_norm, post_ffw_norm); Q and K each RMS-normalised over all of
// their heads at once, then RoPE rotating halves (NEOX). Olmo 3 adds sliding windows on all but
// every 4th layer, rotating with the global base unless rope.freq_base_swa says.
#include "architecture.h"
#include "vt/model.h"

namespace vt {
namespace {

Status ReadOlmo2Keys(const GgufFile& f, Hparams* hp) {
  return ReadSlidingWindow(f, "olmo2", 4, hp->rope_freq_base, hp);
}

}  // namespace

const Architecture kOlmo2Arch = {
    .name = "olmo2",
    .rope_neox = true,
    .qk_norm = false,
    .qk_norm_whole = true,
    .pre_norms = false,
    .biases = false,
    .rope_freqs = false,
    .experts = Architecture::Experts::kNone,
    .expert_ff_key = false,
    .fused_gate_up = false,
    .ffn = Architecture::Ffn::kSwiglu,
    .sandwich_norms = true,
    .embedding_scale = false,
    .attn_sinks = false,
    .oai_experts = false,
    .ffn_norm = "ffn_norm",
    .read_keys = ReadOlmo2Keys,
};

}  // namespace vt
