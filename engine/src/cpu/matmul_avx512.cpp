// AVX-512 kernels, compiled with -mavx512f -mavx512bw -mavx512vl -mfma -mf16c and chosen at
// run time. Nothing here is inline-shared with other files (no templates from headers are
// instantiated), so no AVX-512 code can leak into the portable path through the linker.
#include <immintrin.h>

#include "cpu/avx512_tile.h"
#include "cpu/matmul_kernels.h"

// GCC 12 warns that _mm512_reduce_add_ps and the 512-bit shuffles read an uninitialized value:
// its own _mm512_undefined_ps (GCC bug 105593, fixed in 13), seen once the calls are unrolled.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace vt::cpu {
namespace {

// k per packed panel. A 512x32 f32 panel is 64 KiB: it streams from L2 while the tile's
// activations stay in L1, and twice 256 halves the read-modify-writes of the output and the
// short activation streams per tile (a tile model of the 4096x512x4096 gemm ran at 214 GFLOPS
// at 256 deep, 229 at 512, against a 249 peak).
constexpr int kDeepKC = 512;
static_assert(kGemmScratchFloats >= size_t{kDeepKC} * kNC);

// panel[k][j] = w[n + j][k0 + k] (zero past ncols): sixteen rows' next 16 weights at a time,
// transposed in registers (64 shuffles instead of 256 scalar stores). The rows are sixteen
// short bursts in other pages, which the hardware prefetcher does not follow: while sixteen
// rows are packed, the same lines of the sixteen rows after them are prefetched (reading past
// the last row of the block is harmless: a prefetch never faults).
template <DType T>
void PackAs(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int kc, float* panel) {
  constexpr int64_t kElem = T == DType::kF32 ? 4 : 2;
  for (int h = 0; h < kNR; h += 16) {
    int rows = static_cast<int>(Min(16, Max0(ncols - h)));
    for (int k = 0; k < kc; k += 16) {
      __mmask16 mask = TailMask(kc - k);
      __m512 r[16];
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) {
        if (j >= rows) {
          r[j] = _mm512_setzero_ps();
          continue;
        }
        const char* w = a.w + (n + h + j) * a.w_stride;
        if ((k * kElem) % 64 == 0) _mm_prefetch(w + 16 * a.w_stride + (k0 + k) * kElem, _MM_HINT_T0);
        r[j] = LoadAs<T>(w, k0 + k, mask);
      }
      Transpose16(r);
      int limit = static_cast<int>(Min(16, kc - k));
      for (int u = 0; u < limit; ++u) _mm512_store_ps(panel + (k + u) * kNR + h, r[u]);
    }
  }
}

void Pack(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int kc, float* panel) {
  switch (a.wtype) {
    case DType::kF16: PackAs<DType::kF16>(a, n, ncols, k0, kc, panel); break;
    case DType::kF16x16: case DType::kBF16x16: PackPanelsAvx512(a, n, ncols, k0, kc, panel); break;
    case DType::kBF16: PackAs<DType::kBF16>(a, n, ncols, k0, kc, panel); break;
    default: PackAs<DType::kF32>(a, n, ncols, k0, kc, panel); break;
  }
}

template <int R>
void Tile(const GemmArgs& a, const float* panel, int64_t m, int64_t n, int ncols, int64_t k0, int kc) {
  // Fully unrolled over the R rows so the 2R accumulators live in registers.
  __m512 acc0[R], acc1[R];
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) acc0[i] = acc1[i] = _mm512_setzero_ps();
  const float* x = a.x + m * a.x_stride + k0;
  for (int k = 0; k < kc; ++k) {
    __m512 w0 = _mm512_load_ps(panel + k * kNR);
    __m512 w1 = _mm512_load_ps(panel + k * kNR + 16);
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
      __m512 b = _mm512_set1_ps(x[i * a.x_stride + k]);
      acc0[i] = _mm512_fmadd_ps(b, w0, acc0[i]);
      acc1[i] = _mm512_fmadd_ps(b, w1, acc1[i]);
    }
  }
  StoreTile<R>(acc0, acc1, a.out, a.out_stride, m, n, ncols, k0);
}

