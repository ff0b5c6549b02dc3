// Helpers shared by the AVX-512 kernel files only (matmul_avx512.cpp, matmul_avx512_bf16.cpp,
// short_gemm_avx512.cpp): include it nowhere else. Everything here has internal linkage, so no AVX-512 encoding of it
// can be merged by the linker into a portable caller.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "vt/dtype.h"

// GCC 12 warns that the 512-bit shuffles read an uninitialized value: its own
// _mm512_undefined_ps (GCC bug 105593, fixed in 13), at -O2 where these helpers are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace vt::cpu {
namespace {

// Local min/max: a std:: template instantiated in an AVX-512 file could be merged by the
// linker into the portable path with AVX-512 encodings in it.
inline int64_t Min(int64_t a, int64_t b) { return a < b ? a : b; }
inline int Max0(int a) { return a > 0 ? a : 0; }
inline __mmask16 TailMask(int64_t left) { return left >= 16 ? 0xffff : static_cast<__mmask16>((1u << left) - 1); }

// 16 weights of row `row` from element k, as f32; `mask` selects the valid lanes.
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

// Rows r[0..15] become columns: r[k][j] = old r[j][k].
inline void Transpose16(__m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    r[4 * i + 0] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[4 * i + 1] = _mm512_shuffle_ps(t[4 * i + 0], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);
  }
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}

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

#pragma GCC diagnostic pop
