// Matmuls of f16 and bf16 weights stored as k-major panels of 16 rows (DType::kF16x16,
// kBF16x16, vt/quant.h), compiled with the AVX-512 flags and called only through the AVX-512
// sets. One 32-byte load and one conversion give sixteen rows' weights at one k; every
// activation row's x[k], broadcast, multiplies them. On plain rows a batch of decodes converted each weight vector
// once per four activation rows and read four row streams at once; here one conversion feeds
// every activation row of a pass and each group of 16 rows is one sequential stream
// (specs/engine-core.md).
#include <immintrin.h>

#include "cpu/avx512_tile.h"
#include "cpu/matmul_kernels.h"
#include "vt/quant.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_ps (bug 105593)

namespace vt::cpu {
namespace {

constexpr int64_t kFarAhead = 2048, kNearAhead = 256;  // prefetch distances, in 16-bit values
constexpr int kPassRows = 12;  // activation rows per pass: 2 groups x 12 rows = 24 accumulators

// Group g (rows 16g on) of the panels at w: where it starts, how many rows it holds (16, or
// the rows past the last whole group), and so how many values one k takes.
struct Group {
  const uint16_t* at;
  int rows;
};
inline Group GroupOf(const GemmArgs& a, int64_t g) {
  const int64_t first = g * kInterleavedRows;
  return Group{reinterpret_cast<const uint16_t*>(a.w) + first * a.K, static_cast<int>(Min(kInterleavedRows, a.N - first))};
}

// Sixteen values at `at` (the lanes of `mask`) as f32: f16 converted, bf16 widened.
template <DType T>
inline __m512 Load16(const uint16_t* at, __mmask16 mask) {
  const __m256i v = _mm256_maskz_loadu_epi16(mask, at);
  if constexpr (T == DType::kF16x16) return _mm512_cvtph_ps(v);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(v), 16));
}

