// The core ops other than matmul as CUDA kernels: ports of engine/shaders with the same
// semantics (specs/cuda.md), indexing through byte strides so views and in-place work.
#include <cmath>

#include "cuda/cuda_common.cuh"

namespace vt::cuda {

Dev4 ToDev4(const Tensor& t) {
  Dev4 d;
  d.data = static_cast<char*>(t.data);
  for (int i = 0; i < 4; ++i) {
    d.ne[i] = t.ne[i];
    d.nb[i] = static_cast<int64_t>(t.nb[i]);
  }
  d.dtype = t.dtype == DType::kF32 ? 0 : t.dtype == DType::kF16 ? 1 : t.dtype == DType::kBF16 ? 2 : 3;
  return d;
}

namespace {

__device__ inline void Unflatten(const Dev4& t, int64_t i, int64_t* idx) {
  idx[0] = i % t.ne[0];
  i /= t.ne[0];
  idx[1] = i % t.ne[1];
  i /= t.ne[1];
  idx[2] = i % t.ne[2];
  idx[3] = i / t.ne[2];
}

__global__ void ElementwiseKernel(Dev4 a, Dev4 b, Dev4 o, int op, float scale, float alpha, float limit) {
  int64_t n = o.ne[0] * o.ne[1] * o.ne[2] * o.ne[3];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    int64_t x[4];
    Unflatten(o, i, x);
    float v = *reinterpret_cast<const float*>(At(a, x[0], x[1], x[2], x[3]));
    float y = 0;
    if (op == 0 || op == 1 || op >= 4) {
      y = *reinterpret_cast<const float*>(At(b, x[0] % b.ne[0], x[1] % b.ne[1], x[2] % b.ne[2], x[3] % b.ne[3]));
    }
    if (op == 0) v += y;
    else if (op == 1) v *= y;
    else if (op == 2) v *= scale;
    else if (op == 3) v = v / (1.0f + expf(-v));
    else if (op == 4) v = v / (1.0f + expf(-v)) * y;
    else if (op == 5) v = v / (1.0f + expf(-1.5957691216057308f * v * (1.0f + 0.044715f * v * v))) * y;  // gelu_tanh = x·σ(2u)
    else {
      const float xc = fminf(v, limit);
      v = xc / (1.0f + expf(-alpha * xc)) * (fminf(fmaxf(y, -limit), limit) + 1.0f);
    }
    *reinterpret_cast<float*>(At(o, x[0], x[1], x[2], x[3])) = v;
  }
}

// A block per row (rows flattened over ne1..ne3).
__device__ inline void RowIndex(const Dev4& t, int64_t row, int64_t* i1, int64_t* i2, int64_t* i3) {
  *i1 = row % t.ne[1];
  *i2 = (row / t.ne[1]) % t.ne[2];
  *i3 = row / (t.ne[1] * t.ne[2]);
}

__global__ void RmsNormKernel(Dev4 a, Dev4 o, float eps) {
  __shared__ float scratch[32];
  int64_t i1, i2, i3;
  RowIndex(a, blockIdx.x, &i1, &i2, &i3);
  const float* x = reinterpret_cast<const float*>(At(a, 0, i1, i2, i3));
  float* y = reinterpret_cast<float*>(At(o, 0, i1, i2, i3));
  float ss = 0;
  for (int64_t i = threadIdx.x; i < a.ne[0]; i += blockDim.x) ss += x[i] * x[i];
  float inv = rsqrtf(BlockReduce<false>(ss, scratch) / static_cast<float>(a.ne[0]) + eps);
  for (int64_t i = threadIdx.x; i < a.ne[0]; i += blockDim.x) y[i] = x[i] * inv;
}

__global__ void SoftmaxKernel(Dev4 a, Dev4 mask, Dev4 o, float scale) {
  __shared__ float scratch[32];
  int64_t i1, i2, i3;
  RowIndex(a, blockIdx.x, &i1, &i2, &i3);
  const float* x = reinterpret_cast<const float*>(At(a, 0, i1, i2, i3));
  const float* m = mask.data ? reinterpret_cast<const float*>(At(mask, 0, i1)) : nullptr;
  float* y = reinterpret_cast<float*>(At(o, 0, i1, i2, i3));
  float mx = -INFINITY;
  for (int64_t i = threadIdx.x; i < a.ne[0]; i += blockDim.x) mx = fmaxf(mx, x[i] * scale + (m ? m[i] : 0.0f));
  mx = BlockReduce<true>(mx, scratch);
  float sum = 0;
  if (mx != -INFINITY) {
    for (int64_t i = threadIdx.x; i < a.ne[0]; i += blockDim.x) sum += expf(x[i] * scale + (m ? m[i] : 0.0f) - mx);
  }
  sum = BlockReduce<false>(sum, scratch);
  float inv = sum > 0 ? 1.0f / sum : 0.0f;
  for (int64_t i = threadIdx.x; i < a.ne[0]; i += blockDim.x) {
    y[i] = mx == -INFINITY ? 0.0f : expf(x[i] * scale + (m ? m[i] : 0.0f) - mx) * inv;
  }
}

struct RopeArgs {
  Dev4 a, pos, o;
  int n_dims;
  bool neox;  // pair j is (j, j + n_dims/2), not (2j, 2j + 1)
  float mscale;  // RopeMagnitude(params): YaRN's and attn_factor's scaling of rotated values
  double freq[kMaxRopeDims / 2];  // RopeFrequency(params, n_dims, j), from the host
};

// One thread per pair. The angle is formed in double and reduced to [-pi, pi] there, so
// sincosf sees a small argument at any position.
__global__ void RopeKernel(const RopeArgs r) {
  int64_t half = r.a.ne[0] / 2, n = half * r.a.ne[1] * r.a.ne[2] * r.a.ne[3];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    int64_t j = i % half, rest = i / half, head = rest % r.a.ne[1];
    int64_t t = (rest / r.a.ne[1]) % r.a.ne[2], i3 = rest / (r.a.ne[1] * r.a.ne[2]);
    const bool rotated = 2 * j < r.n_dims;
    const int64_t e0 = rotated && r.neox ? j : 2 * j, step = rotated && r.neox ? r.n_dims / 2 : 1;
    const float* x = reinterpret_cast<const float*>(At(r.a, e0, head, t, i3));
    float* y = reinterpret_cast<float*>(At(r.o, e0, head, t, i3));
    float x0 = x[0], x1 = x[step];  // a row's elements are contiguous (nb0 = 4)
    if (!rotated) {
      y[0] = x0;
      y[1] = x1;
      continue;
    }
    double p = *reinterpret_cast<const int32_t*>(At(r.pos, t, 0));
    float s, c;
    sincosf(static_cast<float>(remainder(p * r.freq[j], 2 * M_PI)), &s, &c);
    y[0] = r.mscale * (x0 * c - x1 * s);
    y[step] = r.mscale * (x0 * s + x1 * c);
  }
}

