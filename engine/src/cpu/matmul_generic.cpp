// Portable kernels: the same blocking as the SIMD ones, plain loops the compiler may vectorise.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cpu/matmul_kernels.h"

namespace vt::cpu {
namespace {

float WeightAt(const GemmArgs& a, int64_t n, int64_t k) {
  const char* row = a.w + n * a.w_stride;
  uint16_t h;
  switch (a.wtype) {
    case DType::kF16: std::memcpy(&h, row + 2 * k, 2); return F16ToF32(h);
    case DType::kBF16: std::memcpy(&h, row + 2 * k, 2); return BF16ToF32(h);
    default: { float f; std::memcpy(&f, row + 4 * k, 4); return f; }
  }
}

// panel[k][j] = w[n + j][k0 + k], zero past the last column.
void Pack(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int kc, float* panel) {
  for (int k = 0; k < kc; ++k) {
    for (int j = 0; j < kNR; ++j) panel[k * kNR + j] = j < ncols ? WeightAt(a, n + j, k0 + k) : 0.0f;
  }
}

void Tile(const GemmArgs& a, const float* panel, int64_t m, int rows, int64_t n, int ncols, int64_t k0,
          int kc) {
  float acc[kMR][kNR] = {};
  for (int k = 0; k < kc; ++k) {
    for (int i = 0; i < rows; ++i) {
      float b = a.x[(m + i) * a.x_stride + k0 + k];
      for (int j = 0; j < kNR; ++j) acc[i][j] += b * panel[k * kNR + j];
    }
  }
  for (int i = 0; i < rows; ++i) {
    float* o = a.out + (m + i) * a.out_stride + n;
    for (int j = 0; j < ncols; ++j) o[j] = k0 == 0 ? acc[i][j] : o[j] + acc[i][j];
  }
}

void Gemm(const GemmArgs& a, int64_t n0, int64_t n1, float* scratch) {
  for (int64_t nb = n0; nb < n1; nb += kNC) {
    int64_t ne = std::min<int64_t>(n1, nb + kNC);
    for (int64_t k0 = 0; k0 < a.K; k0 += kKC) {
      int kc = static_cast<int>(std::min<int64_t>(kKC, a.K - k0));
      for (int64_t n = nb; n < ne; n += kNR) {
        Pack(a, n, static_cast<int>(std::min<int64_t>(kNR, ne - n)), k0, kc, scratch + (n - nb) * kKC);
      }
      for (int64_t m = 0; m < a.M; m += kMR) {
        int rows = static_cast<int>(std::min<int64_t>(kMR, a.M - m));
        for (int64_t n = nb; n < ne; n += kNR) {
          Tile(a, scratch + (n - nb) * kKC, m, rows, n, static_cast<int>(std::min<int64_t>(kNR, ne - n)), k0, kc);
        }
      }
    }
  }
}

void Gemv(const GemmArgs& a, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t m = 0; m < a.M; ++m) {
      const float* x = a.x + m * a.x_stride;
      float s[4] = {0, 0, 0, 0};
      int64_t k = 0;
      for (; k + 4 <= a.K; k += 4) {
        for (int u = 0; u < 4; ++u) s[u] += WeightAt(a, n, k + u) * x[k + u];
      }
      for (; k < a.K; ++k) s[0] += WeightAt(a, n, k) * x[k];
      a.out[m * a.out_stride + n] = (s[0] + s[1]) + (s[2] + s[3]);
    }
  }
}

void WeightedRows(const char* rows, DType t, size_t stride, const float* p, int64_t n, float* acc, int64_t hd) {
  GemmArgs row{rows, t, stride, nullptr, 0, nullptr, 0, 0, 0, 0};
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t d = 0; d < hd; ++d) acc[d] += p[j] * WeightAt(row, j, d);
  }
}

float ExpShifted(float* s, int64_t n, float shift) {
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - shift));
  return static_cast<float>(sum);
}

}  // namespace

const MatmulKernels& GenericKernels() {
  static const MatmulKernels kernels{"generic", Gemm, Gemv, WeightedRows, ExpShifted, nullptr, QuantizeActivationsPortable,
                                     QuantGemvPortable, nullptr, nullptr, nullptr, false, false, nullptr, nullptr};
  return kernels;
}

}  // namespace vt::cpu
