#include "vt/ops.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace vt {

namespace {

// YaRN's correction dim for beta rotations over n_ctx_orig (ggml_rope_yarn_corr_dim).
double YarnCorrDim(const OpParams& p, int64_t n_dims, double beta) {
  return static_cast<double>(n_dims) * std::log(p.n_ctx_orig / (beta * 2 * std::numbers::pi)) / (2 * std::log(static_cast<double>(p.freq_base)));
}

// The share of pair j's angle left unscaled (extrapolated): 1 below the correction range, 0
// above it, a straight ramp between, times ext_factor.
double YarnRamp(const OpParams& p, int64_t n_dims, int64_t pair) {
  double lo = std::max(0.0, std::floor(YarnCorrDim(p, n_dims, p.beta_fast)));
  double hi = std::min(static_cast<double>(n_dims - 1), std::ceil(YarnCorrDim(p, n_dims, p.beta_slow)));
  double y = (static_cast<double>(pair) - lo) / std::max(0.001, hi - lo);
  return (1 - std::min(1.0, std::max(0.0, y))) * p.ext_factor;
}

}  // namespace

double RopeFrequency(const OpParams& p, int64_t n_dims, int64_t pair) {
  double f = std::pow(static_cast<double>(p.freq_base), -2.0 * static_cast<double>(pair) / static_cast<double>(n_dims));
  if (p.freq_factors) f /= p.freq_factors[pair];
  if (p.ext_factor == 0) return p.freq_scale * f;
  double r = YarnRamp(p, n_dims, pair);
  return f * (p.freq_scale * (1 - r) + r);
}

double RopeMagnitude(const OpParams& p) {
  return p.ext_factor != 0 ? p.mscale * (1 + 0.1 * std::log(1.0 / p.freq_scale)) : p.mscale;
}

AttentionExtras AttentionExtrasOf(const std::vector<const Tensor*>& src) {
  AttentionExtras x;
  for (size_t i = 3; i < src.size(); ++i) {
    if (src[i] && src[i]->dtype == DType::kI32) x.rows = src[i];
    else x.sinks = src[i];
  }
  return x;
}

std::string_view OpName(OpKind kind) {
  switch (kind) {
    case OpKind::kMatmul: return "Matmul";
    case OpKind::kAdd: return "Add";
    case OpKind::kMul: return "Mul";
    case OpKind::kScale: return "Scale";
    case OpKind::kRmsNorm: return "RmsNorm";
    case OpKind::kRope: return "Rope";
    case OpKind::kSoftmax: return "Softmax";
    case OpKind::kSilu: return "Silu";
    case OpKind::kSwiglu: return "Swiglu";
    case OpKind::kGetRows: return "GetRows";
    case OpKind::kTopK: return "TopK";
    case OpKind::kAttention: return "Attention";
    case OpKind::kCopy: return "Copy";
    case OpKind::kExperts: return "Experts";
    case OpKind::kGeglu: return "Geglu";
    case OpKind::kSwigluOai: return "SwigluOai";
  }
  return "?";
}

Status ExpertIdError(int64_t token, int64_t id, int64_t experts) {
  return Status(StatusCode::kInvalidArgument, "Experts: token " + std::to_string(token) + "'s id " + std::to_string(id) +
                                                  " is not one of the " + std::to_string(experts) + " experts");
}

namespace {

Status Bad(OpKind kind, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, std::string(OpName(kind)) + ": " + what);
}

bool IsFloatWeight(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16 || IsTiles(t) || IsPanels(t); }

Tensor Spec(DType dtype, std::array<int64_t, 4> ne) {
  Tensor t;
  t.dtype = dtype;
  t.ne = ne;
  t.nb = ContiguousStrides(dtype, ne);
  return t;
}

