#include "reference/reference_ops.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <vector>

#include "core/element.h"
#include "vt/quant.h"

namespace vt::reference {
namespace {

const char* At(const Tensor& t, int64_t i0, int64_t i1, int64_t i2 = 0, int64_t i3 = 0) {
  return static_cast<const char*>(t.data) + i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
}
double Get(const Tensor& t, int64_t i0, int64_t i1, int64_t i2 = 0, int64_t i3 = 0) {
  return LoadElement(t.dtype, At(t, i0, i1, i2, i3));
}
void Set(const Tensor& t, int64_t i0, int64_t i1, int64_t i2, int64_t i3, double v) {
  StoreElement(t.dtype, const_cast<char*>(At(t, i0, i1, i2, i3)), v);
}

template <typename F>
void ForEachRow(const Tensor& t, F f) {
  for (int64_t i3 = 0; i3 < t.ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < t.ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < t.ne[1]; ++i1) f(i1, i2, i3);
}

// Row (i1, i2, i3) of a weight or table as doubles: block types dequantized whole.
std::vector<double> WeightRow(const Tensor& t, int64_t i1, int64_t i2 = 0, int64_t i3 = 0) {
  std::vector<double> row(static_cast<size_t>(t.ne[0]));
  if (IsQuantized(t.dtype)) {
    std::vector<float> f(row.size());
    DequantizeRow(t.dtype, At(t, 0, i1, i2, i3), f.data(), t.ne[0]);
    std::copy(f.begin(), f.end(), row.begin());
  } else {
    for (int64_t i0 = 0; i0 < t.ne[0]; ++i0) row[static_cast<size_t>(i0)] = Get(t, i0, i1, i2, i3);
  }
  return row;
}

double Silu(double x) { return x / (1 + std::exp(-x)); }
// GELU by its tanh form, as written (the backends compute the same value another way).
double GeluTanh(double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x))); }

}  // namespace

void Matmul(const Op& op) {
  const Tensor &w = *op.src[0], &x = *op.src[1], &out = *op.out;
  int64_t r2 = x.ne[2] / w.ne[2], r3 = x.ne[3] / w.ne[3];
  ForEachRow(out, [&](int64_t m, int64_t i2, int64_t i3) {
    for (int64_t n = 0; n < out.ne[0]; ++n) {
      std::vector<double> wrow = WeightRow(w, n, i2 / r2, i3 / r3);
      double sum = 0;
      for (int64_t k = 0; k < w.ne[0]; ++k) sum += wrow[static_cast<size_t>(k)] * Get(x, k, m, i2, i3);
      Set(out, n, m, i2, i3, sum);
    }
  });
}

void Elementwise(const Op& op) {
  const Tensor& a = *op.src[0];
  const Tensor* b = op.src.size() > 1 ? op.src[1] : nullptr;
  ForEachRow(a, [&](int64_t i1, int64_t i2, int64_t i3) {
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) {
      double v = Get(a, i0, i1, i2, i3);
      double w = b ? Get(*b, i0, i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]) : 0;
      switch (op.kind) {
        case OpKind::kAdd: v += w; break;
        case OpKind::kMul: v *= w; break;
        case OpKind::kScale: v *= op.params.scale; break;
        case OpKind::kSilu: v = Silu(v); break;
        case OpKind::kSwiglu: v = Silu(v) * w; break;
        case OpKind::kGeglu: v = GeluTanh(v) * w; break;
        case OpKind::kSwigluOai: {
          double x = std::min(v, static_cast<double>(op.params.limit)), y = std::clamp(w, -1.0 * op.params.limit, 1.0 * op.params.limit);
          v = x / (1 + std::exp(-op.params.alpha * x)) * (y + 1);
          break;
        }
        default: break;
      }
      Set(*op.out, i0, i1, i2, i3, v);
    }
  });
}

void RmsNorm(const Op& op) {
  const Tensor& a = *op.src[0];
  ForEachRow(a, [&](int64_t i1, int64_t i2, int64_t i3) {
    double ss = 0;
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) ss += Get(a, i0, i1, i2, i3) * Get(a, i0, i1, i2, i3);
    double inv = 1 / std::sqrt(ss / a.ne[0] + op.params.eps);
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) Set(*op.out, i0, i1, i2, i3, Get(a, i0, i1, i2, i3) * inv);
  });
}

