#include "cpu/cpu_ops.h"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/element.h"
#include "cpu/matmul_kernels.h"
#include "vt/quant.h"

namespace vt::cpu {
namespace {

// Rows of `width` elements per chunk: enough work to be worth a thread hop.
int64_t RowGrain(int64_t width) { return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, width)); }

// Rows of a contiguous f32 tensor, split across threads in chunks worth a thread hop.
template <typename F>
void ForRows(const Tensor& t, ThreadPool& pool, F f) {
  int64_t rows = t.Rows();
  pool.ParallelFor(rows, RowGrain(t.ne[0]), [&](int64_t r0, int64_t r1, int) {
    for (int64_t r = r0; r < r1; ++r) f(r, r % t.ne[1], (r / t.ne[1]) % t.ne[2], r / (t.ne[1] * t.ne[2]));
  });
}

// Row `r` of a tensor counted over ne1, then ne2, then ne3 (the order ForRows walks).
template <typename T>
T* FlatRow(const Tensor& t, int64_t r) {
  return t.Row<T>(r % t.ne[1], (r / t.ne[1]) % t.ne[2], r / (t.ne[1] * t.ne[2]));
}

}  // namespace

// e^-x by the kernel set's vector exp: a prompt's SwiGLU of 512 × 5632 values spent 2.6% of
// a 2048-wide model's pp512 in scalar expf.
void SiluRow(const float* x, const float* y, float* o, int64_t n) {
  thread_local std::vector<float> e;
  e.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) e[static_cast<size_t>(i)] = -x[i];
  BestKernels().exp_shifted(e.data(), n, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] / (1.0f + e[static_cast<size_t>(i)]);
    o[i] = y ? v * y[i] : v;
  }
}

// gelu_tanh(x) = x·σ(2u), u = √(2/π)(x + 0.044715x³): the same vector exp as SiLU's, where
// tanhf per value would cost a Gemma prompt's FFN more than its SwiGLU costs llama's.
void GeluRow(const float* x, const float* y, float* o, int64_t n) {
  thread_local std::vector<float> e;
  e.resize(static_cast<size_t>(n));
  constexpr float kSqrt2OverPi = 0.79788456080286535588f;
  for (int64_t i = 0; i < n; ++i) e[static_cast<size_t>(i)] = -2.0f * kSqrt2OverPi * x[i] * (1.0f + 0.044715f * x[i] * x[i]);
  BestKernels().exp_shifted(e.data(), n, 0.0f);
  for (int64_t i = 0; i < n; ++i) o[i] = x[i] / (1.0f + e[static_cast<size_t>(i)]) * y[i];
}

// gpt-oss's clamped SwiGLU: x = min(a, limit), y = clamp(b, ±limit), x·σ(alpha·x)·(y + 1),
// its e^(-alpha·x) by the vector exp as SiLU's.
void SwigluOaiRow(const float* a, const float* b, float* o, int64_t n, float alpha, float limit) {
  thread_local std::vector<float> e;
  e.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) e[static_cast<size_t>(i)] = -alpha * std::min(a[i], limit);
  BestKernels().exp_shifted(e.data(), n, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    float x = std::min(a[i], limit), y = std::clamp(b[i], -limit, limit);
    o[i] = x / (1.0f + e[static_cast<size_t>(i)]) * (y + 1.0f);
  }
}

void Elementwise(const Op& op, ThreadPool& pool) {
  const Tensor& a = *op.src[0];
  const Tensor* b = op.src.size() > 1 ? op.src[1] : nullptr;
  float* out = static_cast<float*>(op.out->data);
  ForRows(a, pool, [&](int64_t r, int64_t i1, int64_t i2, int64_t i3) {
    const float* x = a.Row<const float>(i1, i2, i3);
    const float* y = b ? b->Row<const float>(i1 % b->ne[1], i2 % b->ne[2], i3 % b->ne[3]) : nullptr;
    float* o = out + r * a.ne[0];
    int64_t n = a.ne[0];
    switch (op.kind) {
      case OpKind::kAdd: for (int64_t i = 0; i < n; ++i) o[i] = x[i] + y[i]; break;
      case OpKind::kMul: for (int64_t i = 0; i < n; ++i) o[i] = x[i] * y[i]; break;
      case OpKind::kScale: for (int64_t i = 0; i < n; ++i) o[i] = x[i] * op.params.scale; break;
      case OpKind::kSilu: case OpKind::kSwiglu: SiluRow(x, y, o, n); break;
      case OpKind::kGeglu: GeluRow(x, y, o, n); break;
      case OpKind::kSwigluOai: SwigluOaiRow(x, y, o, n, op.params.alpha, op.params.limit); break;
      default: break;
    }
  });
}

