#include "vt/placement.h"

#include <array>
#include <vector>

namespace vt {
namespace {

Tensor Column(const Tensor& t, int64_t i) { return View(t, {t.ne[0], 1, 1, 1}, t.nb, i * t.nb[1]); }
Tensor Expert(const Tensor& t, int64_t e) { return View(t, {t.ne[0], t.ne[1], 1, 1}, t.nb, e * t.nb[2]); }

// A tensor's bytes on the host, copying only when it lives elsewhere.
template <typename T>
StatusOr<std::vector<T>> HostCopy(const Tensor& t) {
  std::vector<T> out(static_cast<size_t>(t.NumElements()));
  Tensor host = t;
  host.device = Device{};
  host.buffer.reset();
  host.data = out.data();
  VT_RETURN_IF_ERROR(CopyTensor(t, host));
  return out;
}

struct Routing {
  std::vector<int32_t> ids;  // [k, T]
  std::vector<float> weights;  // renormalised over the k chosen
};

StatusOr<Routing> Route(Backend& b, const MoeWeights& w, const Tensor& x) {
  int64_t experts = w.router->ne[1], tokens = x.ne[1];
  auto logits = NewTensor(b, DType::kF32, {experts, tokens, 1, 1});
  auto probs = NewTensor(b, DType::kF32, {experts, tokens, 1, 1});
  auto ids = NewTensor(b, DType::kI32, {w.n_used, tokens, 1, 1});
  if (!logits.ok() || !probs.ok() || !ids.ok()) return Status(StatusCode::kUnavailable, "MoE: out of memory");
  VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kMatmul, {w.router, &x}, &logits.value(), {}}));
  if (w.router_b) VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kAdd, {&logits.value(), w.router_b}, &logits.value(), {}}));
  VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kSoftmax, {&logits.value()}, &probs.value(), {}}));
  OpParams top;
  top.k = w.n_used;
  VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kTopK, {&probs.value()}, &ids.value(), top}));
  auto p = HostCopy<float>(probs.value());
  auto chosen = HostCopy<int32_t>(ids.value());
  if (!p.ok()) return p.status();
  if (!chosen.ok()) return chosen.status();
  Routing r{std::move(chosen).value(), std::vector<float>(static_cast<size_t>(w.n_used * tokens))};
  for (int64_t t = 0; t < tokens; ++t) {
    float sum = 0;
    for (int j = 0; j < w.n_used; ++j) sum += p.value()[t * experts + r.ids[t * w.n_used + j]];
    for (int j = 0; j < w.n_used; ++j) r.weights[t * w.n_used + j] = p.value()[t * experts + r.ids[t * w.n_used + j]] / sum;
  }
  return r;
}

// The routed experts as one Experts op where backend `b` has it (the CPU, for a decode
// step); false when it has not.
StatusOr<bool> FusedExperts(Backend& b, const MoeWeights& w, const Routing& r, const Tensor& x, Tensor& y) {
  const std::array<int64_t, 4> ne{w.n_used, x.ne[1], 1, 1};
  // Asked with shapes alone first: a backend without the op (a GPU's) allocates nothing.
  auto shaped = [&](DType t) {
    Tensor s;
    s.dtype = t;
    s.ne = ne;
    s.nb = ContiguousStrides(t, ne);
    s.device = b.device();
    return s;
  };
  // The op computes no biases and only SiLU's gating: gpt-oss's experts take the loop.
  if (w.gate_b || w.up_b || w.down_b || w.swiglu_oai) return false;
  Tensor id_shape = shaped(DType::kI32), weight_shape = shaped(DType::kF32);
  if (!b.Supports(Op{OpKind::kExperts, {&x, &id_shape, &weight_shape, w.gate_exps, w.up_exps, w.down_exps}, &y, {}})) return false;
  auto ids = NewTensor(b, DType::kI32, ne);
  auto weights = NewTensor(b, DType::kF32, ne);
  if (!ids.ok() || !weights.ok()) return Status(StatusCode::kUnavailable, "MoE: out of memory");
  Op op{OpKind::kExperts, {&x, &ids.value(), &weights.value(), w.gate_exps, w.up_exps, w.down_exps}, &y, {}};
  VT_RETURN_IF_ERROR(b.CopyIn(ids->data, r.ids.data(), 4 * r.ids.size()));
  VT_RETURN_IF_ERROR(b.CopyIn(weights->data, r.weights.data(), 4 * r.weights.size()));
  VT_RETURN_IF_ERROR(RunOp(b, op));
  return true;
}

// Column e of an expert bias ([rows, E]) added to every column of `t`, where there is one.
Status AddExpertBias(Backend& b, const Tensor* bias, int64_t e, Tensor& t) {
  if (!bias) return Status();
  Tensor column = Column(*bias, e);
  return RunOp(b, Op{OpKind::kAdd, {&t, &column}, &t, {}});
}

