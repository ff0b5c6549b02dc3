// AVX2 kernels (with FMA and F16C), compiled with -mavx2 -mfma -mf16c and chosen at run time
// on CPUs without AVX-512. Same packed panels as the other kernel sets; the 32-wide panel is
// computed as two 16-wide halves so a 6×16 tile's 12 accumulators fit the 16 ymm registers.
// No std:: templates here: an instantiation with AVX2 code could leak into the portable path.
#include <immintrin.h>

#include <cstring>

#include "cpu/matmul_kernels.h"

namespace vt::cpu {
namespace {

constexpr int kRows = 6;  // rows per AVX2 tile

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

void Pack(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int kc, float* panel) {
  alignas(32) float tmp[8];
  for (int j = 0; j < kNR; ++j) {
    const char* w = j < ncols ? a.w + (n + j) * a.w_stride : nullptr;
    int k = 0;
    for (; w && k + 8 <= kc; k += 8) {
      _mm256_store_ps(tmp, Load8(a.wtype, w, k0 + k));
      for (int u = 0; u < 8; ++u) panel[(k + u) * kNR + j] = tmp[u];
    }
    for (; k < kc; ++k) panel[k * kNR + j] = w ? ScalarWeight(a.wtype, w, k0 + k) : 0.0f;
  }
}

template <int R>
void Half(const GemmArgs& a, const float* panel, int64_t m, int64_t n, int ncols, int64_t k0, int kc) {
  __m256 acc0[R], acc1[R];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) acc0[i] = acc1[i] = _mm256_setzero_ps();
  const float* x = a.x + m * a.x_stride + k0;
  for (int k = 0; k < kc; ++k) {
    __m256 w0 = _mm256_load_ps(panel + k * kNR), w1 = _mm256_load_ps(panel + k * kNR + 8);
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      __m256 b = _mm256_broadcast_ss(x + i * a.x_stride + k);
      acc0[i] = _mm256_fmadd_ps(b, w0, acc0[i]);
      acc1[i] = _mm256_fmadd_ps(b, w1, acc1[i]);
    }
  }
  alignas(32) float row[16];
#pragma GCC unroll 8
  for (int i = 0; i < R; ++i) {
    _mm256_store_ps(row, acc0[i]);
    _mm256_store_ps(row + 8, acc1[i]);
    float* o = a.out + (m + i) * a.out_stride + n;
    for (int j = 0; j < ncols; ++j) o[j] = k0 == 0 ? row[j] : o[j] + row[j];
  }
}

void Tile(int rows, const GemmArgs& a, const float* panel, int64_t m, int64_t n, int ncols, int64_t k0, int kc) {
  for (int h = 0; h < 2 && h * 16 < ncols; ++h) {
    int cols = static_cast<int>(Min(16, ncols - h * 16));
    const float* p = panel + h * 16;
    switch (rows) {
      case 6: Half<6>(a, p, m, n + h * 16, cols, k0, kc); break;
      case 5: Half<5>(a, p, m, n + h * 16, cols, k0, kc); break;
      case 4: Half<4>(a, p, m, n + h * 16, cols, k0, kc); break;
      case 3: Half<3>(a, p, m, n + h * 16, cols, k0, kc); break;
      case 2: Half<2>(a, p, m, n + h * 16, cols, k0, kc); break;
      default: Half<1>(a, p, m, n + h * 16, cols, k0, kc); break;
    }
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
      for (int64_t m = 0; m < a.M; m += kRows) {
        int rows = static_cast<int>(Min(kRows, a.M - m));
        for (int64_t n = nb; n < ne; n += kNR) {
          Tile(rows, a, scratch + (n - nb) * kKC, m, n, static_cast<int>(Min(kNR, ne - n)), k0, kc);
        }
      }
    }
  }
}

inline float HorizontalSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
  return _mm_cvtss_f32(s);
}

// Two weight rows at a time against every activation row: weights are read once.
void Gemv(const GemmArgs& a, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; n += 2) {
    int rows = static_cast<int>(Min(2, n1 - n));
    __m256 acc[kGemvMaxRows][2];
    for (int m = 0; m < a.M; ++m) acc[m][0] = acc[m][1] = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 8 <= a.K; k += 8) {
      __m256 w0 = Load8(a.wtype, a.w + n * a.w_stride, k);
      __m256 w1 = rows > 1 ? Load8(a.wtype, a.w + (n + 1) * a.w_stride, k) : _mm256_setzero_ps();
      for (int m = 0; m < a.M; ++m) {
        __m256 x = _mm256_loadu_ps(a.x + m * a.x_stride + k);
        acc[m][0] = _mm256_fmadd_ps(w0, x, acc[m][0]);
        acc[m][1] = _mm256_fmadd_ps(w1, x, acc[m][1]);
      }
    }
    for (int m = 0; m < a.M; ++m) {
      for (int r = 0; r < rows; ++r) {
        float s = HorizontalSum(acc[m][r]);
        for (int64_t t = k; t < a.K; ++t) s += ScalarWeight(a.wtype, a.w + (n + r) * a.w_stride, t) * a.x[m * a.x_stride + t];
        a.out[m * a.out_stride + n + r] = s;
      }
    }
  }
}

}  // namespace

const MatmulKernels* Avx2Kernels() {
  static const MatmulKernels kernels{"avx2", Gemm, Gemv};
  bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  return ok ? &kernels : nullptr;
}

}  // namespace vt::cpu