void RmsNorm(const Op& op, ThreadPool& pool) {
  const Tensor& a = *op.src[0];
  float* out = static_cast<float*>(op.out->data);
  ForRows(a, pool, [&](int64_t r, int64_t i1, int64_t i2, int64_t i3) {
    const float* x = a.Row<const float>(i1, i2, i3);
    double ss = 0;  // a double sum keeps long rows within the 1e-7 parity tier
    for (int64_t i = 0; i < a.ne[0]; ++i) ss += static_cast<double>(x[i]) * x[i];
    float inv = static_cast<float>(1.0 / std::sqrt(ss / a.ne[0] + op.params.eps));
    for (int64_t i = 0; i < a.ne[0]; ++i) out[r * a.ne[0] + i] = x[i] * inv;
  });
}

void Rope(const Op& op, ThreadPool& pool) {
  const Tensor &a = *op.src[0], &pos = *op.src[1];
  int64_t n_dims = op.params.n_dims ? op.params.n_dims : a.ne[0];
  // cos/sin per (token, pair), computed in double once and shared by every head.
  // Split across the pool: a 512-token prompt's 32 768 sincos per call took the caller alone
  // about a millisecond while the workers waited.
  std::vector<float> cs(static_cast<size_t>(a.ne[2] * n_dims));
  const double m = RopeMagnitude(op.params);  // YaRN's and attn_factor's scaling of the rotated values
  pool.ParallelFor(a.ne[2], std::max<int64_t>(1, 1024 / n_dims), [&](int64_t t0, int64_t t1, int) {
    for (int64_t t = t0; t < t1; ++t) {
      double p = static_cast<const int32_t*>(pos.data)[t];
      for (int64_t i = 0; i < n_dims; i += 2) {
        double theta = p * RopeFrequency(op.params, n_dims, i / 2);
        cs[t * n_dims + i] = static_cast<float>(m * std::cos(theta));
        cs[t * n_dims + i + 1] = static_cast<float>(m * std::sin(theta));
      }
    }
  });
  float* out = static_cast<float*>(op.out->data);
  ForRows(a, pool, [&](int64_t r, int64_t head, int64_t t, int64_t i3) {
    const float* x = a.Row<const float>(head, t, i3);
    float* o = out + r * a.ne[0];
    const float* c = cs.data() + t * n_dims;
    // Pair j is (2j, 2j + 1), or (j, j + n_dims/2) for NEOX: `step` apart, starting at `next`.
    const int64_t half = n_dims / 2, step = op.params.rope_neox ? half : 1, next = op.params.rope_neox ? 1 : 2;
    for (int64_t j = 0, e = 0; j < half; ++j, e += next) {
      float x0 = x[e], x1 = x[e + step];  // read both first: `out` may be `a` (in place)
      o[e] = x0 * c[2 * j] - x1 * c[2 * j + 1];
      o[e + step] = x0 * c[2 * j + 1] + x1 * c[2 * j];
    }
    for (int64_t i = n_dims; i < a.ne[0]; ++i) o[i] = x[i];
  });
}

