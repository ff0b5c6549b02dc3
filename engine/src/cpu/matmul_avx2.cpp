// AVX2 kernels (with FMA and F16C), compiled with -mavx2 -mfma -mf16c and chosen at run time
// on CPUs without AVX-512. Same packed panels as the other kernel sets; the 32-wide panel is
// computed as two 16-wide halves so a 6×16 tile's 12 accumulators fit the 16 ymm registers.
// No std:: templates here: an instantiation with AVX2 code could leak into the portable path.
#include <immintrin.h>

#include <cstring>

#include "cpu/matmul_kernels.h"

namespace vt::cpu {
namespace {

constexpr int kRows = 6;     // activation rows per register tile
constexpr int kPanel = 16;  // weight rows (output columns) per register tile

inline int64_t Min(int64_t a, int64_t b) { return a < b ? a : b; }

float ScalarWeight(DType t, const char* row, int64_t k) {
  uint16_t h;
  float f;
  switch (t) {
    case DType::kF16: std::memcpy(&h, row + 2 * k, 2); return F16ToF32(h);
    case DType::kBF16: std::memcpy(&h, row + 2 * k, 2); return BF16ToF32(h);
    default: std::memcpy(&f, row + 4 * k, 4); return f;
  }
}

// 8 weights from element k (all 8 must be in range).
inline __m256 Load8(DType t, const char* row, int64_t k) {
  switch (t) {
    case DType::kF16: return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * k)));
    case DType::kBF16:
      return _mm256_castsi256_ps(_mm256_slli_epi32(
          _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * k))), 16));
    default: return _mm256_loadu_ps(reinterpret_cast<const float*>(row + 4 * k));
  }
}