void TileRows(int rows, const GemmArgs& a, const float* panel, int64_t m, int64_t n, int ncols, int64_t k0,
              int kc) {
  switch (rows) {
    case 12: Tile<12>(a, panel, m, n, ncols, k0, kc); break;
    case 11: Tile<11>(a, panel, m, n, ncols, k0, kc); break;
    case 10: Tile<10>(a, panel, m, n, ncols, k0, kc); break;
    case 9: Tile<9>(a, panel, m, n, ncols, k0, kc); break;
    case 8: Tile<8>(a, panel, m, n, ncols, k0, kc); break;
    case 7: Tile<7>(a, panel, m, n, ncols, k0, kc); break;
    case 6: Tile<6>(a, panel, m, n, ncols, k0, kc); break;
    case 5: Tile<5>(a, panel, m, n, ncols, k0, kc); break;
    case 4: Tile<4>(a, panel, m, n, ncols, k0, kc); break;
    case 3: Tile<3>(a, panel, m, n, ncols, k0, kc); break;
    case 2: Tile<2>(a, panel, m, n, ncols, k0, kc); break;
    default: Tile<1>(a, panel, m, n, ncols, k0, kc); break;
  }
}

// Part `part` of `parts` of the next tile's activation rows, [k0, k0 + kc) of each: a tile's
// rows are twelve short streams that the hardware prefetcher meets too late.
void PrefetchNextTile(const GemmArgs& a, int64_t m, int rows, int64_t k0, int kc, int part, int64_t parts) {
  int64_t lines = (kc + 15) / 16, total = rows * lines;
  int64_t l = total * part / parts, end = total * (part + 1) / parts;
  int64_t row = l / lines, line = l % lines;  // one division per call: a 64-bit divide per
  for (; l < end; ++l) {                       // line cost more than the prefetches saved
    _mm_prefetch(reinterpret_cast<const char*>(a.x + (m + row) * a.x_stride + k0 + line * 16), _MM_HINT_T0);
    if (++line == lines) line = 0, ++row;
  }
}

void Gemm(const GemmArgs& a, int64_t n0, int64_t n1, float* scratch) {
  for (int64_t nb = n0; nb < n1; nb += kNC) {
    int64_t ne = Min(n1, nb + kNC);
    for (int64_t k0 = 0; k0 < a.K; k0 += kDeepKC) {
      int kc = static_cast<int>(Min(kDeepKC, a.K - k0));
      for (int64_t n = nb; n < ne; n += kNR) {
        Pack(a, n, static_cast<int>(Min(kNR, ne - n)), k0, kc, scratch + (n - nb) * kDeepKC);
      }
      for (int64_t m = 0; m < a.M; m += kMR) {
        int rows = static_cast<int>(Min(kMR, a.M - m));
        int next_rows = static_cast<int>(Min(kMR, Max0(static_cast<int>(a.M - m - kMR))));
        for (int64_t n = nb; n < ne; n += kNR) {
          PrefetchNextTile(a, m + kMR, next_rows, k0, kc, static_cast<int>((n - nb) / kNR), (ne - nb + kNR - 1) / kNR);
          TileRows(rows, a, scratch + (n - nb) * kDeepKC, m, n, static_cast<int>(Min(kNR, ne - n)),
                   k0, kc);
        }
      }
    }
  }
}

// One weight row at a time against every activation row (M <= kGemvMaxRows), 64 weights per
// step into four independent accumulators per activation row. Rows are read in address order,
// so a thread's range of rows is one sequential stream that the hardware prefetcher follows at
// the machine's streaming bandwidth; interleaving several rows (four 1 KiB streams at once) ran
// at half of it on 512-wide models (specs/engine-core.md). Each weight byte is read from memory
// once: a batch of decodes (vt-serve) takes activation rows six at a time against the row, hot
// in L1 after the first group (6 x 4 accumulators + 4 weights fill 28 of the 32 registers).
// Every activation row sums in the same order whatever M is, so a sequence's logits in a batch
// are bit for bit those it gets alone. The weight dtype is a template parameter: a switch per
// load costs a branch per 16 weights.
template <int R, DType T>
inline void GemvGroup(const GemmArgs& a, const char* w, int64_t m0, int64_t n) {
  const int64_t K = a.K, kmain = K / 64 * 64;
  const size_t xs = a.x_stride, os = a.out_stride;
  const float* x = a.x + m0 * xs;
  __m512 acc[R][4];
#pragma GCC unroll 6
  for (int m = 0; m < R; ++m)
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) acc[m][u] = _mm512_setzero_ps();
  for (int64_t k = 0; k < kmain; k += 64) {
    __m512 wv[4];
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) wv[u] = LoadAs<T>(w, k + 16 * u, 0xffff);
#pragma GCC unroll 6
    for (int m = 0; m < R; ++m)
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) acc[m][u] = _mm512_fmadd_ps(wv[u], _mm512_loadu_ps(x + m * xs + k + 16 * u), acc[m][u]);
  }
  for (int64_t k = kmain; k < K; k += 16) {
    __mmask16 mask = TailMask(K - k);
    __m512 wv = LoadAs<T>(w, k, mask);
#pragma GCC unroll 6
    for (int m = 0; m < R; ++m) acc[m][0] = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(mask, x + m * xs + k), acc[m][0]);
  }