StatusOr<Tensor> MatmulSpec(const Tensor& w, const Tensor& x) {
  if (!IsFloatWeight(w.dtype) && !IsQuantized(w.dtype)) {
    return Bad(OpKind::kMatmul, "weights must be f32, f16, bf16 (or their panels or tiles on the CPU) or a block type: " + Describe(w));
  }
  if (x.dtype != DType::kF32) return Bad(OpKind::kMatmul, "activations must be f32: " + Describe(x));
  if (w.ne[0] != x.ne[0]) return Bad(OpKind::kMatmul, "K differs: " + Describe(w) + " vs " + Describe(x));
  if (w.ne[0] % BlockSize(w.dtype) != 0) return Bad(OpKind::kMatmul, "K is not a multiple of the weights' block: " + Describe(w));
  if (x.ne[2] % w.ne[2] != 0 || x.ne[3] % w.ne[3] != 0) {
    return Bad(OpKind::kMatmul, "weights do not broadcast over the batch: " + Describe(w) + " vs " + Describe(x));
  }
  if (w.nb[0] != BlockBytes(w.dtype) || x.nb[0] != BlockBytes(x.dtype)) {
    return Bad(OpKind::kMatmul, "rows must be contiguous");
  }
  return Spec(DType::kF32, {w.ne[1], x.ne[1], x.ne[2], x.ne[3]});
}

StatusOr<Tensor> BroadcastSpec(OpKind kind, const Tensor& a, const Tensor& b) {
  if (a.dtype != DType::kF32 || b.dtype != DType::kF32) return Bad(kind, "inputs must be f32");
  if (b.ne[0] != a.ne[0]) return Bad(kind, "row length differs: " + Describe(a) + " vs " + Describe(b));
  for (int i = 1; i < 4; ++i) {
    if (b.ne[i] != 1 && b.ne[i] != a.ne[i]) return Bad(kind, "b does not broadcast: " + Describe(b));
  }
  return Spec(DType::kF32, a.ne);
}

// The optional inputs: at most one sinks (f32 [heads]) and one rows (i32 [n_past + T]).
Status AttentionExtrasSpec(const Tensor& q, const Tensor& k, const std::vector<const Tensor*>& src, const OpParams& p) {
  OpKind kind = OpKind::kAttention;
  AttentionExtras x = AttentionExtrasOf(src);
  if (src.size() - 3 != (x.sinks ? 1u : 0u) + (x.rows ? 1u : 0u)) return Bad(kind, "after q, k, v: at most one f32 sinks and one i32 rows");
  const Tensor* sinks = x.sinks;
  if (sinks && (sinks->dtype != DType::kF32 || sinks->ne != std::array<int64_t, 4>{q.ne[1], 1, 1, 1} || !sinks->IsContiguous())) {
    return Bad(kind, "sinks must be f32 [heads]: " + Describe(*sinks));
  }
  if (x.rows && (x.rows->ne != std::array<int64_t, 4>{p.n_past + q.ne[2], 1, 1, 1} || !x.rows->IsContiguous())) {
    return Bad(kind, "rows must be i32 [n_past + tokens]: " + Describe(*x.rows));
  }
  // Without rows, position j is row j; with them, the rows' values index k (each backend's
  // caller, the model, keeps them below k.ne[2]).
  if (!x.rows && p.n_past + q.ne[2] > k.ne[2]) return Bad(kind, "n_past + tokens exceeds the cache");
  return Status();
}