// r[i][j] becomes r[j][i]: the packing below turns 8 rows of 8 into 8 columns in 24 shuffles,
// where one store per element cost a tenth of a 512-row gemm's time.
inline void Transpose8(__m256* r) {
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  __m256 q[8];
  for (int i = 0; i < 8; i += 4) {
    q[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    q[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    q[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    q[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(q[i], q[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(q[i], q[i + 4], 0x31);
  }
}

// Weight rows [n, n + ncols) (the rest zeros) over [k0, k0 + kc) as f32, k-major and 16 wide:
// panel[k * 16 + j]. A panel is 32 KiB at kc = 512 and contiguous, so it stays in L1 while
// every 6-row tile of a packed activation block runs against it.
void PackWeights(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int kc, float* panel) {
  const char* rows[kPanel];
  for (int j = 0; j < kPanel; ++j) rows[j] = j < ncols ? a.w + (n + j) * a.w_stride : nullptr;
  int k = 0;
  for (; k + 8 <= kc; k += 8) {
    for (int half = 0; half < kPanel; half += 8) {
      __m256 r[8];
      for (int j = 0; j < 8; ++j) r[j] = rows[half + j] ? Load8(a.wtype, rows[half + j], k0 + k) : _mm256_setzero_ps();
      Transpose8(r);
      for (int u = 0; u < 8; ++u) _mm256_store_ps(panel + (k + u) * kPanel + half, r[u]);
    }
  }
  for (; k < kc; ++k) {
    for (int j = 0; j < kPanel; ++j) panel[k * kPanel + j] = rows[j] ? ScalarWeight(a.wtype, rows[j], k0 + k) : 0.0f;
  }
}

// Activation rows [m, m + rows) (the rest zeros) over [k0, k0 + kc), interleaved: tile[k * 6 + i].
// The kernel then broadcasts from one pointer at fixed offsets instead of six strided rows
// (which, 16 KiB apart at K = 4096, also fall into the same L1 sets).
void PackRows(const GemmArgs& a, int64_t m, int rows, int64_t k0, int kc, float* tile) {
  const float* x[8];
  for (int i = 0; i < 8; ++i) x[i] = i < rows && i < kRows ? a.x + (m + i) * a.x_stride + k0 : nullptr;
  const __m256i six = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
  int k = 0;
  for (; k + 8 <= kc; k += 8) {
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = x[i] ? _mm256_loadu_ps(x[i] + k) : _mm256_setzero_ps();
    Transpose8(r);
    for (int u = 0; u < 8; ++u) _mm256_maskstore_ps(tile + (k + u) * kRows, six, r[u]);
  }
  for (; k < kc; ++k) {
    for (int i = 0; i < kRows; ++i) tile[k * kRows + i] = x[i] ? x[i][k] : 0.0f;
  }
}

// A 6×16 register tile: 12 accumulators, two panel loads and six broadcasts per k.
void Kernel(const GemmArgs& a, const float* tile, const float* panel, int kc, int64_t m, int rows, int64_t n,
            int cols, bool add) {
  __m256 c0[kRows], c1[kRows];
#pragma GCC unroll 6
  for (int i = 0; i < kRows; ++i) c0[i] = c1[i] = _mm256_setzero_ps();
#pragma GCC unroll 2
  for (int k = 0; k < kc; ++k, tile += kRows, panel += kPanel) {
    __m256 w0 = _mm256_load_ps(panel), w1 = _mm256_load_ps(panel + 8);
#pragma GCC unroll 6
    for (int i = 0; i < kRows; ++i) {
      __m256 b = _mm256_broadcast_ss(tile + i);
      c0[i] = _mm256_fmadd_ps(b, w0, c0[i]);
      c1[i] = _mm256_fmadd_ps(b, w1, c1[i]);
    }
  }
  alignas(32) float row[kPanel];
#pragma GCC unroll 6
  for (int i = 0; i < kRows; ++i) {
    if (i >= rows) break;
    float* o = a.out + (m + i) * a.out_stride + n;
    if (cols == kPanel) {
      _mm256_storeu_ps(o, add ? _mm256_add_ps(c0[i], _mm256_loadu_ps(o)) : c0[i]);
      _mm256_storeu_ps(o + 8, add ? _mm256_add_ps(c1[i], _mm256_loadu_ps(o + 8)) : c1[i]);
      continue;
    }
    _mm256_store_ps(row, c0[i]);
    _mm256_store_ps(row + 8, c1[i]);
    for (int j = 0; j < cols; ++j) o[j] = add ? o[j] + row[j] : row[j];
  }
}

// One packed block: activation rows [mb, me) against the packed weight columns [nb, ne).
void Block(const GemmArgs& a, const float* panels, float* tiles, int64_t mb, int64_t me, int64_t nb, int64_t ne,
           int64_t k0, int kc) {
  for (int64_t m = mb; m < me; m += kRows) PackRows(a, m, static_cast<int>(Min(kRows, me - m)), k0, kc, tiles + (m - mb) * kc);
  for (int64_t n = nb; n < ne; n += kPanel) {
    const float* panel = panels + (n - nb) * kc;
    int cols = static_cast<int>(Min(kPanel, ne - n));
    for (int64_t m = mb; m < me; m += kRows) {
      Kernel(a, tiles + (m - mb) * kc, panel, kc, m, static_cast<int>(Min(kRows, me - m)), n, cols, k0 != 0);
    }
  }
}

// BLIS's loop order: a block of weight rows is packed once per k slice; activations are packed
// kBlockRows at a time (L2) and each 16-wide weight panel (L1) meets every tile of them.
void Gemm(const GemmArgs& a, int64_t n0, int64_t n1, float* scratch) {
  float* tiles = scratch + kAvx2KC * kAvx2BlockCols;
  for (int64_t nb = n0; nb < n1; nb += kAvx2BlockCols) {
    int64_t ne = Min(n1, nb + kAvx2BlockCols);
    for (int64_t k0 = 0; k0 < a.K; k0 += kAvx2KC) {
      int kc = static_cast<int>(Min(kAvx2KC, a.K - k0));
      for (int64_t n = nb; n < ne; n += kPanel) {
        PackWeights(a, n, static_cast<int>(Min(kPanel, ne - n)), k0, kc, scratch + (n - nb) * kc);
      }
      for (int64_t mb = 0; mb < a.M; mb += kAvx2BlockRows) Block(a, scratch, tiles, mb, Min(a.M, mb + kAvx2BlockRows), nb, ne, k0, kc);
    }
  }
}

inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

template <DType T>
inline __m256 Load8As(const char* row, int64_t k) {
  if constexpr (T == DType::kF16) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * k)));
  } else if constexpr (T == DType::kBF16) {
    return _mm256_castsi256_ps(
        _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * k))), 16));
  } else {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(row + 4 * k));
  }
}