__global__ void GetRowsKernel(Dev4 table, Dev4 ids, Dev4 o) {
  int64_t n = o.ne[0] * o.ne[1];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    int64_t k = i % o.ne[0], row = i / o.ne[0];
    int32_t id = *reinterpret_cast<const int32_t*>(At(ids, row, 0));
    *reinterpret_cast<float*>(At(o, k, row)) = LoadF(table, At(table, k, id));
  }
}

// (v, i) comes before (bv, bi) in the output order: descending, ties to the lower index.
__device__ inline bool Before(float v, int64_t i, float bv, int64_t bi) {
  return bi < 0 || v > bv || (v == bv && i < bi);
}

// A block (128 threads) per row; pick j is the best element strictly after pick j-1.
__global__ void TopKKernel(Dev4 a, Dev4 o, int k) {
  __shared__ float best_v[128];
  __shared__ int64_t best_i[128];
  int64_t i1, i2, i3;
  RowIndex(a, blockIdx.x, &i1, &i2, &i3);
  const float* x = reinterpret_cast<const float*>(At(a, 0, i1, i2, i3));
  int32_t* y = reinterpret_cast<int32_t*>(At(o, 0, i1, i2, i3));
  float prev_v = 0;
  int64_t prev_i = -1;
  int tid = threadIdx.x;
  for (int j = 0; j < k; ++j) {
    float bv = 0;
    int64_t bi = -1;
    for (int64_t i = tid; i < a.ne[0]; i += 128) {
      bool after = prev_i < 0 || (!Before(x[i], i, prev_v, prev_i) && i != prev_i);
      if (after && Before(x[i], i, bv, bi)) bv = x[i], bi = i;
    }
    best_v[tid] = bv;
    best_i[tid] = bi;
    __syncthreads();
    for (int s = 64; s > 0; s >>= 1) {
      if (tid < s && best_i[tid + s] >= 0 && Before(best_v[tid + s], best_i[tid + s], best_v[tid], best_i[tid])) {
        best_v[tid] = best_v[tid + s];
        best_i[tid] = best_i[tid + s];
      }
      __syncthreads();
    }
    prev_v = best_v[0];
    prev_i = best_i[0];
    if (tid == 0) y[j] = static_cast<int32_t>(prev_i);
    __syncthreads();
  }
}