// Pair j's angle per position, written out as ggml's rope_yarn computes it (not through
// RopeFrequency, which the other backends share): θ_j·(s·(1 − r_j) + r_j) with YaRN's ramp r_j.
double ReferenceAngle(const OpParams& p, int64_t n_dims, int64_t j) {
  double theta = std::pow(static_cast<double>(p.freq_base), -2.0 * static_cast<double>(j) / n_dims);
  if (p.freq_factors) theta /= p.freq_factors[j];
  if (p.ext_factor == 0) return theta * p.freq_scale;
  auto corr_dim = [&](double beta) { return n_dims * std::log(p.n_ctx_orig / (beta * 2 * std::numbers::pi)) / (2 * std::log(static_cast<double>(p.freq_base))); };
  double low = std::max(0.0, std::floor(corr_dim(p.beta_fast))), high = std::min(n_dims - 1.0, std::ceil(corr_dim(p.beta_slow)));
  double ramp = (1 - std::clamp((j - low) / std::max(0.001, high - low), 0.0, 1.0)) * p.ext_factor;
  return theta * p.freq_scale * (1 - ramp) + theta * ramp;
}

void Rope(const Op& op) {
  const Tensor &a = *op.src[0], &pos = *op.src[1];
  int64_t n_dims = op.params.n_dims ? op.params.n_dims : a.ne[0];
  const double m = op.params.mscale * (op.params.ext_factor != 0 ? 1 + 0.1 * std::log(1 / static_cast<double>(op.params.freq_scale)) : 1);
  ForEachRow(a, [&](int64_t head, int64_t t, int64_t i3) {
    double p = Get(pos, t, 0);
    for (int64_t i0 = n_dims; i0 < a.ne[0]; ++i0) Set(*op.out, i0, head, t, i3, Get(a, i0, head, t, i3));
    for (int64_t j = 0; j < n_dims / 2; ++j) {
      // Pair j's two elements: adjacent (mode 0), or j and j + n_dims/2 (NEOX).
      int64_t e0 = op.params.rope_neox ? j : 2 * j, e1 = op.params.rope_neox ? j + n_dims / 2 : 2 * j + 1;
      double x0 = Get(a, e0, head, t, i3), x1 = Get(a, e1, head, t, i3);
      double theta = p * ReferenceAngle(op.params, n_dims, j);
      Set(*op.out, e0, head, t, i3, m * (x0 * std::cos(theta) - x1 * std::sin(theta)));
      Set(*op.out, e1, head, t, i3, m * (x0 * std::sin(theta) + x1 * std::cos(theta)));
    }
  });
}

void Softmax(const Op& op) {
  const Tensor& a = *op.src[0];
  const Tensor* mask = op.src.size() > 1 ? op.src[1] : nullptr;
  ForEachRow(a, [&](int64_t i1, int64_t i2, int64_t i3) {
    std::vector<double> v(a.ne[0]);
    double max = -INFINITY;
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) {
      v[i0] = Get(a, i0, i1, i2, i3) * op.params.scale + (mask ? Get(*mask, i0, i1) : 0);
      max = std::max(max, v[i0]);
    }
    double sum = 0;
    for (double& x : v) sum += (x = max == -INFINITY ? 0 : std::exp(x - max));
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) Set(*op.out, i0, i1, i2, i3, sum > 0 ? v[i0] / sum : 0);
  });
}

void GetRows(const Op& op) {
  const Tensor &table = *op.src[0], &ids = *op.src[1];
  for (int64_t r = 0; r < ids.ne[0]; ++r) {
    int64_t id = static_cast<int64_t>(Get(ids, r, 0));
    std::vector<double> row = WeightRow(table, id);
    for (int64_t i0 = 0; i0 < table.ne[0]; ++i0) Set(*op.out, i0, r, 0, 0, row[static_cast<size_t>(i0)]);
  }
}

void TopK(const Op& op) {
  const Tensor& a = *op.src[0];
  ForEachRow(a, [&](int64_t i1, int64_t i2, int64_t i3) {
    std::vector<int64_t> idx(a.ne[0]);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t x, int64_t y) {
      return Get(a, x, i1, i2, i3) > Get(a, y, i1, i2, i3);
    });
    for (int j = 0; j < op.params.k; ++j) Set(*op.out, j, i1, i2, i3, static_cast<double>(idx[j]));
  });
}