// One weight row at a time, in address order (one sequential stream per thread, as the
// AVX-512 set; see there), 32 weights per step into four accumulators per activation row,
// activation rows three at a time (3 x 4 accumulators + 4 weights fill the 16 registers).
// Every activation row sums in the same order whatever M is.
template <int R, DType T>
inline void GemvGroup(const GemmArgs& a, const char* w, int64_t m0, int64_t n) {
  const int64_t K = a.K, kmain = K / 32 * 32;
  const float* x = a.x + m0 * a.x_stride;
  __m256 acc[R][4];
#pragma GCC unroll 4
  for (int m = 0; m < R; ++m)
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) acc[m][u] = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k < kmain; k += 32) {
    __m256 wv[4];
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) wv[u] = Load8As<T>(w, k + 8 * u);
#pragma GCC unroll 4
    for (int m = 0; m < R; ++m)
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) acc[m][u] = _mm256_fmadd_ps(wv[u], _mm256_loadu_ps(x + m * a.x_stride + k + 8 * u), acc[m][u]);
  }
  for (; k + 8 <= K; k += 8) {
    __m256 wv = Load8As<T>(w, k);
#pragma GCC unroll 4
    for (int m = 0; m < R; ++m) acc[m][0] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(x + m * a.x_stride + k), acc[m][0]);
  }
#pragma GCC unroll 4
  for (int m = 0; m < R; ++m) {
    float s = HorizontalSum(_mm256_add_ps(_mm256_add_ps(acc[m][0], acc[m][1]), _mm256_add_ps(acc[m][2], acc[m][3])));
    for (int64_t t = k; t < K; ++t) s += ScalarWeight(T, w, t) * x[m * a.x_stride + t];
    a.out[(m0 + m) * a.out_stride + n] = s;
  }
}

// Weight rows [n, n + 2) against activation rows [m0, m0 + MB) of a batch of decodes, one
// 8-lane quarter u of every 32 weights per pass, as the AVX-512 set's GemvBlock (see there):
// 2 × MB accumulators live instead of 4 × MB, 6 loads per 8 FMAs instead of 16 per 12. The
// 8-wide tail joins quarter 0 after its main loop and the scalar tail the sum, as in
// GemvGroup, so the bits are those of each row alone.
template <int MB, DType T>
inline void GemvBlock(const GemmArgs& a, int64_t m0, int64_t n) {
  const int64_t K = a.K, kmain = K / 32 * 32, kvec = K / 8 * 8;
  const size_t xs = a.x_stride, ws = a.w_stride;
  const float* x = a.x + m0 * xs;
  const char* w = a.w + n * ws;
  __m256 part[4][2][MB];
#pragma GCC unroll 4
  for (int u = 0; u < 4; ++u) {
    __m256 acc[2][MB];
#pragma GCC unroll 4
    for (int m = 0; m < MB; ++m) acc[0][m] = acc[1][m] = _mm256_setzero_ps();
    // 8 weights of both rows at k against every activation row.
    auto step = [&](int64_t k) __attribute__((always_inline)) {
      __m256 w0 = Load8As<T>(w, k), w1 = Load8As<T>(w + ws, k);
#pragma GCC unroll 4
      for (int m = 0; m < MB; ++m) {
        __m256 xv = _mm256_loadu_ps(x + m * xs + k);
        acc[0][m] = _mm256_fmadd_ps(w0, xv, acc[0][m]);
        acc[1][m] = _mm256_fmadd_ps(w1, xv, acc[1][m]);
      }
    };
    for (int64_t k = 8 * u; k < kmain; k += 32) step(k);
    for (int64_t k = kmain; u == 0 && k < kvec; k += 8) step(k);
#pragma GCC unroll 4
    for (int m = 0; m < MB; ++m) part[u][0][m] = acc[0][m], part[u][1][m] = acc[1][m];
  }
  for (int j = 0; j < 2; ++j)
    for (int m = 0; m < MB; ++m) {
      float s = HorizontalSum(_mm256_add_ps(_mm256_add_ps(part[0][j][m], part[1][j][m]), _mm256_add_ps(part[2][j][m], part[3][j][m])));
      for (int64_t t = kvec; t < K; ++t) s += ScalarWeight(T, w + j * ws, t) * x[m * xs + t];
      a.out[(m0 + m) * a.out_stride + n + j] = s;
    }
}

template <DType T>
void GemvAs(const GemmArgs& a, int64_t n0, int64_t n1) {
  int64_t n = n0;
  for (; a.M > 1 && n + 2 <= n1; n += 2) {
    int64_t m = 0;
    for (; m + 4 <= a.M; m += 4) GemvBlock<4, T>(a, m, n);
    if (a.M - m == 3) GemvBlock<3, T>(a, m, n);
    if (a.M - m == 2) GemvBlock<2, T>(a, m, n);
    if (a.M - m == 1) GemvBlock<1, T>(a, m, n);
  }
  for (; n < n1; ++n) {
    const char* w = a.w + n * a.w_stride;
    int64_t m = 0;
    for (; m + 3 <= a.M; m += 3) GemvGroup<3, T>(a, w, m, n);
    if (a.M - m == 2) GemvGroup<2, T>(a, w, m, n);
    if (a.M - m == 1) GemvGroup<1, T>(a, w, m, n);
  }
}