struct AttentionArgs {
  Dev4 q, k, v, o;
  int n_past, window;
  float scale;
  const float* sinks;  // [heads] f32, or null
  const int32_t* rows;  // position j's cache row (a paged cache's block table), or null: j
};

__device__ int64_t CacheRow(const AttentionArgs& a, int64_t j) { return a.rows ? a.rows[j] : j; }

// A block (128 threads) per (head, token): keys in chunks of 128, one score per thread,
// online softmax; each thread accumulates up to 4 output dims (head_dim <= 512).
__global__ void AttentionKernel(const AttentionArgs a) {
  __shared__ float qs[kMaxHeadDim];
  __shared__ float scores[128];
  int64_t hd = a.q.ne[0], heads = a.q.ne[1], h = blockIdx.x % heads, t = blockIdx.x / heads;
  int64_t g = h / (heads / a.k.ne[1]), n = a.n_past + t + 1;
  int64_t lo = a.window > 0 && n > a.window ? n - a.window : 0;  // a sliding window's first key
  int tid = threadIdx.x;
  for (int64_t d = tid; d < hd; d += 128) qs[d] = *reinterpret_cast<const float*>(At(a.q, d, h, t));
  __syncthreads();
  // The online softmax starts from the sink, where there is one: max = sink, sum = e^0 = 1.
  float m = a.sinks ? a.sinks[h] : -INFINITY, l = a.sinks ? 1.0f : 0.0f, acc[4] = {0, 0, 0, 0};
  for (int64_t c0 = lo; c0 < n; c0 += 128) {
    int64_t j = c0 + tid, cn = min(int64_t{128}, n - c0);
    float s = -INFINITY;
    if (j < n) {
      s = 0;
      for (int64_t d = 0; d < hd; ++d) s += qs[d] * LoadF(a.k, At(a.k, d, g, CacheRow(a, j)));
      s *= a.scale;
    }
    scores[tid] = s;
    __syncthreads();
    float cm = -INFINITY;
    for (int64_t i = 0; i < cn; ++i) cm = fmaxf(cm, scores[i]);
    float mn = fmaxf(m, cm), corr = expf(m - mn);
    l *= corr;
    for (int x = 0; x < 4; ++x) acc[x] *= corr;
    for (int64_t i = 0; i < cn; ++i) {
      float w = expf(scores[i] - mn);
      l += w;
      for (int x = 0; x < 4; ++x) {
        int64_t d = tid + 128 * x;
        if (d < hd) acc[x] += w * LoadF(a.v, At(a.v, d, g, CacheRow(a, c0 + i)));
      }
    }
    m = mn;
    __syncthreads();
  }
  for (int x = 0; x < 4; ++x) {
    int64_t d = tid + 128 * x;
    if (d < hd) *reinterpret_cast<float*>(At(a.o, d, h, t)) = acc[x] / l;
  }
}

__global__ void CopyKernel(Dev4 a, Dev4 o) {
  int64_t n = a.ne[0] * a.ne[1] * a.ne[2] * a.ne[3];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    int64_t x[4];
    Unflatten(a, i, x);
    StoreF(o, At(o, x[0], x[1], x[2], x[3]), LoadF(a, At(a, x[0], x[1], x[2], x[3])));
  }
}

