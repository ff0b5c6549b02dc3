// gpt-oss (llama.cpp's src/models/openai-moe.cpp; its files say "gpt-oss"): every layer a MoE
// whose router and experts carry biases and whose experts gate with the clamped SwiGLU
// (OpKind::kSwigluOai), softmax over the chosen experts' logits; attention with Q/K/V and
// output biases and a sink logit per head; RoPE rotating halves (NEOX), YaRN-scaled on every
// layer, windowed or not; a window of <arch>.attention.sliding_window on all but every 2nd
// layer. The FFN's norm is stored as post_attention_norm.
#include "architecture.h"
#include "vt/model.h"

namespace vt {
namespace {

Status ReadGptOssKeys(const GgufFile& f, Hparams* hp) {
  VT_RETURN_IF_ERROR(ReadSlidingWindow(f, "gpt-oss", 2, hp->rope_freq_base, hp));
  if (hp->n_swa == 0) {  // llama.cpp requires the key, and a window of 0 would mask every key
    return Status(StatusCode::kInvalidArgument, "gguf: gpt-oss.attention.sliding_window must be given and positive");
  }
  hp->rope_freq_scale_swa = hp->rope_freq_scale;  // llama.cpp: the windowed layers' scale is the trained one
  hp->swa_yarn = true;
  return Status();
}

}  // namespace

const Architecture kGptOssArch = {
    .name = "gpt-oss",
    .rope_neox = true,
    .qk_norm = false,
    .qk_norm_whole = false,
    .pre_norms = true,
    .biases = true,
    .rope_freqs = false,
    .experts = Architecture::Experts::kRequired,
    .expert_ff_key = true,
    .fused_gate_up = false,
    .ffn = Architecture::Ffn::kSwiglu,
    .sandwich_norms = false,
    .embedding_scale = false,
    .attn_sinks = true,
    .oai_experts = true,
    .ffn_norm = "post_attention_norm",
    .read_keys = ReadGptOssKeys,
};

}  // namespace vt