void Softmax(const Op& op, ThreadPool& pool) {
  const Tensor& a = *op.src[0];
  const Tensor* mask = op.src.size() > 1 ? op.src[1] : nullptr;
  float* out = static_cast<float*>(op.out->data);
  ForRows(a, pool, [&](int64_t r, int64_t i1, int64_t i2, int64_t i3) {
    const float* x = a.Row<const float>(i1, i2, i3);
    const float* mk = mask ? mask->Row<const float>(i1) : nullptr;
    float* o = out + r * a.ne[0];
    float max = -INFINITY;
    for (int64_t i = 0; i < a.ne[0]; ++i) max = std::max(max, o[i] = x[i] * op.params.scale + (mk ? mk[i] : 0.0f));
    double sum = 0;
    for (int64_t i = 0; i < a.ne[0]; ++i) sum += (o[i] = max == -INFINITY ? 0.0f : std::exp(o[i] - max));
    float inv = sum > 0 ? static_cast<float>(1.0 / sum) : 0.0f;
    for (int64_t i = 0; i < a.ne[0]; ++i) o[i] *= inv;
  });
}

void GetRows(const Op& op, ThreadPool& pool) {
  const Tensor &table = *op.src[0], &ids = *op.src[1];
  float* out = static_cast<float*>(op.out->data);
  pool.ParallelFor(ids.ne[0], RowGrain(table.ne[0]), [&](int64_t r0, int64_t r1, int) {
    for (int64_t r = r0; r < r1; ++r) {
      const char* row = table.Row<const char>(static_cast<const int32_t*>(ids.data)[r]);
      if (IsQuantized(table.dtype)) {
        DequantizeRow(table.dtype, row, out + r * table.ne[0], table.ne[0]);
        continue;
      }
      for (int64_t i = 0; i < table.ne[0]; ++i) {
        out[r * table.ne[0] + i] = static_cast<float>(LoadElement(table.dtype, row + i * table.nb[0]));
      }
    }
  });
}

void TopK(const Op& op) {
  const Tensor& a = *op.src[0];
  int32_t* out = static_cast<int32_t*>(op.out->data);
  std::vector<int32_t> idx(a.ne[0]);
  for (int64_t r = 0; r < a.Rows(); ++r) {
    const float* x = FlatRow<const float>(a, r);
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + op.params.k, idx.end(),
                      [&](int32_t i, int32_t j) { return x[i] > x[j] || (x[i] == x[j] && i < j); });
    std::copy(idx.begin(), idx.begin() + op.params.k, out + r * op.params.k);
  }
}

// Rows of a into q8_0 blocks (a KV cache's new keys or values), as llama.cpp's CPU writes them.
void CopyToBlocks(const Op& op, ThreadPool& pool) {
  const Tensor& a = *op.src[0];
  char* out = static_cast<char*>(op.out->data);
  const size_t row_bytes = RowBytes(op.out->dtype, a.ne[0]);
  pool.ParallelFor(a.Rows(), RowGrain(a.ne[0]), [&](int64_t r0, int64_t r1, int) {
    std::vector<float> row(static_cast<size_t>(a.ne[0]));
    for (int64_t r = r0; r < r1; ++r) {
      const char* in = FlatRow<const char>(a, r);
      for (int64_t i = 0; i < a.ne[0]; ++i) row[static_cast<size_t>(i)] = static_cast<float>(LoadElement(a.dtype, in + i * a.nb[0]));
      QuantizeRowQ8_0Ggml(row.data(), out + r * row_bytes, a.ne[0]);  // ValidateOp checked the row length
    }
  });
}

void Copy(const Op& op, ThreadPool& pool) {
  if (IsQuantized(op.out->dtype)) return CopyToBlocks(op, pool);
  const Tensor& a = *op.src[0];
  char* out = static_cast<char*>(op.out->data);
  size_t in_size = BlockBytes(a.dtype), out_size = BlockBytes(op.out->dtype);
  pool.ParallelFor(a.Rows(), RowGrain(a.ne[0]), [&](int64_t r0, int64_t r1, int) {
    for (int64_t r = r0; r < r1; ++r) {
      const char* row = FlatRow<const char>(a, r);
      char* o = out + r * a.ne[0] * out_size;
      if (a.dtype == op.out->dtype && a.nb[0] == in_size) {
        std::memcpy(o, row, a.ne[0] * in_size);
        continue;
      }
      for (int64_t i = 0; i < a.ne[0]; ++i) StoreElement(op.out->dtype, o + i * out_size, LoadElement(a.dtype, row + i * a.nb[0]));
    }
  });
}

}  // namespace vt::cpu