void Gemv(const GemmArgs& a, int64_t n0, int64_t n1) {
  switch (a.wtype) {
    case DType::kF16: GemvAs<DType::kF16>(a, n0, n1); break;
    case DType::kBF16: GemvAs<DType::kBF16>(a, n0, n1); break;
    default: GemvAs<DType::kF32>(a, n0, n1); break;
  }
}

// 32 values of acc (four registers) at a time; a tail of fewer than 32 runs scalar.
template <DType T>
void WeightedRowsAs(const char* rows, size_t stride, const float* p, int64_t n, float* acc, int64_t hd) {
  int64_t d = 0;
  for (; d + 32 <= hd; d += 32) {
    __m256 s[4];
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) s[u] = _mm256_loadu_ps(acc + d + 8 * u);
    for (int64_t j = 0; j < n; ++j) {
      const char* r = rows + j * stride;
      __m256 pj = _mm256_set1_ps(p[j]);
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) s[u] = _mm256_fmadd_ps(pj, Load8As<T>(r, d + 8 * u), s[u]);
    }
#pragma GCC unroll 4
    for (int u = 0; u < 4; ++u) _mm256_storeu_ps(acc + d + 8 * u, s[u]);
  }
  for (; d < hd; ++d) {
    float s = acc[d];
    for (int64_t j = 0; j < n; ++j) s += p[j] * ScalarWeight(T, rows + j * stride, d);
    acc[d] = s;
  }
}

void WeightedRows(const char* rows, DType t, size_t stride, const float* p, int64_t n, float* acc, int64_t hd) {
  if (t == DType::kF16) WeightedRowsAs<DType::kF16>(rows, stride, p, n, acc, hd);
  else if (t == DType::kBF16) WeightedRowsAs<DType::kBF16>(rows, stride, p, n, acc, hd);  // a bf16 KV cache
  else WeightedRowsAs<DType::kF32>(rows, stride, p, n, acc, hd);
}

// e^x by Cephes' expf: x = n ln2 + r with |r| <= ln2 / 2, e^r by a degree-6 polynomial, 2^n
// built in the exponent field (x is clamped where e^x is below f32's normal range anyway). The
// field holds 2^127 at most: 2^128 is 2^127 · 2, and x is clamped where that overflows to +inf
// (SiLU's e^-x meets both; softmax's x <= 0 never does).
inline __m256 Exp(__m256 x) {
  const __m256 top = _mm256_set1_ps(88.72283935546875f);  // just past ln of f32's largest: 2^128 · (1 + 2e-7)
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.3f)), top);
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256 twice = _mm256_blendv_ps(_mm256_set1_ps(1.0f), _mm256_set1_ps(2.0f), _mm256_cmp_ps(n, _mm256_set1_ps(127.0f), _CMP_GT_OQ));
  n = _mm256_min_ps(n, _mm256_set1_ps(127.0f));
  __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(e)), twice);  // past f32's largest: +inf
}

// Eight at a time; the tail goes through the same polynomial in a padded register, so every
// element gets the same function whatever n is.
float ExpShifted(float* s, int64_t n, float shift) {
  __m256 sum = _mm256_setzero_ps(), sh = _mm256_set1_ps(shift);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256 e = Exp(_mm256_sub_ps(_mm256_loadu_ps(s + j), sh));
    _mm256_storeu_ps(s + j, e);
    sum = _mm256_add_ps(sum, e);
  }
  float tail[8] = {0, 0, 0, 0, 0, 0, 0, 0}, lanes[8];
  for (int64_t u = j; u < n; ++u) tail[u - j] = s[u];
  _mm256_storeu_ps(tail, Exp(_mm256_sub_ps(_mm256_loadu_ps(tail), sh)));
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (int64_t u = j; u < n; ++u) total += (s[u] = tail[u - j]);
  for (float l : lanes) total += l;
  return total;
}

}  // namespace

const MatmulKernels* Avx2Kernels() {
  static const MatmulKernels kernels{"avx2", Gemm, Gemv, WeightedRows, ExpShifted, nullptr, QuantizeActivationsPortable,
                                     QuantGemvAvx2, nullptr, nullptr, nullptr, false, false, nullptr, nullptr};
  bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  return ok ? &kernels : nullptr;
}

}  // namespace vt::cpu