#pragma GCC unroll 6
  for (int m = 0; m < R; ++m) {
    __m512 sum = _mm512_add_ps(_mm512_add_ps(acc[m][0], acc[m][1]), _mm512_add_ps(acc[m][2], acc[m][3]));
    a.out[(m0 + m) * os + n] = _mm512_reduce_add_ps(sum);
  }
}

// Weight rows [n, n + NB) against activation rows [m0, m0 + MB) of a batch of decodes: one
// 16-lane quarter u of every 64 weights per pass, so NB × MB accumulators are live (not 4 ×)
// and each load feeds MB or NB multiply-adds. One row against six activation rows loaded 28
// vectors per 24 FMAs, bound near one load a cycle (specs/engine-core.md). A lane sums its k
// in order, the masked tail joins quarter 0 after its main loop, and the quarters join as in
// GemvGroup: the bits are those of each row alone. The next NB rows are prefetched, a line
// per row and pass that starts one (a pass reads 64 of every 256 bytes of f32 weights).
template <int NB, int MB, DType T>
inline void GemvBlock(const GemmArgs& a, int64_t m0, int64_t n) {
  constexpr int64_t kElem = T == DType::kF32 ? 4 : 2;
  const int64_t K = a.K, kmain = K / 64 * 64;
  const size_t xs = a.x_stride, ws = a.w_stride;
  const float* x = a.x + m0 * xs;
  const char* w = a.w + n * ws;
  __m512 part[4][NB][MB];
#pragma GCC unroll 4
  for (int u = 0; u < 4; ++u) {
    __m512 acc[NB][MB];
#pragma GCC unroll 4
    for (int j = 0; j < NB; ++j)
#pragma GCC unroll 4
      for (int m = 0; m < MB; ++m) acc[j][m] = _mm512_setzero_ps();
    const bool prefetch = (16 * u * kElem) % 64 == 0;
    for (int64_t k = 16 * u; k < kmain; k += 64) {
      __m512 wv[NB];
#pragma GCC unroll 4
      for (int j = 0; j < NB; ++j) {
        wv[j] = LoadAs<T>(w + j * ws, k, 0xffff);
        if (prefetch) _mm_prefetch(w + (NB + j) * ws + k * kElem, _MM_HINT_T0);
      }
#pragma GCC unroll 4
      for (int m = 0; m < MB; ++m) {
        __m512 xv = _mm512_loadu_ps(x + m * xs + k);
#pragma GCC unroll 4
        for (int j = 0; j < NB; ++j) acc[j][m] = _mm512_fmadd_ps(wv[j], xv, acc[j][m]);
      }
    }
    for (int64_t k = kmain; u == 0 && k < K; k += 16) {
      __mmask16 mask = TailMask(K - k);
#pragma GCC unroll 4
      for (int j = 0; j < NB; ++j) {
        __m512 wv = LoadAs<T>(w + j * ws, k, mask);
#pragma GCC unroll 4
        for (int m = 0; m < MB; ++m) acc[j][m] = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(mask, x + m * xs + k), acc[j][m]);
      }
    }
#pragma GCC unroll 4
    for (int j = 0; j < NB; ++j)
#pragma GCC unroll 4
      for (int m = 0; m < MB; ++m) part[u][j][m] = acc[j][m];
  }
  for (int j = 0; j < NB; ++j)
    for (int m = 0; m < MB; ++m) {
      __m512 sum = _mm512_add_ps(_mm512_add_ps(part[0][j][m], part[1][j][m]), _mm512_add_ps(part[2][j][m], part[3][j][m]));
      a.out[(m0 + m) * a.out_stride + n + j] = _mm512_reduce_add_ps(sum);
    }
}

// Activation rows four at a time against four weight rows, the last one to three as a block
// of their own.
template <DType T>
void GemvBlocks(const GemmArgs& a, int64_t n) {
  int64_t m = 0;
  for (; m + 4 <= a.M; m += 4) GemvBlock<4, 4, T>(a, m, n);
  switch (a.M - m) {
    case 3: GemvBlock<4, 3, T>(a, m, n); break;
    case 2: GemvBlock<4, 2, T>(a, m, n); break;
    case 1: GemvBlock<4, 1, T>(a, m, n); break;
    default: break;
  }
}