// Groups [g, g + G) against activation rows [m0, m0 + MB). Every output lane is one fused
// multiply-add chain over k = 0, 1, ..., K - 1 from zero: no tile, pass, thread split or
// batch size changes an output's bits. Each group has its own row count and mask, so the
// rows past the last whole group are a group like any other. The next lines of each group
// are prefetched twice, one line per 64 bytes consumed: 4 KiB ahead into L2 and 512 bytes ahead
// into L1. Decode is a stream of weights read once; one prefetch a kilobyte ahead into L1 held
// a single thread to 0.68x llama.cpp's decode on Zen 4 (its L1 fill buffers full, the
// prefetches themselves the stall), where the two distances reach 1.0x and more
// (specs/engine-core.md).
template <int G, int MB, DType T>
void Tile(const GemmArgs& a, int64_t g, int64_t m0) {
  Group grp[G];
  __mmask16 mask[G];
#pragma GCC unroll 4
  for (int i = 0; i < G; ++i) grp[i] = GroupOf(a, g + i), mask[i] = TailMask(grp[i].rows);
  const float* x = a.x + m0 * a.x_stride;
  const size_t xs = a.x_stride;
  __m512 acc[G][MB];
#pragma GCC unroll 4
  for (int i = 0; i < G; ++i)
#pragma GCC unroll 12
    for (int m = 0; m < MB; ++m) acc[i][m] = _mm512_setzero_ps();
  for (int64_t k = 0; k < a.K; ++k) {
    __m512 w[G];
#pragma GCC unroll 4
    for (int i = 0; i < G; ++i) {
      const uint16_t* at = grp[i].at + k * grp[i].rows;
      w[i] = Load16<T>(at, mask[i]);
      if ((k & 1) == 0) {  // once per 64-byte line: far ahead into L2, near ahead into L1
        _mm_prefetch(reinterpret_cast<const char*>(at + kFarAhead), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(at + kNearAhead), _MM_HINT_T0);
      }
    }
#pragma GCC unroll 12
    for (int m = 0; m < MB; ++m) {
      const __m512 xb = _mm512_set1_ps(x[m * xs + k]);
#pragma GCC unroll 4
      for (int i = 0; i < G; ++i) acc[i][m] = _mm512_fmadd_ps(w[i], xb, acc[i][m]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < G; ++i)
#pragma GCC unroll 12
    for (int m = 0; m < MB; ++m) _mm512_mask_storeu_ps(a.out + (m0 + m) * a.out_stride + (g + i) * kInterleavedRows, mask[i], acc[i][m]);
}

template <int MB, DType T>
void TilesOf(const GemmArgs& a, int64_t g, int groups, int64_t m0) {
  if (groups == 4) Tile<4, MB, T>(a, g, m0);
  else if (groups == 2) Tile<2, MB, T>(a, g, m0);
  else Tile<1, MB, T>(a, g, m0);
}

template <DType T>
void Tiles(const GemmArgs& a, int64_t g, int groups, int64_t m0, int rows) {
  switch (rows) {
    case 1: TilesOf<1, T>(a, g, groups, m0); break;
    case 2: TilesOf<2, T>(a, g, groups, m0); break;
    case 3: TilesOf<3, T>(a, g, groups, m0); break;
    case 4: TilesOf<4, T>(a, g, groups, m0); break;
    case 5: TilesOf<5, T>(a, g, groups, m0); break;
    case 6: TilesOf<6, T>(a, g, groups, m0); break;
    case 7: TilesOf<7, T>(a, g, groups, m0); break;
    case 8: TilesOf<8, T>(a, g, groups, m0); break;
    case 9: TilesOf<9, T>(a, g, groups, m0); break;
    case 10: TilesOf<10, T>(a, g, groups, m0); break;
    case 11: TilesOf<11, T>(a, g, groups, m0); break;
    default: TilesOf<12, T>(a, g, groups, m0); break;
  }
}

// The half of the packed gemm's panel at column h (of kNR) from the group of rows n + h on:
// rows past ncols read with an empty mask, so they are zeros (and no byte is touched).
template <DType T>
void PackHalf(const GemmArgs& a, int64_t n, int h, int ncols, int64_t k0, int kc, float* panel) {
  const int rows = static_cast<int>(Min(16, Max0(ncols - h)));
  const Group grp = GroupOf(a, rows == 0 ? 0 : (n + h) / kInterleavedRows);
  const __mmask16 mask = TailMask(rows);
  for (int k = 0; k < kc; ++k) {
    const uint16_t* at = grp.at + (k0 + k) * grp.rows;
    _mm512_store_ps(panel + k * kNR + h, Load16<T>(at, mask));
  }
}

template <DType T>
void PanelGemv(const GemmArgs& a, int64_t n0, int64_t n1) {
  const int64_t passes = (a.M + kPassRows - 1) / kPassRows, per = (a.M + passes - 1) / passes;
  const int want = a.M == 1 ? 4 : 2;
  const int64_t end = (n1 + kInterleavedRows - 1) / kInterleavedRows;
  for (int64_t g = n0 / kInterleavedRows; g < end;) {
    const int groups = g + want <= end ? want : 1;
    for (int64_t m0 = 0; m0 < a.M; m0 += per) Tiles<T>(a, g, groups, m0, static_cast<int>(Min(per, a.M - m0)));
    g += groups;
  }
}

}  // namespace

// Columns [n0, n1) (n0 a multiple of 16) for any M: the activation rows in passes of at most
// kPassRows, as even as they come, each pass over the same groups while they are in L2; four
// groups at a time for one row (four multiply-add chains in flight), two otherwise.
void PanelGemvAvx512(const GemmArgs& a, int64_t n0, int64_t n1) {
  if (a.wtype == DType::kBF16x16) PanelGemv<DType::kBF16x16>(a, n0, n1);
  else PanelGemv<DType::kF16x16>(a, n0, n1);
}

// panel[k][j] = w[n + j][k0 + k] for j < ncols (zero past it), as the packed gemm's panels of
// plain rows hold them: each group's 16 values at k are already a panel row's half, so this
// is a conversion and a store per half, no transpose. n is a multiple of 16.
void PackPanelsAvx512(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int kc, float* panel) {
  for (int h = 0; h < kNR; h += 16) {
    if (a.wtype == DType::kBF16x16) PackHalf<DType::kBF16x16>(a, n, h, ncols, k0, kc, panel);
    else PackHalf<DType::kF16x16>(a, n, h, ncols, k0, kc, panel);
  }
}

// The pairs of bf16 panels: per pair p, each group's 16 values at k0 + 2p widened to the low
// halves of 16 words and those at k0 + 2p + 1 put in the high halves (zero past ncols).
void PackPairsOfPanelsAvx512(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int pc, uint32_t* panel) {
  for (int h = 0; h < kNR; h += 16) {
    const int rows = static_cast<int>(Min(16, Max0(ncols - h)));
    const Group grp = GroupOf(a, rows == 0 ? 0 : (n + h) / kInterleavedRows);
    const __mmask16 mask = TailMask(rows);
    for (int p = 0; p < pc; ++p) {
      const uint16_t* at = grp.at + (k0 + 2 * p) * grp.rows;
      const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, at));
      const __m512i hi = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, at + grp.rows));
      _mm512_store_si512(panel + p * kNR + h, _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16)));
    }
  }
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
