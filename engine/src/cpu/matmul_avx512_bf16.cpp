// The AVX-512 set with AVX512_BF16's dot product for bf16 weights: each vdpbf16ps multiplies
// 32 bf16 pairs and adds them into 16 f32 lanes, twice the work of an f32 FMA. The activations
// are rounded to bf16 for it (as llama.cpp's bf16 matmul does): within 2^-9 of each product,
// NMSE around 1e-6 against the float64 reference. Only gemm (M > kGemvMaxRows) changes; the
// decode path, other weight dtypes and odd K are the AVX-512 set's own. Block-type weights of
// a gemm come here too, dequantized and rounded to bf16 (DequantizeBf16). Compiled with
// -mavx512bf16 and chosen at run time only where the CPU has it.
#include <immintrin.h>

#include <vector>

#include "cpu/avx512_tile.h"
#include "cpu/matmul_kernels.h"
#include "vt/quant.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_ps (bug 105593)

namespace vt::cpu {
namespace {


constexpr int kPairsKC = 256;  // bf16 pairs (512 k) per panel: 32 KiB of panel, L1
static_assert(kGemmScratchFloats >= size_t{kPairsKC} * kNC + size_t{kMR} * kPairsKC);

// Rows r[0..15] (as 32-bit lanes) become columns.
inline void Transpose16(__m512i r[16]) {
  __m512i t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    r[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i + 0], t[4 * i + 2]);
    r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i + 0], t[4 * i + 2]);
    r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_i32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_i32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_i32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_i32x4(r[i + 8], r[i + 12], 0xdd);
  }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_i32x4(t[i], t[i + 8], 0xdd);
  }
}

// panel[p][j] = the bf16 pair (w[n+j][k0+2p], w[n+j][k0+2p+1]): a row's pairs are already
// 32-bit words in memory, so packing is a transpose of words, sixteen rows at a time.
void PackPairs(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int pc, uint32_t* panel) {
  for (int h = 0; h < kNR; h += 16) {
    int rows = static_cast<int>(Min(16, Max0(ncols - h)));
    for (int p = 0; p < pc; p += 16) {
      __mmask16 mask = TailMask(pc - p);
      __m512i r[16];
      for (int j = 0; j < 16; ++j) {
        const char* w = a.w + (n + h + j) * a.w_stride + (k0 + 2 * p) * 2;
        if (j < rows && p % 16 == 0) _mm_prefetch(w + 16 * a.w_stride, _MM_HINT_T0);
        r[j] = j < rows ? _mm512_maskz_loadu_epi32(mask, w) : _mm512_setzero_si512();
      }
      Transpose16(r);
      int limit = static_cast<int>(Min(16, pc - p));
      for (int u = 0; u < limit; ++u) _mm512_store_si512(panel + (p + u) * kNR + h, r[u]);
    }
  }
}

// The tile's activation rows as bf16 pairs, [k0, k0 + 2 pc) of each, rounded to nearest even.
void PairRows(const GemmArgs& a, int64_t m, int rows, int64_t k0, int pc, uint32_t* xb) {
  for (int i = 0; i < rows; ++i) {
    const float* x = a.x + (m + i) * a.x_stride + k0;
    for (int p = 0; p < pc; p += 16) {
      __mmask16 lo = TailMask(2 * (pc - p)), hi = TailMask(Max0(2 * (pc - p) - 16));
      __m512bh pairs = _mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(hi, x + 2 * p + 16), _mm512_maskz_loadu_ps(lo, x + 2 * p));
      _mm512_mask_storeu_epi32(xb + i * kPairsKC + p, TailMask(pc - p), reinterpret_cast<__m512i&>(pairs));
    }
  }
}