// y[:, t] = Σ_j weight_j · down_e(silu(gate_e x_t) * up_e x_t), every op on backend `b`.
// Tokens are grouped by expert, so each expert runs one batched matmul per weight (a prefill
// of 512 tokens is 3 matmuls per expert, not 3 per token and expert).
Status Experts(Backend& b, const MoeWeights& w, const Routing& r, const Tensor& x, Tensor& y) {
  int64_t d = x.ne[0], f = w.gate_exps->ne[1], experts = w.gate_exps->ne[2];
  std::vector<std::vector<int32_t>> tokens(experts);
  std::vector<std::vector<float>> weights(experts);
  for (int64_t t = 0; t < x.ne[1]; ++t) {
    for (int j = 0; j < w.n_used; ++j) {
      int32_t e = r.ids[t * w.n_used + j];
      tokens[e].push_back(static_cast<int32_t>(t));
      weights[e].push_back(r.weights[t * w.n_used + j]);
    }
  }
  std::vector<float> zeros(static_cast<size_t>(y.NumElements()), 0.0f);
  VT_RETURN_IF_ERROR(b.CopyIn(y.data, zeros.data(), y.ByteSize()));
  for (int64_t e = 0; e < experts; ++e) {
    if (tokens[e].empty()) continue;
    int64_t n = static_cast<int64_t>(tokens[e].size());
    auto ids = NewTensor(b, DType::kI32, {n, 1, 1, 1});
    auto xe = NewTensor(b, DType::kF32, {d, n, 1, 1});
    auto g = NewTensor(b, DType::kF32, {f, n, 1, 1});
    auto u = NewTensor(b, DType::kF32, {f, n, 1, 1});
    auto o = NewTensor(b, DType::kF32, {d, n, 1, 1});
    if (!ids.ok() || !xe.ok() || !g.ok() || !u.ok() || !o.ok()) return Status(StatusCode::kUnavailable, "MoE: out of memory");
    VT_RETURN_IF_ERROR(b.CopyIn(ids->data, tokens[e].data(), 4 * n));
    Tensor gate = Expert(*w.gate_exps, e), up = Expert(*w.up_exps, e), down = Expert(*w.down_exps, e);
    VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kGetRows, {&x, &ids.value()}, &xe.value(), {}}));
    VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kMatmul, {&gate, &xe.value()}, &g.value(), {}}));
    VT_RETURN_IF_ERROR(AddExpertBias(b, w.gate_b, e, g.value()));
    VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kMatmul, {&up, &xe.value()}, &u.value(), {}}));
    VT_RETURN_IF_ERROR(AddExpertBias(b, w.up_b, e, u.value()));
    const OpKind act = w.swiglu_oai ? OpKind::kSwigluOai : OpKind::kSwiglu;
    VT_RETURN_IF_ERROR(RunOp(b, Op{act, {&g.value(), &u.value()}, &g.value(), {}}));
    VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kMatmul, {&down, &g.value()}, &o.value(), {}}));
    VT_RETURN_IF_ERROR(AddExpertBias(b, w.down_b, e, o.value()));
    for (int64_t i = 0; i < n; ++i) {
      Tensor oi = Column(o.value(), i), yt = Column(y, tokens[e][i]);
      OpParams scale;
      scale.scale = weights[e][i];
      VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kScale, {&oi}, &oi, scale}));
      VT_RETURN_IF_ERROR(RunOp(b, Op{OpKind::kAdd, {&yt, &oi}, &yt, {}}));
    }
  }
  return Status();
}

Status MoeOn(Backend& b, const MoeWeights& w, const Tensor& x, Tensor& y) {
  auto routing = Route(b, w, x);
  if (!routing.ok()) return routing.status();
  auto fused = FusedExperts(b, w, routing.value(), x, y);
  if (!fused.ok()) return fused.status();
  return fused.value() ? Status() : Experts(b, w, routing.value(), x, y);
}

}  // namespace

StatusOr<PlacementQueue> PlacementQueue::Create(Backend& target) {
  if (target.device().type != DeviceType::kCPU) {
    return Status(StatusCode::kInvalidArgument, "MoE placement target " +
                                                    std::string(DeviceTypeName(target.device().type)) +
                                                    " is not allowed: experts may only be placed on cpu");
  }
  return PlacementQueue(MakeQueue(target));
}

Status RunMoe(Engine& engine, const PlacementQueue* placement, const MoeWeights& w, const Tensor& x,
              Tensor& y, MoeCopies* copies) {
  // Keyed on the engine's device: the same code path runs for a GPU engine and the loopback.
  bool cross = placement && !(placement->q().device == engine.q.device);
  if (!cross) return MoeOn(placement ? *placement->q().backend : *engine.q.backend, w, x, y);
  Backend& target = *placement->q().backend;
  auto xp = NewTensor(target, x.dtype, x.ne);
  auto yp = NewTensor(target, y.dtype, y.ne);
  if (!xp.ok()) return xp.status();
  if (!yp.ok()) return yp.status();
  VT_RETURN_IF_ERROR(CopyTensor(x, xp.value()));
  VT_RETURN_IF_ERROR(MoeOn(target, w, xp.value(), yp.value()));
  VT_RETURN_IF_ERROR(CopyTensor(yp.value(), y));
  if (copies) {
    copies->count += 2;
    copies->bytes += x.ByteSize() + y.ByteSize();
  }
  return Status();
}

}  // namespace vt