template <DType T>
void GemvAs(const GemmArgs& a, int64_t n0, int64_t n1) {
  int64_t n = n0;
  if (a.M > 1) {
    for (; n + 4 <= n1; n += 4) GemvBlocks<T>(a, n);
  }
  for (; n < n1; ++n) {
    const char* w = a.w + n * a.w_stride;
    int64_t m = 0;
    for (; m + 6 <= a.M; m += 6) GemvGroup<6, T>(a, w, m, n);
    switch (a.M - m) {
      case 5: GemvGroup<5, T>(a, w, m, n); break;
      case 4: GemvGroup<4, T>(a, w, m, n); break;
      case 3: GemvGroup<3, T>(a, w, m, n); break;
      case 2: GemvGroup<2, T>(a, w, m, n); break;
      case 1: GemvGroup<1, T>(a, w, m, n); break;
      default: break;
    }
  }
}

void Gemv(const GemmArgs& a, int64_t n0, int64_t n1) {
  switch (a.wtype) {
    case DType::kF16: GemvAs<DType::kF16>(a, n0, n1); break;
    case DType::kF16x16: case DType::kBF16x16: PanelGemvAvx512(a, n0, n1); break;
    case DType::kBF16: GemvAs<DType::kBF16>(a, n0, n1); break;
    default: GemvAs<DType::kF32>(a, n0, n1); break;
  }
}

inline __mmask16 MaskFor(int64_t left) { return left <= 0 ? 0 : TailMask(left); }

// 64 values of acc (four registers) at a time, every row's p[j]-scaled values added into them.
template <DType T>
void WeightedRowsAs(const char* rows, size_t stride, const float* p, int64_t n, float* acc, int64_t hd) {
  for (int64_t d = 0; d < hd; d += 64) {
    __mmask16 mask[4];
    __m512 s[4];
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) {
      mask[u] = MaskFor(hd - d - 16 * u);
      s[u] = _mm512_maskz_loadu_ps(mask[u], acc + d + 16 * u);
    }
    for (int64_t j = 0; j < n; ++j) {
      const char* r = rows + j * stride;
      __m512 pj = _mm512_set1_ps(p[j]);
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) s[u] = _mm512_fmadd_ps(pj, LoadAs<T>(r, d + 16 * u, mask[u]), s[u]);
    }
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) _mm512_mask_storeu_ps(acc + d + 16 * u, mask[u], s[u]);
  }
}

void WeightedRows(const char* rows, DType t, size_t stride, const float* p, int64_t n, float* acc, int64_t hd) {
  if (t == DType::kF16) WeightedRowsAs<DType::kF16>(rows, stride, p, n, acc, hd);
  else if (t == DType::kBF16) WeightedRowsAs<DType::kBF16>(rows, stride, p, n, acc, hd);  // a bf16 KV cache
  else WeightedRowsAs<DType::kF32>(rows, stride, p, n, acc, hd);
}

// e^x by Cephes' expf: x = n ln2 + r with |r| <= ln2 / 2, e^r by a degree-6 polynomial, times
// 2^n by scalef (which also gives 0 where e^x underflows).
inline __m512 Exp(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-104.0f));
  __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

float ExpShifted(float* s, int64_t n, float shift) {
  __m512 sum = _mm512_setzero_ps(), sh = _mm512_set1_ps(shift);
  for (int64_t j = 0; j < n; j += 16) {
    __mmask16 mask = TailMask(n - j);
    __m512 e = Exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(mask, s + j), sh));
    _mm512_mask_storeu_ps(s + j, mask, e);
    sum = _mm512_add_ps(sum, _mm512_maskz_mov_ps(mask, e));
  }
  return _mm512_reduce_add_ps(sum);
}

}  // namespace

const MatmulKernels* Avx512Kernels() {
  static const bool vnni = __builtin_cpu_supports("avx512vnni");
  static const MatmulKernels kernels{"avx512", Gemm, Gemv, WeightedRows, ExpShifted, DequantizeRowAvx512,
                                     vnni ? QuantizeActivationsAvx512 : nullptr, vnni ? QuantGemvAvx512 : nullptr, nullptr,
                                     PackShortAvx512, ShortGemmAvx512, vnni, true, nullptr, nullptr};
  bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma") &&
            __builtin_cpu_supports("f16c");
  return ok ? &kernels : nullptr;
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