template <int R>
void Tile(const GemmArgs& a, const uint32_t* xb, const uint32_t* panel, int64_t m, int64_t n, int ncols, int64_t k0, int pc) {
  __m512 acc0[R], acc1[R];
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  for (int p = 0; p < pc; ++p) {
    __m512i w0 = _mm512_load_si512(panel + p * kNR), w1 = _mm512_load_si512(panel + p * kNR + 16);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      __m512i b = _mm512_set1_epi32(static_cast<int>(xb[i * kPairsKC + p]));
      acc0[i] = _mm512_dpbf16_ps(acc0[i], reinterpret_cast<__m512bh&>(b), reinterpret_cast<__m512bh&>(w0));
      acc1[i] = _mm512_dpbf16_ps(acc1[i], reinterpret_cast<__m512bh&>(b), reinterpret_cast<__m512bh&>(w1));
    }
  }
  StoreTile<R>(acc0, acc1, a.out, a.out_stride, m, n, ncols, k0);
}

void TileRows(int rows, const GemmArgs& a, const uint32_t* xb, const uint32_t* panel, int64_t m, int64_t n, int ncols,
              int64_t k0, int pc) {
  switch (rows) {
    case 12: Tile<12>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 11: Tile<11>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 10: Tile<10>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 9: Tile<9>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 8: Tile<8>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 7: Tile<7>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 6: Tile<6>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 5: Tile<5>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 4: Tile<4>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 3: Tile<3>(a, xb, panel, m, n, ncols, k0, pc); break;
    case 2: Tile<2>(a, xb, panel, m, n, ncols, k0, pc); break;
    default: Tile<1>(a, xb, panel, m, n, ncols, k0, pc); break;
  }
}

// The AVX-512 set's loops (256-column blocks, 512-deep slices, 12x32 tiles) over bf16 pairs.
void Gemm(const GemmArgs& a, int64_t n0, int64_t n1, float* scratch) {
  if ((a.wtype != DType::kBF16 && a.wtype != DType::kBF16x16) || a.K % 2 != 0) {
    Avx512Kernels()->gemm(a, n0, n1, scratch);
    return;
  }
  uint32_t* panels = reinterpret_cast<uint32_t*>(scratch);
  uint32_t* xb = panels + kPairsKC * kNC;
  for (int64_t nb = n0; nb < n1; nb += kNC) {
    int64_t ne = Min(n1, nb + kNC);
    for (int64_t k0 = 0; k0 < a.K; k0 += 2 * kPairsKC) {
      int pc = static_cast<int>(Min(kPairsKC, (a.K - k0) / 2));
      for (int64_t n = nb; n < ne; n += kNR) {
        const int cols = static_cast<int>(Min(kNR, ne - n));
        if (a.wtype == DType::kBF16x16) PackPairsOfPanelsAvx512(a, n, cols, k0, pc, panels + (n - nb) * kPairsKC);
        else PackPairs(a, n, cols, k0, pc, panels + (n - nb) * kPairsKC);
      }
      for (int64_t m = 0; m < a.M; m += kMR) {
        int rows = static_cast<int>(Min(kMR, a.M - m));
        PairRows(a, m, rows, k0, pc, xb);
        for (int64_t n = nb; n < ne; n += kNR) {
          TileRows(rows, a, xb, panels + (n - nb) * kPairsKC, m, n, static_cast<int>(Min(kNR, ne - n)), k0, pc);
        }
      }
    }
  }
}

void DequantizeBf16(DType t, const void* src, uint16_t* dst, int64_t n) {
  thread_local std::vector<float> row;
  row.resize(static_cast<size_t>(n));
  if (!DequantizeRowAvx512(t, src, row.data(), n)) DequantizeRow(t, src, row.data(), n);
  for (int64_t i = 0; i < n; i += 32) {
    __m512bh v = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(row.data() + i + 16), _mm512_loadu_ps(row.data() + i));
    _mm512_storeu_si512(dst + i, reinterpret_cast<__m512i&>(v));
  }
}

}  // namespace

const MatmulKernels* Avx512Bf16Kernels() {
  const MatmulKernels* base = Avx512Kernels();
  if (base == nullptr || !__builtin_cpu_supports("avx512bf16")) return nullptr;
  static const MatmulKernels kernels{"avx512-bf16", Gemm, base->gemv, base->weighted_rows, base->exp_shifted, base->dequantize,
                                     base->quantize_activations, base->quant_gemv, DequantizeBf16,
                                     base->pack_short, base->short_gemm, base->interleaved, base->panels, nullptr, nullptr};
  return &kernels;
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