StatusOr<Tensor> AttentionSpec(const std::vector<const Tensor*>& src, const OpParams& p) {
  OpKind kind = OpKind::kAttention;
  const Tensor &q = *src[0], &k = *src[1], &v = *src[2];
  if (q.dtype != DType::kF32) return Bad(kind, "q must be f32");
  const bool cache_type = k.dtype == DType::kF32 || k.dtype == DType::kF16 || k.dtype == DType::kBF16 || k.dtype == DType::kQ8_0;
  if (!cache_type || v.dtype != k.dtype) return Bad(kind, "k and v caches must be of one type: f32, f16, bf16 or q8_0");
  if (IsQuantized(k.dtype) && k.ne[0] % BlockSize(k.dtype) != 0) return Bad(kind, "a q8_0 cache's head dimension is whole blocks of 32");
  if (k.ne[0] != q.ne[0] || v.ne[0] != q.ne[0] || k.ne[1] != v.ne[1] || k.ne[2] != v.ne[2]) {
    return Bad(kind, "q, k, v shapes disagree: " + Describe(q) + " " + Describe(k) + " " + Describe(v));
  }
  if (q.ne[1] % k.ne[1] != 0) return Bad(kind, "heads are not a multiple of kv heads");
  if (p.n_past < 0) return Bad(kind, "n_past must not be negative");
  if (p.window < 0) return Bad(kind, "the window must be 0 (none) or positive");
  VT_RETURN_IF_ERROR(AttentionExtrasSpec(q, k, src, p));
  return Spec(DType::kF32, q.ne);
}

StatusOr<Tensor> ExpertsSpec(const std::vector<const Tensor*>& src) {
  const OpKind kind = OpKind::kExperts;
  const Tensor &x = *src[0], &ids = *src[1], &weights = *src[2], &gate = *src[3], &up = *src[4], &down = *src[5];
  if (x.dtype != DType::kF32 || ids.dtype != DType::kI32 || weights.dtype != DType::kF32) {
    return Bad(kind, "needs f32 activations, i32 ids and f32 weights");
  }
  for (const Tensor* w : {&gate, &up, &down}) {
    if ((!IsFloatWeight(w->dtype) && !IsQuantized(w->dtype)) || w->ne[0] % BlockSize(w->dtype) != 0 || w->nb[0] != BlockBytes(w->dtype)) {
      return Bad(kind, "expert weights must be f32, f16, bf16 or a block type, rows contiguous and whole blocks: " + Describe(*w));
    }
  }
  const int64_t d = x.ne[0], f = gate.ne[1], experts = gate.ne[2];
  if (x.ne[2] != 1 || x.ne[3] != 1 || ids.ne[2] != 1 || ids.ne[3] != 1) return Bad(kind, "x and ids must be 2-D");
  if (!ids.SameShape(weights) || ids.ne[1] != x.ne[1]) return Bad(kind, "ids and weights must both be [k, tokens]");
  if (gate.ne != up.ne || gate.ne[0] != d || down.ne != std::array<int64_t, 4>{f, d, experts, 1} || gate.ne[3] != 1) {
    return Bad(kind, "expert shapes disagree: " + Describe(gate) + " " + Describe(up) + " " + Describe(down));
  }
  if (!ids.IsContiguous() || !weights.IsContiguous() || !x.IsContiguous()) return Bad(kind, "x, ids and weights must be contiguous");
  return Spec(DType::kF32, x.ne);
}

size_t Arity(OpKind kind) {
  switch (kind) {
    case OpKind::kScale: case OpKind::kRmsNorm: case OpKind::kSilu: case OpKind::kTopK:
    case OpKind::kCopy: return 1;
    case OpKind::kAttention: return 3;
    case OpKind::kExperts: return 6;
    default: return 2;
  }
}

}  // namespace

