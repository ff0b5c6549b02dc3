// The Experts op (vt/ops.h) on the CPU for a decode step: every routed expert's gate, up and
// SwiGLU in one pool dispatch, every expert's down projection and the weighted sum in a second.
// The expert loop of single ops (vt/placement.h) took seven ops per expert, three of them
// dispatches, with allocations and copies on the caller in between while the workers spun.
// Each token's sum runs in the loop's order (experts by index, each product scaled, then
// added), and each row's dot product is the decode kernels' whatever the rows beside it, so a
// token gets the loop's bits, alone or in a batch.
#include <algorithm>
#include <string>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"

namespace vt::cpu {
namespace {

// Rows per unit of work: interleaved weights come in groups of 16 rows (vt/quant.h).
constexpr int64_t kRowGroup = 16;

struct Routed {  // one expert's share of the step
  int64_t expert = 0;
  std::vector<int32_t> tokens;
  std::vector<float> weights;
};

StatusOr<std::vector<Routed>> Route(const Tensor& ids, const Tensor& weights, int64_t experts) {
  const int64_t k = ids.ne[0], tokens = ids.ne[1];
  std::vector<Routed> by_expert(static_cast<size_t>(experts));
  for (int64_t t = 0; t < tokens; ++t) {
    for (int64_t j = 0; j < k; ++j) {
      const int32_t e = static_cast<const int32_t*>(ids.data)[t * k + j];
      if (e < 0 || e >= experts) {
        return ExpertIdError(t, e, experts);
      }
      by_expert[static_cast<size_t>(e)].tokens.push_back(static_cast<int32_t>(t));
      by_expert[static_cast<size_t>(e)].weights.push_back(static_cast<const float*>(weights.data)[t * k + j]);
    }
  }
  std::vector<Routed> routed;
  for (int64_t e = 0; e < experts; ++e) {
    if (by_expert[static_cast<size_t>(e)].tokens.empty()) continue;
    routed.push_back(std::move(by_expert[static_cast<size_t>(e)]));
    routed.back().expert = e;
  }
  return routed;
}

// Expert `e`'s matrix of `w` against M activation rows.
GemmArgs ExpertArgs(const Tensor& w, int64_t e, const float* x, float* out, int64_t M) {
  return GemmArgs{static_cast<const char*>(w.data) + e * w.nb[2], w.dtype, w.nb[1], x, static_cast<size_t>(w.ne[0]), out,
                  static_cast<size_t>(w.ne[1]), M, w.ne[1], w.ne[0]};
}

// Per routed expert: its tokens' activations [d, n], gate and then SwiGLU [f, n], up [f, n],
// down [d, n]; the caller's, reused across steps.
struct Buffers {
  std::vector<float> x, g, u, o;
  std::vector<size_t> x_at, h_at, o_at;
  std::vector<std::vector<uint8_t>> acts;  // rounded activations, three per expert
};

void Layout(const std::vector<Routed>& routed, int64_t d, int64_t f, Buffers& b) {
  b.x_at.clear();
  b.h_at.clear();
  b.o_at.clear();
  size_t xs = 0, hs = 0;
  for (const Routed& r : routed) {
    b.x_at.push_back(xs);
    b.h_at.push_back(hs);
    b.o_at.push_back(xs);
    xs += r.tokens.size() * static_cast<size_t>(d);
    hs += r.tokens.size() * static_cast<size_t>(f);
  }
  b.x.resize(xs);
  b.o.resize(xs);
  b.g.resize(hs);
  b.u.resize(hs);
  if (b.acts.size() < 3 * routed.size()) b.acts.resize(3 * routed.size());
}

// Gate, up and SwiGLU of every routed expert's rows: units of 16 rows of one expert.
void GateUp(const Op& op, const std::vector<Routed>& routed, Buffers& b, ThreadPool& pool) {
  const Tensor &x = *op.src[0], &gate = *op.src[3], &up = *op.src[4];
  const int64_t d = x.ne[0], f = gate.ne[1], units = (f + kRowGroup - 1) / kRowGroup;
  std::vector<DecodeRows> gates, ups;
  for (size_t i = 0; i < routed.size(); ++i) {
    const Routed& r = routed[i];
    float* xe = b.x.data() + b.x_at[i];
    for (size_t t = 0; t < r.tokens.size(); ++t) std::copy_n(x.Row<const float>(r.tokens[t]), d, xe + t * d);
    const int64_t n = static_cast<int64_t>(r.tokens.size());
    gates.push_back(PrepareDecode(ExpertArgs(gate, r.expert, xe, b.g.data() + b.h_at[i], n), &b.acts[3 * i]));
    ups.push_back(PrepareDecode(ExpertArgs(up, r.expert, xe, b.u.data() + b.h_at[i], n), &b.acts[3 * i + 1]));
  }
  pool.ParallelFor(static_cast<int64_t>(routed.size()) * units, 1, [&](int64_t u0, int64_t u1, int) {
    for (int64_t unit = u0; unit < u1;) {
      const size_t i = static_cast<size_t>(unit / units);
      const int64_t n0 = unit % units * kRowGroup, last = std::min(u1, static_cast<int64_t>(i + 1) * units);
      const int64_t n1 = std::min(f, (last - static_cast<int64_t>(i) * units) * kRowGroup);
      DecodeRange(gates[i], n0, n1);
      DecodeRange(ups[i], n0, n1);
      float *g = b.g.data() + b.h_at[i], *u = b.u.data() + b.h_at[i];
      for (size_t t = 0; t < routed[i].tokens.size(); ++t) SiluRow(g + t * f + n0, u + t * f + n0, g + t * f + n0, n1 - n0);
      unit = last;
    }
  });
}

// Down projections and the weighted sum, rows of the output split across the pool.
void DownSum(const Op& op, const std::vector<Routed>& routed, Buffers& b, ThreadPool& pool) {
  const Tensor& down = *op.src[5];
  const int64_t d = down.ne[1], tokens = op.out->ne[1];
  std::vector<DecodeRows> downs;
  for (size_t i = 0; i < routed.size(); ++i) {
    const int64_t n = static_cast<int64_t>(routed[i].tokens.size());
    downs.push_back(PrepareDecode(ExpertArgs(down, routed[i].expert, b.g.data() + b.h_at[i], b.o.data() + b.o_at[i], n), &b.acts[3 * i + 2]));
  }
  float* y = static_cast<float*>(op.out->data);
  pool.ParallelFor(d, kRowGroup, [&](int64_t n0, int64_t n1, int) {
    for (int64_t t = 0; t < tokens; ++t) std::fill(y + t * d + n0, y + t * d + n1, 0.0f);
    for (size_t i = 0; i < routed.size(); ++i) {
      DecodeRange(downs[i], n0, n1);
      for (size_t t = 0; t < routed[i].tokens.size(); ++t) {
        const float* o = b.o.data() + b.o_at[i] + t * d;
        float* yt = y + routed[i].tokens[t] * d;
        const float w = routed[i].weights[t];
        // Scaled, then added: the loop's Scale and Add ops, rounded as they round.
        for (int64_t n = n0; n < n1; ++n) {
          const float scaled = o[n] * w;
          yt[n] = yt[n] + scaled;
        }
      }
    }
  });
}

}  // namespace

Status Experts(const Op& op, ThreadPool& pool) {
  auto routed = Route(*op.src[1], *op.src[2], op.src[3]->ne[2]);
  if (!routed.ok()) return routed.status();
  thread_local Buffers buffers;
  Layout(routed.value(), op.src[0]->ne[0], op.src[3]->ne[1], buffers);
  GateUp(op, routed.value(), buffers, pool);
  DownSum(op, routed.value(), buffers, pool);
  return Status();
}

}  // namespace vt::cpu
