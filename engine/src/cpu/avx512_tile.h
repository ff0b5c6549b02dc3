// Helpers shared by the AVX-512 kernel files only (matmul_avx512.cpp, matmul_avx512_bf16.cpp):
// include it nowhere else. Everything here has internal linkage, so no AVX-512 encoding of it
// can be merged by the linker into a portable caller.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace vt::cpu {
namespace {

// Local min/max: a std:: template instantiated in an AVX-512 file could be merged by the
// linker into the portable path with AVX-512 encodings in it.
inline int64_t Min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int Max0(int a) { return a > 0 ? a : 0; }
inline __mmask16 TailMask(int64_t left) { return left >= 16 ? 0xffff : static_cast<__mmask16>((1u << left) - 1); }

// A 12x32-style tile's R rows of two accumulators into out (row m + i, columns n..n + ncols),
// added to what a previous k slice left there unless this is the first slice (k0 == 0).
template <int R>
inline void StoreTile(__m512 (&acc0)[R], __m512 (&acc1)[R], float* out, size_t out_stride, int64_t m, int64_t n,
                      int ncols, int64_t k0) {
  __mmask16 m0 = TailMask(ncols), m1 = TailMask(Max0(ncols - 16));
#pragma GCC unroll 16
  for (int i = 0; i < R; ++i) {
    float* o = out + (m + i) * out_stride + n;
    if (k0 != 0) {
      acc0[i] = _mm512_add_ps(acc0[i], _mm512_maskz_loadu_ps(m0, o));
      acc1[i] = _mm512_add_ps(acc1[i], _mm512_maskz_loadu_ps(m1, o + 16));
    }
    _mm512_mask_storeu_ps(o, m0, acc0[i]);
    _mm512_mask_storeu_ps(o + 16, m1, acc1[i]);
  }
}

}  // namespace
}  // namespace vt::cpu