StatusOr<Tensor> OutputSpec(OpKind kind, const std::vector<const Tensor*>& src, const OpParams& p) {
  size_t need = Arity(kind);
  bool optional_input = (kind == OpKind::kSoftmax && src.size() == 1) || (kind == OpKind::kAttention && (src.size() == 4 || src.size() == 5));
  if (src.size() != need && !optional_input) return Bad(kind, "wrong number of inputs");
  for (const Tensor* t : src) {
    if (!t || !t->data) return Bad(kind, "missing input");
  }
  const Tensor& a = *src[0];
  switch (kind) {
    case OpKind::kMatmul: return MatmulSpec(a, *src[1]);
    case OpKind::kAdd: case OpKind::kMul: return BroadcastSpec(kind, a, *src[1]);
    case OpKind::kSwiglu: case OpKind::kGeglu: case OpKind::kSwigluOai:
      if (!a.SameShape(*src[1])) return Bad(kind, "a and b differ in shape");
      [[fallthrough]];
    case OpKind::kScale: case OpKind::kRmsNorm: case OpKind::kSilu:
      if (a.dtype != DType::kF32) return Bad(kind, "input must be f32");
      return Spec(DType::kF32, a.ne);
    case OpKind::kRope: {
      int n_dims = p.n_dims ? p.n_dims : static_cast<int>(a.ne[0]);
      if (a.dtype != DType::kF32 || src[1]->dtype != DType::kI32) return Bad(kind, "needs f32 input, i32 positions");
      if (n_dims % 2 || n_dims > a.ne[0]) return Bad(kind, "rotated dims must be even and <= ne0");
      if (p.ext_factor != 0 && (p.n_ctx_orig <= 0 || !(p.freq_scale > 0))) return Bad(kind, "YaRN needs n_ctx_orig > 0 and freq_scale > 0");
      if (src[1]->ne[0] != a.ne[2]) return Bad(kind, "one position per token (ne2)");
      return Spec(DType::kF32, a.ne);
    }
    case OpKind::kSoftmax:
      if (a.dtype != DType::kF32) return Bad(kind, "input must be f32");
      if (src.size() == 2 && (src[1]->ne[0] != a.ne[0] || src[1]->ne[1] != a.ne[1])) return Bad(kind, "mask must be [ne0, ne1]");
      return Spec(DType::kF32, a.ne);
    case OpKind::kGetRows:
      if ((!IsFloatWeight(a.dtype) && !IsQuantized(a.dtype)) || src[1]->dtype != DType::kI32) {
        return Bad(kind, "needs a float or block-type table and i32 ids");
      }
      if (IsInterleaved(a.dtype)) return Bad(kind, "a " + std::string(DTypeName(a.dtype)) + " table's rows are interleaved: it must be plain");
      return Spec(DType::kF32, {a.ne[0], src[1]->ne[0], 1, 1});
    case OpKind::kTopK:
      if (a.dtype != DType::kF32 || p.k < 1 || p.k > a.ne[0]) return Bad(kind, "k must be in 1..ne0 of an f32 input");
      return Spec(DType::kI32, {p.k, a.ne[1], a.ne[2], a.ne[3]});
    case OpKind::kAttention: return AttentionSpec(src, p);
    case OpKind::kCopy:
      // q8_0 out: a KV cache's new rows, quantized as ggml's quantize_row_q8_0.
      if (!IsFloatWeight(a.dtype) || !(IsFloatWeight(p.out_dtype) || p.out_dtype == DType::kQ8_0)) return Bad(kind, "copies f32/f16/bf16 (or into q8_0) only");
      if (IsQuantized(p.out_dtype) && a.ne[0] % BlockSize(p.out_dtype) != 0) return Bad(kind, "a q8_0 row is whole blocks of 32: " + Describe(a));
      return Spec(p.out_dtype, a.ne);
    case OpKind::kExperts: return ExpertsSpec(src);
  }
  return Bad(kind, "unknown op");
}

Status ValidateOp(const Op& op) {
  auto spec = OutputSpec(op.kind, op.src, op.params);
  if (!spec.ok()) return spec.status();
  if (!op.out || !op.out->data) return Bad(op.kind, "missing output");
  if (op.out->dtype != spec->dtype || op.out->ne != spec->ne || !op.out->IsContiguous()) {
    return Bad(op.kind, "output must be contiguous " + Describe(spec.value()) + ", got " + Describe(*op.out));
  }
  for (const Tensor* t : op.src) {
    if (!(t->device == op.out->device)) {
      return Bad(op.kind, "inputs and output on different devices: " + Describe(*t) + " vs " + Describe(*op.out));
    }
  }
  return Status();
}

}  // namespace vt
