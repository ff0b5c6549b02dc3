#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"

namespace vt::cpu {
namespace {

float CacheValue(const Tensor& v, const char* row, int64_t d) {
  if (v.dtype == DType::kF32) return reinterpret_cast<const float*>(row)[d];
  return F16ToF32(reinterpret_cast<const uint16_t*>(row)[d]);
}

// s[0, n) scaled, exponentiated against their max and normalised; s[n, visible) zeroed, so a
// row of probabilities can go through a matmul over every visible position.
void SoftmaxPrefix(float* s, int64_t n, int64_t visible, float scale) {
  float max = -INFINITY;
  for (int64_t j = 0; j < n; ++j) max = std::max(max, s[j] *= scale);
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - max));
  float inv = static_cast<float>(1.0 / sum);
  for (int64_t j = 0; j < n; ++j) s[j] *= inv;
  std::fill(s + n, s + visible, 0.0f);
}

// out[t][d] = Σ_j p[t][j] · v[j][d] for every query token of one head as one matmul: the kernels
// read weights along k (here the cache position), so the head's value rows go in transposed,
// as f32. Prefill's attention then runs at matmul speed instead of a scalar row loop.
void ValuesByMatmul(const Tensor& v, const char* vrows, const float* p, int64_t tokens, int64_t visible,
                    float* out, size_t out_stride, std::vector<float>& vt) {
  int64_t hd = v.ne[0];
  vt.resize(static_cast<size_t>(hd * visible));
  for (int64_t j = 0; j < visible; ++j) {
    const char* row = vrows + j * v.nb[2];
    for (int64_t d = 0; d < hd; ++d) vt[static_cast<size_t>(d * visible + j)] = CacheValue(v, row, d);
  }
  GemmArgs a{reinterpret_cast<const char*>(vt.data()), DType::kF32, static_cast<size_t>(visible) * sizeof(float),
             p, static_cast<size_t>(visible), out, out_stride, tokens, hd, visible};
  GemmRange(a, 0, hd);
}

}  // namespace

// Causal attention over the cache, one query head per task. Scores for every query token of
// a head are one matmul (cache rows × query rows) through the matmul kernels, so f16 caches
// and SIMD come for free; then a softmax over each token's visible prefix and the weighted
// sum of values: a second matmul for a prompt, one pass over the value rows (the kernel set's
// weighted_rows) for a decode step.
void Attention(const Op& op, ThreadPool& pool) {
  const Tensor &q = *op.src[0], &k = *op.src[1], &v = *op.src[2];
  int64_t hd = q.ne[0], heads = q.ne[1], tokens = q.ne[2], group = q.ne[1] / k.ne[1];
  int64_t visible = op.params.n_past + tokens;
  float scale = op.params.scale != 0 ? op.params.scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(hd)));
  float* out = static_cast<float*>(op.out->data);
  size_t out_stride = static_cast<size_t>(heads * hd);
  pool.ParallelFor(heads, 1, [&](int64_t h0, int64_t h1, int) {
    std::vector<float> scores(static_cast<size_t>(tokens * visible)), acc(hd), vt;
    for (int64_t h = h0; h < h1; ++h) {
      int64_t g = h / group;
      GemmArgs a{static_cast<const char*>(k.data) + g * k.nb[1], k.dtype, k.nb[2],
                 q.Row<const float>(h, 0), q.nb[2] / sizeof(float), scores.data(),
                 static_cast<size_t>(visible), tokens, visible, hd};
      GemmRange(a, 0, visible);
      for (int64_t t = 0; t < tokens; ++t) SoftmaxPrefix(scores.data() + t * visible, op.params.n_past + t + 1, visible, scale);
      const char* vrows = static_cast<const char*>(v.data) + g * v.nb[1];
      if (tokens > kGemvMaxRows) {
        ValuesByMatmul(v, vrows, scores.data(), tokens, visible, out + h * hd, out_stride, vt);
        continue;
      }
      for (int64_t t = 0; t < tokens; ++t) {
        const float* s = scores.data() + t * visible;
        std::fill(acc.begin(), acc.end(), 0.0f);
        BestKernels().weighted_rows(vrows, v.dtype, v.nb[2], s, op.params.n_past + t + 1, acc.data(), hd);
        std::copy(acc.begin(), acc.end(), out + t * out_stride + h * hd);
      }
    }
  });
}

}  // namespace vt::cpu
