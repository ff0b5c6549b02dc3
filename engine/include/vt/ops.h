// The operations every backend may implement, with ggml's semantics.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vt/status.h"
#include "vt/tensor.h"

namespace vt {

enum class OpKind {
  kMatmul,     // out[N,M] = w[K,N]ᵀ·x[K,M] per batch; w f32/f16/bf16, x f32; w broadcast over ne2/ne3
  kAdd,        // out = a + b, b broadcast over rows
  kMul,        // out = a * b, b broadcast over rows
  kScale,      // out = a * scale
  kRmsNorm,    // out = a / sqrt(mean(a²) + eps) per row
  kRope,       // a[hd,heads,T] rotated by pos[T]: adjacent pairs (llama.cpp mode 0), or with
               // params.rope_neox the pairs (j, j + n_dims/2) (mode NEOX: Qwen, Gemma, Phi)
  kSoftmax,    // softmax(a*scale + mask) per row; mask optional [ne0, ne1]
  kSilu,       // a * sigmoid(a)
  kSwiglu,     // silu(a) * b
  kGetRows,    // out[K,n] = table[K,V] rows ids[n] (i32), table f32/f16/bf16
  kTopK,       // out[k,T] i32: indices of the k largest of each row, descending
  kAttention,  // q[hd,H,T] over k/v cache [hd,Hkv,ctx] (f32/f16), causal from n_past; then
               // optional inputs (AttentionExtras): sinks[H] f32, a logit per head in each
               // softmax on no value; rows[n_past + T] i32, where position j's key and value
               // are row rows[j] of k and v (a paged cache's block table; absent: row j)
  kCopy,       // out = a converted to params.out_dtype (f32/f16/bf16), same shape
  // A MoE layer's routed experts: out[d,T] = Σ_j weights[j,t] · down[ids[j,t]]ᵀ·swiglu(
  // gate[ids[j,t]]ᵀ·x_t, up[ids[j,t]]ᵀ·x_t). src: x[d,T] f32, ids[k,T] i32, weights[k,T] f32,
  // gate[d,f,E], up[d,f,E], down[f,d,E] (matmul weight types). Optional: a backend without it
  // runs the expert loop of single ops (vt/placement.h).
  kExperts,
  kGeglu,      // gelu(a) * b, GELU by its tanh form (ggml_geglu; Gemma's FFN)
  kSwigluOai,  // x·σ(alpha·x)·(y + 1), x = min(a, limit), y = clamp(b, ±limit) (gpt-oss's experts)
};

std::string_view OpName(OpKind kind);

// Attention's optional inputs after q, k and v, told apart by dtype (sinks f32, rows i32).
struct AttentionExtras {
  const Tensor* sinks = nullptr;
  const Tensor* rows = nullptr;
};
AttentionExtras AttentionExtrasOf(const std::vector<const Tensor*>& src);
// Experts: token `token`'s id `id` names none of the `experts` (ids are data, read by each
// backend that runs the op; every one says so in these words).
Status ExpertIdError(int64_t token, int64_t id, int64_t experts);  // "Matmul", "Add", ...

struct OpParams {
  float eps = 1e-5f;         // RmsNorm
  float scale = 1.0f;        // Scale, Softmax, Attention (0: 1/sqrt(hd))
  float freq_base = 10000;   // Rope
  float freq_scale = 1;      // Rope
  int n_dims = 0;            // Rope: rotated dims (0: all of ne0)
  bool rope_neox = false;    // Rope: pair j is (j, j + n_dims/2), not (2j, 2j + 1)
  // Rope: n_dims/2 divisors of the pairs' frequencies (Llama 3's rope_freqs.weight, ggml's
  // freq_factors), in host memory that outlives the op; null: none.
  const float* freq_factors = nullptr;
  // Rope, YaRN (ggml's rope_yarn): ext_factor > 0 mixes each pair's interpolated (freq_scale)
  // and extrapolated angle by its ramp between the correction dims of n_ctx_orig, beta_fast
  // and beta_slow, and then scales every rotated value by 1 + 0.1·ln(1/freq_scale); mscale
  // scales them always (llama.cpp's attn_factor).
  float ext_factor = 0, beta_fast = 32, beta_slow = 1, mscale = 1;
  int n_ctx_orig = 0;
  int k = 1;                 // TopK
  int n_past = 0;            // Attention: cache entries before the first query
  // Attention: > 0, the query at position p sees only keys p - window < j <= p (a sliding
  // window, llama.cpp's LLAMA_SWA_TYPE_STANDARD); 0, the whole prefix.
  int window = 0;
  float alpha = 1.702f, limit = 7.0f;  // SwigluOai (llama.cpp's gpt-oss graph passes these)
  DType out_dtype = DType::kF32;  // Copy
};

struct Op {
  OpKind kind;
  std::vector<const Tensor*> src;  // inputs, in the order the comment above names them
  Tensor* out = nullptr;
  OpParams params;
};

// Rope's angle per position for rotated pair `pair` of `n_dims`: freq_scale *
// freq_base^(-2 pair / n_dims) / freq_factors[pair], or with YaRN its mix of that and the
// unscaled angle, in double (every backend's table).
double RopeFrequency(const OpParams& p, int64_t n_dims, int64_t pair);
// What every rotated value is multiplied by: mscale, times YaRN's 1 + 0.1·ln(1/freq_scale).
double RopeMagnitude(const OpParams& p);

// Shapes, dtypes and devices are consistent: kInvalidArgument naming the op and tensor if not.
Status ValidateOp(const Op& op);

// The output shape and dtype an op produces from its inputs.
StatusOr<Tensor> OutputSpec(OpKind kind, const std::vector<const Tensor*>& src, const OpParams& params);

}  // namespace vt
