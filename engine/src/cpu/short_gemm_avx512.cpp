// The AVX-512 set's short-prompt gemm (kShortGemmMinRows <= M <= kShortGemmRows), compiled with the
// AVX-512 flags and called only through Avx512Kernels(). The packed gemm transposes every
// weight into panels once per call, a cost 32 activation rows cannot repay (26% of a pp32
// profile of the 2048-wide f16 model); here the activations, M x K and small, are what is
// packed, once per matmul, and the weights are only converted to f32 in their own order.
#include <immintrin.h>

#include <vector>

#include "cpu/avx512_tile.h"
#include "cpu/matmul_kernels.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_ps (bug 105593)

namespace vt::cpu {
namespace {

constexpr int kSlice = 512;  // k per converted weight block: 12 rows x 2 KiB of f32, in L1

// Vectors of 16 activation rows a short prompt takes: 2 up to 32 rows, else 3 (the caller
// sends at most kShortGemmRows).
inline int Vectors(int64_t M) { return M <= 32 ? 2 : 3; }

// Weight rows [n, n + RN) (the last `rows` of them real; the others repeat row n + rows - 1,
// computed and dropped) against every activation vector: per slice, the rows converted to f32
// into wbuf, then for each k one broadcast weight times MV activation vectors per row. While
// a slice's multiply-adds run, the next slice of the rows (or the next block's first) is
// prefetched a line per k step: prefetched while converting, 12 rows' 192 lines at once, the
// loads still waited on memory (the converting loop was 45% of the time on the 2048-wide f16
// model's pp32).
template <int RN, int MV, DType T>
void Block(const GemmArgs& a, const float* panel, int64_t n, int rows, int64_t k_begin, int64_t k_end, float* wbuf) {
  constexpr int64_t kElem = T == DType::kF32 ? 4 : 2;
  constexpr int W = 16 * MV;
  constexpr int64_t kLinesPerRow = kSlice * kElem / 64;  // one prefetched per k step
  __m512 acc[RN][MV];
#pragma GCC unroll 12
  for (int i = 0; i < RN; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < MV; ++v) acc[i][v] = _mm512_setzero_ps();
  for (int64_t k0 = k_begin; k0 < k_end; k0 += kSlice) {
    const int64_t kc = Min(kSlice, k_end - k0);
    for (int i = 0; i < RN; ++i) {
      const char* src = a.w + (n + (i < rows ? i : rows - 1)) * a.w_stride;
      for (int64_t k = 0; k < kc; k += 16) _mm512_store_ps(wbuf + i * kSlice + k, LoadAs<T>(src, k0 + k, TailMask(kc - k)));
    }
    // Where the next slice's rows start: these rows further on, or the next block's rows.
    const char* next = a.w + (k0 + kSlice >= k_end ? (n + RN) * a.w_stride + k_begin * kElem : n * a.w_stride + (k0 + kSlice) * kElem);
    // The block's output lines, wanted right after this chunk's last slice.
    for (int64_t m = 0; k0 + kSlice >= k_end && m < a.M; ++m) _mm_prefetch(reinterpret_cast<const char*>(a.out + m * a.out_stride + n), _MM_HINT_T0);
    const float* xp = panel + k0 * W;
    for (int64_t k = 0; k < kc; ++k) {
      if (k < RN * kLinesPerRow) _mm_prefetch(next + k / kLinesPerRow * a.w_stride + k % kLinesPerRow * 64, _MM_HINT_T0);
      __m512 xv[MV];
#pragma GCC unroll 4
      for (int v = 0; v < MV; ++v) xv[v] = _mm512_load_ps(xp + k * W + 16 * v);
#pragma GCC unroll 12
      for (int i = 0; i < RN; ++i) {
        __m512 b = _mm512_set1_ps(wbuf[i * kSlice + k]);
#pragma GCC unroll 4
        for (int v = 0; v < MV; ++v) acc[i][v] = _mm512_fmadd_ps(b, xv[v], acc[i][v]);
      }
    }
  }
  // Lane l of acc[i][v] is out[16 v + l][n + i]: transposed in registers, each output row's
  // `rows` columns are one masked store, added to the earlier chunks' sums. Element by element
  // (RN x M scalar stores to M lines per block) the stores were a quarter of an M = 48 gemm.
  const __mmask16 cols = TailMask(rows);
#pragma GCC unroll 4
  for (int v = 0; v < MV; ++v) {
    __m512 r[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) r[i] = i < RN ? acc[i][v] : _mm512_setzero_ps();
    Transpose16(r);
    for (int l = 0; l < 16 && 16 * v + l < a.M; ++l) {
      float* o = a.out + (16 * v + l) * a.out_stride + n;
      _mm512_mask_storeu_ps(o, cols, k_begin == 0 ? r[l] : _mm512_add_ps(r[l], _mm512_maskz_loadu_ps(cols, o)));
    }
  }
}

// K in chunks whose share of the packed activations (at most 384 KiB) stays in L2 while every
// block of rows reads it: whole, the 5632-deep down projection's 48 rows are 1.1 MiB, read
// again from memory for each block of 8 weight rows.
template <int RN, int MV, DType T>
void Blocks(const GemmArgs& a, const float* panel, int64_t n0, int64_t n1, float* wbuf) {
  constexpr int64_t kChunk = 98304 / (16 * MV) / kSlice * kSlice;
  for (int64_t k = 0; k < a.K; k += kChunk) {
    for (int64_t n = n0; n < n1; n += RN) {
      Block<RN, MV, T>(a, panel, n, static_cast<int>(Min(RN, n1 - n)), k, Min(a.K, k + kChunk), wbuf);
    }
  }
}

template <DType T>
void ShortGemmAs(const GemmArgs& a, const float* panel, int64_t n0, int64_t n1, float* wbuf) {
  if (Vectors(a.M) == 2) {
    Blocks<12, 2, T>(a, panel, n0, n1, wbuf);
  } else {
    Blocks<8, 3, T>(a, panel, n0, n1, wbuf);
  }
}

}  // namespace

const float* PackShortAvx512(const GemmArgs& a, std::vector<float>* panel) {
  const int64_t W = 16 * Vectors(a.M);
  panel->assign(static_cast<size_t>(a.K * W + 16), 0.0f);
  // 64-byte aligned for the tile's aligned loads: the vector's own start may not be.
  float* p = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(panel->data()) + 63) & ~uintptr_t{63});
  for (int64_t m = 0; m < a.M && m < W; ++m) {
    const float* x = a.x + m * a.x_stride;
    for (int64_t k = 0; k < a.K; ++k) p[k * W + m] = x[k];
  }
  return p;
}

void ShortGemmAvx512(const GemmArgs& a, const float* p, int64_t n0, int64_t n1) {
  thread_local std::vector<float> scratch(12 * kSlice + 16);
  float* wbuf = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  switch (a.wtype) {
    case DType::kF16: ShortGemmAs<DType::kF16>(a, p, n0, n1, wbuf); break;
    case DType::kBF16: ShortGemmAs<DType::kBF16>(a, p, n0, n1, wbuf); break;
    default: ShortGemmAs<DType::kF32>(a, p, n0, n1, wbuf); break;
  }
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