int ElementwiseCode(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd: return 0;
    case OpKind::kMul: return 1;
    case OpKind::kScale: return 2;
    case OpKind::kSilu: return 3;
    case OpKind::kGeglu: return 5;
    case OpKind::kSwigluOai: return 6;
    default: return 4;
  }
}

}  // namespace

cudaError_t LaunchElementwise(const Op& op, cudaStream_t stream) {
  Dev4 a = ToDev4(*op.src[0]), b = op.src.size() > 1 ? ToDev4(*op.src[1]) : a, o = ToDev4(*op.out);
  ElementwiseKernel<<<Blocks(op.out->NumElements(), 256), 256, 0, stream>>>(a, b, o, ElementwiseCode(op.kind), op.params.scale,
                                                                      op.params.alpha, op.params.limit);
  return cudaGetLastError();
}

cudaError_t LaunchRmsNorm(const Op& op, cudaStream_t stream) {
  RmsNormKernel<<<static_cast<unsigned>(op.src[0]->Rows()), 256, 0, stream>>>(ToDev4(*op.src[0]), ToDev4(*op.out), op.params.eps);
  return cudaGetLastError();
}

cudaError_t LaunchSoftmax(const Op& op, cudaStream_t stream) {
  Dev4 mask = op.src.size() > 1 ? ToDev4(*op.src[1]) : Dev4{};
  SoftmaxKernel<<<static_cast<unsigned>(op.src[0]->Rows()), 256, 0, stream>>>(ToDev4(*op.src[0]), mask, ToDev4(*op.out),
                                                                              op.params.scale);
  return cudaGetLastError();
}

cudaError_t LaunchRope(const Op& op, cudaStream_t stream) {
  RopeArgs r{ToDev4(*op.src[0]), ToDev4(*op.src[1]), ToDev4(*op.out), op.params.n_dims ? op.params.n_dims : static_cast<int>(op.src[0]->ne[0]),
             op.params.rope_neox, static_cast<float>(RopeMagnitude(op.params)), {}};
  for (int j = 0; j < r.n_dims / 2; ++j) {
    r.freq[j] = RopeFrequency(op.params, r.n_dims, j);
  }
  RopeKernel<<<Blocks(op.src[0]->NumElements() / 2, 256), 256, 0, stream>>>(r);
  return cudaGetLastError();
}

cudaError_t LaunchGetRows(const Op& op, cudaStream_t stream) {
  GetRowsKernel<<<Blocks(op.out->NumElements(), 256), 256, 0, stream>>>(ToDev4(*op.src[0]), ToDev4(*op.src[1]), ToDev4(*op.out));
  return cudaGetLastError();
}

cudaError_t LaunchTopK(const Op& op, cudaStream_t stream) {
  TopKKernel<<<static_cast<unsigned>(op.src[0]->Rows()), 128, 0, stream>>>(ToDev4(*op.src[0]), ToDev4(*op.out), op.params.k);
  return cudaGetLastError();
}

cudaError_t LaunchAttention(const Op& op, cudaStream_t stream) {
  const Tensor& q = *op.src[0];
  float scale = op.params.scale != 0 ? op.params.scale : static_cast<float>(1 / std::sqrt(static_cast<double>(q.ne[0])));
  const AttentionExtras extras = AttentionExtrasOf(op.src);
  AttentionArgs a{ToDev4(q), ToDev4(*op.src[1]), ToDev4(*op.src[2]), ToDev4(*op.out), op.params.n_past, op.params.window, scale,
                  extras.sinks ? static_cast<const float*>(extras.sinks->data) : nullptr,
                  extras.rows ? static_cast<const int32_t*>(extras.rows->data) : nullptr};
  AttentionKernel<<<static_cast<unsigned>(q.ne[1] * q.ne[2]), 128, 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t LaunchCopy(const Op& op, cudaStream_t stream) {
  CopyKernel<<<Blocks(op.out->NumElements(), 256), 256, 0, stream>>>(ToDev4(*op.src[0]), ToDev4(*op.out));
  return cudaGetLastError();
}

}  // namespace vt::cuda
