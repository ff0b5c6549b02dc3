#include <cmath>
#include <vector>

#include "core/element.h"
#include "cpu/cpu_ops.h"

namespace vt::cpu {
namespace {

// One cache row (head g, position j) as f32, converting an f16 cache on the fly.
const float* CacheRow(const Tensor& c, int64_t g, int64_t j, std::vector<float>& tmp) {
  const char* row = static_cast<const char*>(c.data) + g * c.nb[1] + j * c.nb[2];
  if (c.dtype == DType::kF32) return reinterpret_cast<const float*>(row);
  for (int64_t d = 0; d < c.ne[0]; ++d) tmp[d] = static_cast<float>(LoadElement(c.dtype, row + d * c.nb[0]));
  return tmp.data();
}

}  // namespace

// Causal attention for each (token, head): scores over cache entries 0..n_past+t, a softmax,
// then the weighted sum of values. Query heads share kv heads in groups (GQA).
void Attention(const Op& op, ThreadPool& pool) {
  const Tensor &q = *op.src[0], &k = *op.src[1], &v = *op.src[2];
  int64_t hd = q.ne[0], heads = q.ne[1], group = q.ne[1] / k.ne[1];
  float scale = op.params.scale != 0 ? op.params.scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(hd)));
  float* out = static_cast<float*>(op.out->data);
  pool.ParallelFor(q.ne[2] * heads, 1, [&](int64_t r0, int64_t r1, int) {
    std::vector<float> tmp(hd), scores, acc(hd);
    for (int64_t r = r0; r < r1; ++r) {
      int64_t t = r / heads, h = r % heads, g = h / group, n = op.params.n_past + t + 1;
      const float* qv = q.Row<const float>(h, t);
      scores.resize(n);
      float max = -INFINITY;
      for (int64_t j = 0; j < n; ++j) {
        const float* kv = CacheRow(k, g, j, tmp);
        float dot = 0;
        for (int64_t d = 0; d < hd; ++d) dot += qv[d] * kv[d];
        max = std::max(max, scores[j] = dot * scale);
      }
      double sum = 0;
      for (float& s : scores) sum += (s = std::exp(s - max));
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t j = 0; j < n; ++j) {
        const float* vv = CacheRow(v, g, j, tmp);
        for (int64_t d = 0; d < hd; ++d) acc[d] += scores[j] * vv[d];
      }
      float inv = static_cast<float>(1.0 / sum);
      for (int64_t d = 0; d < hd; ++d) out[r * hd + d] = acc[d] * inv;
    }
  });
}

}  // namespace vt::cpu
