#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"
#include "vt/quant.h"

namespace vt::cpu {
namespace {

// Element d of a cache row: f32, f16, bf16, or a q8_0 block's int8 times its f16 scale.
float CacheValue(const Tensor& v, const char* row, int64_t d) {
  uint16_t h;
  switch (v.dtype) {
    case DType::kF32: return reinterpret_cast<const float*>(row)[d];
    case DType::kBF16: std::memcpy(&h, row + 2 * d, 2); return BF16ToF32(h);
    case DType::kQ8_0: {
      const char* block = row + d / 32 * BlockBytes(DType::kQ8_0);
      std::memcpy(&h, block, 2);
      return F16ToF32(h) * static_cast<float>(static_cast<int8_t>(block[2 + d % 32]));
    }
    default: std::memcpy(&h, row + 2 * d, 2); return F16ToF32(h);
  }
}

// A q8_0 cache's rows are read a chunk at a time, dequantized into f32 here: one call of the
// f32 kernels per chunk (a call per row, as a block-type matmul's path makes it, cost more
// than the keys' dot products at long contexts).
constexpr int64_t kDequantizedRows = 256;

// Rows [0, n) of a cache from `rows` (its stride apart) as f32 rows of its ne[0], into `out`
// (a bf16 row's values exactly: bf16 is f32's top half).
const char* DequantizedRows(const MatmulKernels& kernels, const Tensor& t, const char* rows, int64_t n, std::vector<float>& out) {
  const int64_t hd = t.ne[0];
  out.resize(static_cast<size_t>(n * hd));
  for (int64_t j = 0; j < n; ++j) {
    const char* row = rows + j * t.nb[2];
    float* to = out.data() + j * hd;
    if (t.dtype == DType::kBF16) {
      for (int64_t d = 0; d < hd; ++d) to[d] = CacheValue(t, row, d);
    } else if (!kernels.dequantize || !kernels.dequantize(t.dtype, row, to, hd)) {
      DequantizeRow(t.dtype, row, to, hd);
    }
  }
  return reinterpret_cast<const char*>(out.data());
}

// f(j0, m, f32) for rows [0, n) of a cache from `rows`, kDequantizedRows at a time: rows
// [j0, j0 + m) as f32 rows of its ne[0].
template <typename F>
void ForDequantizedChunks(const MatmulKernels& kernels, const Tensor& t, const char* rows, int64_t n, F f) {
  thread_local std::vector<float> plain;
  for (int64_t j0 = 0; j0 < n; j0 += kDequantizedRows) {
    const int64_t m = std::min(kDequantizedRows, n - j0);
    f(j0, m, DequantizedRows(kernels, t, rows + j0 * t.nb[2], m, plain));
  }
}

// acc[d] += Σ_j p[j]·row_j[d] over n value rows from `rows`: the same sums, row after row,
// whether or not the rows were dequantized first.
void WeightedValues(const MatmulKernels& kernels, const Tensor& v, const char* rows, const float* p, int64_t n, float* acc) {
  const int64_t hd = v.ne[0];
  if (!IsQuantized(v.dtype)) return kernels.weighted_rows(rows, v.dtype, v.nb[2], p, n, acc, hd);
  ForDequantizedChunks(kernels, v, rows, n, [&](int64_t j0, int64_t m, const char* f32) {
    kernels.weighted_rows(f32, DType::kF32, static_cast<size_t>(hd) * sizeof(float), p + j0, m, acc, hd);
  });
}

// Scores of `a`'s query rows against its n key rows (a.N = n) with the keys dequantized a chunk
// at a time, each chunk one f32 matmul.
void DequantizedScores(const MatmulKernels& kernels, const Tensor& k, const GemmArgs& a) {
  ForDequantizedChunks(kernels, k, a.w, a.N, [&](int64_t j0, int64_t m, const char* f32) {
    GemmArgs chunk = a;
    chunk.w = f32;
    chunk.wtype = DType::kF32;
    chunk.w_stride = static_cast<size_t>(k.ne[0]) * sizeof(float);
    chunk.out = a.out + j0;
    chunk.N = m;
    GemmRange(chunk, 0, m);
  });
}

// Scores of `a`'s query rows against its n key rows (a.N = n). A q8_0 cache's keys meet the
// queries as ggml's flash attention has them meet: the queries rounded to 8-bit blocks, integer
// dot products (the kernel set's decode path, 16 query rows at a time), so greedy tokens follow
// llama.cpp's with the same -ctk; a set without that path dequantizes the keys. A bf16 cache's
// keys are read as f32 for a prompt, whose bf16 gemm (AVX512_BF16's dot product) would round
// the queries to bf16.
// `per_token`: a float cache's query rows too go 16 at a time through the decode's kernels, so
// each row's scores are the bits a decode step of that token gets (batch invariance).
void KeyScores(const MatmulKernels& kernels, const Tensor& k, GemmArgs a, bool per_token) {
  if (!IsQuantized(k.dtype) && (!per_token || a.M <= kGemvMaxRows)) {
    if (k.dtype == DType::kBF16 && a.M > kGemvMaxRows) return DequantizedScores(kernels, k, a);
    return GemmRange(a, 0, a.N);
  }
  thread_local std::vector<uint8_t> acts;
  const int64_t rows = a.M;
  const float* x = a.x;
  float* out = a.out;
  for (int64_t m0 = 0; m0 < rows; m0 += kGemvMaxRows) {
    a.M = std::min(kGemvMaxRows, rows - m0);
    a.x = x + m0 * a.x_stride;
    a.out = out + m0 * a.out_stride;
    if (!IsQuantized(k.dtype)) {
      GemmRange(a, 0, a.N);
      continue;
    }
    const DecodeRows d = PrepareDecode(a, &acts);
    if (d.acts) DecodeRange(d, 0, a.N);
    else DequantizedScores(kernels, k, a);
  }
}

// s[first, n) scaled, exponentiated against their max and normalised (a sink, -inf where
// none, joining the max and the sum); s[lo, first) and s[n, visible) zeroed, so a row of
// probabilities can go through a matmul over the block's positions [lo, visible).
void SoftmaxRange(const MatmulKernels& kernels, float* s, int64_t lo, int64_t first, int64_t n, int64_t visible, float scale, float sink) {
  float max = sink;
  for (int64_t j = first; j < n; ++j) max = std::max(max, s[j] *= scale);
  float inv = 1.0f / (kernels.exp_shifted(s + first, n - first, max) + std::exp(sink - max));
  for (int64_t j = first; j < n; ++j) s[j] *= inv;
  std::fill(s + lo, s + first, 0.0f);
  std::fill(s + n, s + visible, 0.0f);
}

// The head's value rows transposed to f32, vt[d][j] = v[j][d]: the matmul kernels read weights
// along k (here the cache position), so a prompt's weighted sums of values run as a matmul.
void TransposeValues(const Tensor& v, const char* vrows, int64_t visible, std::vector<float>& vt) {
  int64_t hd = v.ne[0];
  vt.resize(static_cast<size_t>(hd * visible));
  for (int64_t j = 0; j < visible; ++j) {
    const char* row = vrows + j * v.nb[2];
    for (int64_t d = 0; d < hd; ++d) vt[static_cast<size_t>(d * visible + j)] = CacheValue(v, row, d);
  }
}

// Positions [pos, pos + n) of a sequence, in rows [row, row + n) of its cache.
struct Run {
  int64_t pos, n, row;
};

// A row map's runs of consecutive rows (a paged cache's blocks, merged where they follow each
// other); no map: one run, position j in row j.
std::vector<Run> RunsOf(const int32_t* rows, int64_t visible) {
  if (!rows) return {Run{0, visible, 0}};
  std::vector<Run> runs;
  for (int64_t j = 0; j < visible; ++j) {
    if (!runs.empty() && rows[j] == runs.back().row + runs.back().n) ++runs.back().n;
    else runs.push_back(Run{j, 1, rows[j]});
  }
  return runs;
}

// Calls f(run, first, count) for the part of each run inside positions [lo, hi).
template <typename F>
void ForRuns(const std::vector<Run>& runs, int64_t lo, int64_t hi, F f) {
  for (const Run& r : runs) {
    int64_t s0 = std::max(lo, r.pos), s1 = std::min(hi, r.pos + r.n);
    if (s0 < s1) f(r.row + (s0 - r.pos), s0, s1 - s0);
  }
}

struct HeadWork {
  const std::vector<Run>& runs;  // where k's and v's rows are (decode steps read through them)
  const Tensor &q, &k, &v;
  int64_t tokens, visible, n_past, window;
  bool per_token;  // every token's attention as a decode step computes it (batch invariance)
  float scale;
  const float* sinks;  // [heads], or null
  float* out;
  size_t out_stride;
  std::vector<float> &scores, &acc, &vt;
};

// The first cache position query token t sees: its window's start, or 0.
int64_t FirstVisible(const HeadWork& w, int64_t t) {
  return w.window > 0 ? std::max<int64_t>(0, w.n_past + t + 1 - w.window) : 0;
}

// Query tokens [t0, t1) of head h see positions [lo, n_past + t1), lo the first token's first
// visible one: their scores and values are matmuls over that range only, so a causal prompt in
// blocks skips most of the masked half, and a sliding window all it slid past.
void HeadBlock(const HeadWork& w, int64_t h, int64_t t0, int64_t t1) {
  const MatmulKernels& kernels = BestKernels();
  int64_t hd = w.q.ne[0], g = h / (w.q.ne[1] / w.k.ne[1]), vis = w.n_past + t1, rows = t1 - t0, lo = FirstVisible(w, t0);
  float* scores = w.scores.data() + t0 * w.visible;
  // Each key's score is its own dot product (the gemv kernels give a key the same bits
  // whichever keys share its call), so a run at a time is the contiguous cache's arithmetic.
  ForRuns(w.runs, lo, vis, [&](int64_t row, int64_t first, int64_t n) {
    GemmArgs a{static_cast<const char*>(w.k.data) + g * w.k.nb[1] + row * w.k.nb[2], w.k.dtype, w.k.nb[2],
               w.q.Row<const float>(h, t0), w.q.nb[2] / sizeof(float), scores + first, static_cast<size_t>(w.visible), rows, n, hd};
    KeyScores(kernels, w.k, a, w.per_token);
  });
  for (int64_t t = t0; t < t1; ++t) {
    SoftmaxRange(kernels, scores + (t - t0) * w.visible, lo, FirstVisible(w, t), w.n_past + t + 1, vis, w.scale,
                 w.sinks ? w.sinks[h] : -INFINITY);
  }
  float* out = w.out + t0 * w.out_stride + h * hd;
  if (w.tokens > kGemvMaxRows && !w.per_token) {  // values transposed: weight row d's element j at vt[d·visible + j]
    GemmArgs values{reinterpret_cast<const char*>(w.vt.data() + lo), DType::kF32, static_cast<size_t>(w.visible) * sizeof(float),
                    scores + lo, static_cast<size_t>(w.visible), out, w.out_stride, rows, hd, vis - lo};
    GemmRange(values, 0, hd);
    return;
  }
  const char* vrows = static_cast<const char*>(w.v.data) + g * w.v.nb[1];
  for (int64_t t = t0; t < t1; ++t) {
    std::fill(w.acc.begin(), w.acc.end(), 0.0f);
    // weighted_rows adds row after row into acc: run after run is the same order of sums.
    ForRuns(w.runs, FirstVisible(w, t), w.n_past + t + 1, [&](int64_t row, int64_t first, int64_t n) {
      WeightedValues(kernels, w.v, vrows + row * w.v.nb[2], scores + (t - t0) * w.visible + first, n, w.acc.data());
    });
    std::copy(w.acc.begin(), w.acc.end(), out + (t - t0) * w.out_stride);
  }
}

// Query tokens per block of a prompt: a multiple of every kernel set's tile rows, small enough
// that blocks skip most masked scores (512 tokens in 96s compute 59% of the full square), large
// enough that each block's packed keys serve many rows.
constexpr int64_t kAttentionBlock = 96;

// A paged cache's visible rows gathered in position order into `scratch`, the layout the
// prompt path's gemms read (their tiles are not split at a run's end: gathered, the
// arithmetic is the contiguous cache's, bit for bit).
Tensor Gathered(const Tensor& cache, const int32_t* rows, int64_t visible, std::vector<char>& scratch, ThreadPool& pool) {
  Tensor t = cache;
  t.ne[2] = visible;
  scratch.resize(static_cast<size_t>(visible) * cache.nb[2]);
  t.data = scratch.data();
  t.nb[3] = static_cast<size_t>(visible) * cache.nb[2];
  pool.ParallelFor(visible, 64, [&](int64_t j0, int64_t j1, int) {
    for (int64_t j = j0; j < j1; ++j) {
      std::memcpy(scratch.data() + j * cache.nb[2], static_cast<const char*>(cache.data) + static_cast<size_t>(rows[j]) * cache.nb[2], cache.nb[2]);
    }
  });
  return t;
}

}  // namespace

// Causal attention over the cache (over a sliding window where op.params.window says), one
// query head per task. Scores for a block of query tokens
// are one matmul (cache rows × query rows) through the matmul kernels, so f16 caches and SIMD
// come for free; then a softmax over each token's visible prefix and the weighted sum of
// values: a second matmul for a prompt, one pass over the value rows (the kernel set's
// weighted_rows) for a decode step.
void Attention(const Op& op, ThreadPool& pool) { AttentionOf(op, pool, ChosenKernels().batch_invariant); }

void AttentionOf(const Op& op, ThreadPool& pool, bool per_token) {
  const Tensor& q = *op.src[0];
  int64_t hd = q.ne[0], heads = q.ne[1], tokens = q.ne[2], group = q.ne[1] / op.src[1]->ne[1];
  int64_t visible = op.params.n_past + tokens;
  const AttentionExtras extras = AttentionExtrasOf(op.src);
  const int32_t* rows = extras.rows ? static_cast<const int32_t*>(extras.rows->data) : nullptr;
  std::vector<Run> runs = RunsOf(rows, visible);
  // Decode steps read a paged cache run by run; a prompt over scattered blocks reads a copy.
  thread_local std::vector<char> k_rows, v_rows;
  const bool gather = tokens > kGemvMaxRows && runs.size() > 1;
  const bool gathered = gather && !per_token;  // per token, the decode's reads: run by run
  const Tensor k = gathered ? Gathered(*op.src[1], rows, visible, k_rows, pool) : *op.src[1];
  const Tensor v = gathered ? Gathered(*op.src[2], rows, visible, v_rows, pool) : *op.src[2];
  if (gathered) runs = {Run{0, visible, 0}};
  float scale = op.params.scale != 0 ? op.params.scale : static_cast<float>(1.0 / std::sqrt(static_cast<double>(hd)));
  pool.ParallelFor(heads, 1, [&](int64_t h0, int64_t h1, int) {
    std::vector<float> scores(static_cast<size_t>(tokens * visible)), acc(hd), vt;
    const float* sinks = extras.sinks ? static_cast<const float*>(extras.sinks->data) : nullptr;
    HeadWork w{runs, q, k, v, tokens, visible, op.params.n_past, op.params.window, per_token, scale, sinks, static_cast<float*>(op.out->data),
               static_cast<size_t>(heads * hd), scores, acc, vt};
    int64_t transposed = -1;  // heads of one KV group share its transposed values
    for (int64_t h = h0; h < h1; ++h) {
      if (tokens <= kGemvMaxRows || per_token) {
        HeadBlock(w, h, 0, tokens);
        continue;
      }
      if (h / group != transposed) {  // (a prompt reads one run: the cache, a gathered copy or one run of blocks)
        TransposeValues(v, static_cast<const char*>(v.data) + runs[0].row * v.nb[2] + h / group * v.nb[1], visible, vt);
        transposed = h / group;
      }
      for (int64_t t0 = 0; t0 < tokens; t0 += kAttentionBlock) HeadBlock(w, h, t0, std::min(tokens, t0 + kAttentionBlock));
    }
  });
}

}  // namespace vt::cpu
