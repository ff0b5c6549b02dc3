#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"

namespace vt::cpu {
namespace {

// acc[d] += p * v[d] for one cache row, converting an f16 row on the fly.
void AddScaledRow(const Tensor& v, const char* row, float p, float* acc, int64_t hd) {
  if (v.dtype == DType::kF32) {
    const float* r = reinterpret_cast<const float*>(row);
    for (int64_t d = 0; d < hd; ++d) acc[d] += p * r[d];
    return;
  }
  const uint16_t* r = reinterpret_cast<const uint16_t*>(row);
  for (int64_t d = 0; d < hd; ++d) acc[d] += p * F16ToF32(r[d]);
}

}  // namespace

// Causal attention over the cache, one query head per task. Scores for every query token of
// a head are one matmul (cache rows × query rows) through the matmul kernels, so f16 caches
// and SIMD come for free; then a softmax over each token's visible prefix and the weighted
// sum of values.
void Attention(const Op& op, ThreadPool& pool) {
  const Tensor &q = *op.src[0], &k = *op.src[1], &v = *op.src[2];
  int64_t hd = q.ne[0], heads = q.ne[1], tokens = q.ne[2], group = q.ne[1] / k.ne[1];
  int64_t visible = op.params.n_past + tokens;
  float scale = op.params.scale != 0 ? op.params.scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(hd)));
  float* out = static_cast<float*>(op.out->data);
  pool.ParallelFor(heads, 1, [&](int64_t h0, int64_t h1, int) {
    std::vector<float> scores(static_cast<size_t>(tokens * visible)), acc(hd);
    for (int64_t h = h0; h < h1; ++h) {
      int64_t g = h / group;
      GemmArgs a{static_cast<const char*>(k.data) + g * k.nb[1], k.dtype, k.nb[2],
                 q.Row<const float>(h, 0), q.nb[2] / sizeof(float), scores.data(),
                 static_cast<size_t>(visible), tokens, visible, hd};
      GemmRange(a, 0, visible);
      for (int64_t t = 0; t < tokens; ++t) {
        float* s = scores.data() + t * visible;
        int64_t n = op.params.n_past + t + 1;
        float max = -INFINITY;
        for (int64_t j = 0; j < n; ++j) max = std::max(max, s[j] *= scale);
        double sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - max));
        std::fill(acc.begin(), acc.end(), 0.0f);
        const char* vrows = static_cast<const char*>(v.data) + g * v.nb[1];
        for (int64_t j = 0; j < n; ++j) AddScaledRow(v, vrows + j * v.nb[2], s[j], acc.data(), hd);
        float inv = static_cast<float>(1.0 / sum);
        float* o = out + (t * heads + h) * hd;
        for (int64_t d = 0; d < hd; ++d) o[d] = acc[d] * inv;
      }
    }
  });
}

}  // namespace vt::cpu