void Attention(const Op& op) {
  const Tensor &q = *op.src[0], &k = *op.src[1], &v = *op.src[2];
  int64_t hd = q.ne[0], group = q.ne[1] / k.ne[1];
  double scale = op.params.scale != 0 ? op.params.scale : 1 / std::sqrt(static_cast<double>(hd));
  const AttentionExtras extras = AttentionExtrasOf(op.src);
  // Position j's row of the cache: through a paged cache's row map, or j itself.
  auto row = [&](int64_t j) { return extras.rows ? static_cast<const int32_t*>(extras.rows->data)[j] : j; };
  for (int64_t t = 0; t < q.ne[2]; ++t) {
    for (int64_t h = 0; h < q.ne[1]; ++h) {
      int64_t n = op.params.n_past + t + 1, g = h / group;
      int64_t first = op.params.window > 0 ? std::max<int64_t>(0, n - op.params.window) : 0;
      std::vector<double> s(n, -INFINITY);
      // A sink: one more logit in the softmax, weighing no value.
      double sink = extras.sinks ? Get(*extras.sinks, h, 0) : -INFINITY;
      double max = sink;
      for (int64_t j = first; j < n; ++j) {
        const std::vector<double> key = WeightRow(k, g, row(j));  // a q8_0 cache's rows dequantized whole
        double dot = 0;
        for (int64_t d = 0; d < hd; ++d) dot += Get(q, d, h, t) * key[static_cast<size_t>(d)];
        s[j] = dot * scale;
        max = std::max(max, s[j]);
      }
      double sum = std::exp(sink - max);  // 0 without a sink
      for (double& x : s) sum += (x = std::exp(x - max));
      std::vector<double> acc(static_cast<size_t>(hd), 0.0);
      for (int64_t j = first; j < n; ++j) {
        const std::vector<double> value = WeightRow(v, g, row(j));
        for (int64_t d = 0; d < hd; ++d) acc[static_cast<size_t>(d)] += s[j] * value[static_cast<size_t>(d)];
      }
      for (int64_t d = 0; d < hd; ++d) Set(*op.out, d, h, t, 0, acc[static_cast<size_t>(d)] / sum);
    }
  }
}

void Copy(const Op& op) {
  const Tensor& a = *op.src[0];
  if (IsQuantized(op.out->dtype)) {  // into q8_0 blocks, as llama.cpp's CPU writes them (the backends' bytes exactly)
    std::vector<float> row(static_cast<size_t>(a.ne[0]));
    ForEachRow(a, [&](int64_t i1, int64_t i2, int64_t i3) {
      for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) row[static_cast<size_t>(i0)] = static_cast<float>(Get(a, i0, i1, i2, i3));
      QuantizeRowQ8_0Ggml(row.data(), const_cast<char*>(At(*op.out, 0, i1, i2, i3)), a.ne[0]);
    });
    return;
  }
  ForEachRow(a, [&](int64_t i1, int64_t i2, int64_t i3) {
    for (int64_t i0 = 0; i0 < a.ne[0]; ++i0) Set(*op.out, i0, i1, i2, i3, Get(a, i0, i1, i2, i3));
  });
}

// Every routed (token, expert) pair on its own, in double: no grouping to get wrong.
Status Experts(const Op& op) {
  const Tensor &x = *op.src[0], &ids = *op.src[1], &weights = *op.src[2];
  const Tensor &gate = *op.src[3], &up = *op.src[4], &down = *op.src[5];
  const int64_t d = x.ne[0], f = gate.ne[1], k = ids.ne[0];
  for (int64_t t = 0; t < x.ne[1]; ++t) {
    std::vector<double> y(static_cast<size_t>(d), 0.0), h(static_cast<size_t>(f));
    for (int64_t j = 0; j < k; ++j) {
      const int32_t e = static_cast<const int32_t*>(ids.data)[t * k + j];
      if (e < 0 || e >= gate.ne[2]) {
        return ExpertIdError(t, e, gate.ne[2]);
      }
      for (int64_t n = 0; n < f; ++n) {
        std::vector<double> g = WeightRow(gate, n, e), u = WeightRow(up, n, e);
        double gs = 0, us = 0;
        for (int64_t i = 0; i < d; ++i) {
          gs += g[static_cast<size_t>(i)] * Get(x, i, t);
          us += u[static_cast<size_t>(i)] * Get(x, i, t);
        }
        h[static_cast<size_t>(n)] = Silu(gs) * us;
      }
      const double w = Get(weights, j, t);
      for (int64_t n = 0; n < d; ++n) {
        std::vector<double> row = WeightRow(down, n, e);
        double s = 0;
        for (int64_t i = 0; i < f; ++i) s += row[static_cast<size_t>(i)] * h[static_cast<size_t>(i)];
        y[static_cast<size_t>(n)] += w * s;
      }
    }
    for (int64_t n = 0; n < d; ++n) Set(*op.out, n, t, 0, 0, y[static_cast<size_t>(n)]);
  }
  return Status();
}

}  // namespace vt::reference
