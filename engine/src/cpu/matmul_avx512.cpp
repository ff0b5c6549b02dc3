// AVX-512 kernels, compiled with -mavx512f -mavx512bw -mavx512vl -mfma -mf16c and chosen at
// run time. Nothing here is inline-shared with other files (no templates from headers are
// instantiated), so no AVX-512 code can leak into the portable path through the linker.
#include <immintrin.h>

#include "cpu/matmul_kernels.h"

namespace vt::cpu {
namespace {

// Local min/max: a std:: template instantiated here could be merged by the linker into the
// portable path with AVX-512 encodings in it.
inline int64_t Min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int Max0(int a) { return a > 0 ? a : 0; }

// 16 weights of row `row` from element k, as f32; `mask` selects the valid lanes.
inline __m512 LoadWeights(DType t, const char* row, int64_t k, __mmask16 mask) {
  switch (t) {
    case DType::kF16:
      return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, row + 2 * k));
    case DType::kBF16:
      return _mm512_castsi512_ps(
          _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, row + 2 * k)), 16));
    default:
      return _mm512_maskz_loadu_ps(mask, row + 4 * k);
  }
}

template <DType T>
inline __m512 LoadAs(const char* row, int64_t k, __mmask16 mask) {
  if constexpr (T == DType::kF16) {
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(mask, row + 2 * k));
  } else if constexpr (T == DType::kBF16) {
    return _mm512_castsi512_ps(
        _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, row + 2 * k)), 16));
  } else {
    return _mm512_maskz_loadu_ps(mask, row + 4 * k);
  }
}

inline __mmask16 TailMask(int64_t left) { return left >= 16 ? 0xffff : static_cast<__mmask16>((1u << left) - 1); }

// Prefetches the bytes of weight row `row` that a Pack of [k0, k0 + kc) will read.
inline void PrefetchRow(const GemmArgs& a, int64_t row, int64_t k0, int kc) {
  size_t elem = a.wtype == DType::kF32 ? 4 : 2;
  const char* p = a.w + row * a.w_stride + k0 * elem;
  for (size_t off = 0; off < kc * elem; off += 64) _mm_prefetch(p + off, _MM_HINT_T0);
}

// panel[k][j] = w[n + j][k0 + k] (zero past ncols): 16 k at a time per row, then scattered.
// Each row's slice is a short burst (512 bytes of f16 at kc = 256) in another page, which the
// hardware prefetcher does not follow: rows kPackAhead ahead are prefetched, so the loads of a
// panel overlap instead of waiting on memory one row at a time (the packing loads were 85% of
// the packing time in a profile of pp512 on a 2048-wide model).
constexpr int kPackAhead = 4;
void Pack(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int kc, float* panel) {
  alignas(64) float row[16];
  for (int j = 0; j < kPackAhead && j < ncols; ++j) PrefetchRow(a, n + j, k0, kc);
  for (int j = 0; j < kNR; ++j) {
    if (j >= ncols) {
      for (int k = 0; k < kc; ++k) panel[k * kNR + j] = 0.0f;
      continue;
    }
    if (j + kPackAhead < ncols) PrefetchRow(a, n + j + kPackAhead, k0, kc);
    const char* w = a.w + (n + j) * a.w_stride;
    for (int k = 0; k < kc; k += 16) {
      _mm512_store_ps(row, LoadWeights(a.wtype, w, k0 + k, TailMask(kc - k)));
      int limit = static_cast<int>(Min(16, kc - k));
      for (int u = 0; u < limit; ++u) panel[(k + u) * kNR + j] = row[u];
    }
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
  __mmask16 m0 = TailMask(ncols), m1 = TailMask(Max0(ncols - 16));
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) {
    float* o = a.out + (m + i) * a.out_stride + n;
    if (k0 != 0) {
      acc0[i] = _mm512_add_ps(acc0[i], _mm512_maskz_loadu_ps(m0, o));
      acc1[i] = _mm512_add_ps(acc1[i], _mm512_maskz_loadu_ps(m1, o + 16));
    }
    _mm512_mask_storeu_ps(o, m0, acc0[i]);
    _mm512_mask_storeu_ps(o + 16, m1, acc1[i]);
  }
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

void Gemm(const GemmArgs& a, int64_t n0, int64_t n1, float* scratch) {
  for (int64_t nb = n0; nb < n1; nb += kNC) {
    int64_t ne = Min(n1, nb + kNC);
    for (int64_t k0 = 0; k0 < a.K; k0 += kKC) {
      int kc = static_cast<int>(Min(kKC, a.K - k0));
      for (int64_t n = nb; n < ne; n += kNR) {
        Pack(a, n, static_cast<int>(Min(kNR, ne - n)), k0, kc, scratch + (n - nb) * kKC);
      }
      for (int64_t m = 0; m < a.M; m += kMR) {
        int rows = static_cast<int>(Min(kMR, a.M - m));
        for (int64_t n = nb; n < ne; n += kNR) {
          TileRows(rows, a, scratch + (n - nb) * kKC, m, n, static_cast<int>(Min(kNR, ne - n)),
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
// GCC 12 warns that _mm512_reduce_add_ps reads an uninitialized value: its own
// _mm256_undefined_pd (GCC bug 105593, fixed in 13), seen once the call is unrolled six times.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
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
#pragma GCC diagnostic pop

template <DType T>
void GemvAs(const GemmArgs& a, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
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
  else WeightedRowsAs<DType::kF32>(rows, stride, p, n, acc, hd);
}

}  // namespace

const MatmulKernels* Avx512Kernels() {
  static const MatmulKernels kernels{"avx512", Gemm, Gemv, WeightedRows};
  bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma") &&
            __builtin_cpu_supports("f16c");
  return ok ? &kernels : nullptr;
}

}  // namespace vt::cpu
