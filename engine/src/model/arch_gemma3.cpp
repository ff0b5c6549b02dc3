// gemma3 (llama.cpp's src/models/gemma3.cpp; Gemma 3): the token embedding times √n_embd;
// per-head RMSNorm of Q and K, then RoPE rotating halves (NEOX); sandwich norms (the
// attention's and the FFN's outputs each normalised before their residual adds); a GELU-gated
// FFN; sliding-window attention on all but every sliding_window_pattern-th layer, those
// layers rotating with their own base; optional final logit soft-capping.
#include <cmath>

#include "architecture.h"
#include "vt/model.h"

namespace vt {
namespace {

Status Bad(const std::string& key, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "gguf: gemma3." + key + " " + what);
}

Status ReadGemma3Keys(const GgufFile& f, Hparams* hp) {
  // Windowed layers: all but every 6th unless the key says; base 10000 unless it says.
  VT_RETURN_IF_ERROR(ReadSlidingWindow(f, "gemma3", 6, 10000.0f, hp));
  if (const GgufValue* cap = f.Find("gemma3.final_logit_softcapping")) {
    if (!cap->AsFloat() || !(*cap->AsFloat() >= 0) || std::isinf(*cap->AsFloat())) return Bad("final_logit_softcapping", "must be a non-negative number");
    hp->logit_softcap = static_cast<float>(*cap->AsFloat());
  }
  // Gemma's query_pre_attn_scalar: n_embd / n_head for the 27B model (62 layers), the head
  // size for the others; llama.cpp decides it by the layer count, and so does vt.
  const double per_head = hp->n_layer == 62 ? static_cast<double>(hp->n_embd / hp->n_head) : static_cast<double>(hp->head_dim());
  hp->attention_scale = 1.0f / std::sqrt(static_cast<float>(per_head));
  return Status();
}

}  // namespace

const Architecture kGemma3Arch = {
    .name = "gemma3",
    .rope_neox = true,
    .qk_norm = true,
    .qk_norm_whole = false,
    .pre_norms = true,
    .biases = false,
    .rope_freqs = false,
    .experts = Architecture::Experts::kNone,
    .expert_ff_key = false,
    .fused_gate_up = false,
    .ffn = Architecture::Ffn::kGeglu,
    .sandwich_norms = true,
    .embedding_scale = true,
    .attn_sinks = false,
    .oai_experts = false,
    .ffn_norm = "ffn_norm",
    .read_keys = ReadGemma3Keys,
};

}  // namespace vt
