// The AVX-512 set's row dequantization for the block types most files hold (Q4_0, Q8_0, Q4_K,
// Q5_K, Q6_K): the portable code's values (engine/src/core/dequant.cpp) sixteen at a time, each
// product and difference rounded as there (this file is compiled with -ffp-contract=off, and
// per-block scales are the same scalar float products). Other types: false, the caller falls
// back to the portable code.
#include <immintrin.h>

#include "core/quant_blocks.h"
#include "cpu/matmul_kernels.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (bug 105593)

namespace vt::cpu {
namespace {

using namespace quant;

inline float Half2F(const uint8_t* p) { return _cvtsh_ss(Half(p)); }

// Sixteen bytes from p, as 32-bit lanes.
inline __m512i Bytes16(const uint8_t* p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }

inline __m512 F(__m512i v) { return _mm512_cvtepi32_ps(v); }

void Q4_0(const uint8_t* b, float* y) {
  const __m512 d = _mm512_set1_ps(Half2F(b));
  const __m512i v = Bytes16(b + 2), eight = _mm512_set1_epi32(8), low = _mm512_set1_epi32(0xF);
  _mm512_storeu_ps(y, _mm512_mul_ps(F(_mm512_sub_epi32(_mm512_and_si512(v, low), eight)), d));
  _mm512_storeu_ps(y + 16, _mm512_mul_ps(F(_mm512_sub_epi32(_mm512_srli_epi32(v, 4), eight)), d));
}

void Q8_0(const uint8_t* b, float* y) {
  const __m512 d = _mm512_set1_ps(Half2F(b));
  for (int h = 0; h < 2; ++h) {
    __m512i q = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 + 16 * h)));
    _mm512_storeu_ps(y + 16 * h, _mm512_mul_ps(F(q), d));
  }
}

// Q4_K and Q5_K: per 64 elements a scale and min pair for each 32; Q5_K adds bit (2·chunk +
// upper) of qh[l] as 16.
void Q45_K(const uint8_t* b, float* y, bool five) {
  const QKView v = ViewQK(b, five);
  const float d = _cvtsh_ss(v.d), dmin = _cvtsh_ss(v.dmin);
  const __m512i low = _mm512_set1_epi32(0xF), one = _mm512_set1_epi32(1);
  for (int chunk = 0; chunk < 4; ++chunk) {
    uint8_t sc, m;
    ScaleMinK4(2 * chunk, v.scales, &sc, &m);
    const __m512 d1 = _mm512_set1_ps(d * static_cast<float>(sc)), m1 = _mm512_set1_ps(dmin * static_cast<float>(m));
    ScaleMinK4(2 * chunk + 1, v.scales, &sc, &m);
    const __m512 d2 = _mm512_set1_ps(d * static_cast<float>(sc)), m2 = _mm512_set1_ps(dmin * static_cast<float>(m));
    for (int h = 0; h < 2; ++h) {
      __m512i q = Bytes16(v.qs + 32 * chunk + 16 * h);
      __m512i lo = _mm512_and_si512(q, low), hi = _mm512_srli_epi32(q, 4);
      if (five) {
        __m512i bits = Bytes16(v.qh + 16 * h);
        lo = _mm512_add_epi32(lo, _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(bits, 2 * chunk), one), 4));
        hi = _mm512_add_epi32(hi, _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(bits, 2 * chunk + 1), one), 4));
      }
      _mm512_storeu_ps(y + 64 * chunk + 16 * h, _mm512_sub_ps(_mm512_mul_ps(d1, F(lo)), m1));
      _mm512_storeu_ps(y + 64 * chunk + 32 + 16 * h, _mm512_sub_ps(_mm512_mul_ps(d2, F(hi)), m2));
    }
  }
}

// Q6_K: per half of 128, element l of each group g (0..3) from ql's nibbles and qh's bit pairs;
// its scale is (d · scale) rounded first, as the portable code multiplies left to right.
void Q6_K(const uint8_t* b, float* y) {
  const Q6KView v = ViewQ6K(b);
  const float d = _cvtsh_ss(v.d);
  const __m512i low = _mm512_set1_epi32(0xF), three = _mm512_set1_epi32(3), bias = _mm512_set1_epi32(32);
  for (int half = 0; half < 2; ++half) {
    const uint8_t *ql = v.ql + 64 * half, *qh = v.qh + 32 * half;
    const int8_t* sc = v.scales + 8 * half;
    for (int s = 0; s < 2; ++s) {  // l in [16 s, 16 s + 16)
      __m512i a = Bytes16(ql + 16 * s), c = Bytes16(ql + 32 + 16 * s), h = Bytes16(qh + 16 * s);
      __m512i q[4] = {_mm512_and_si512(a, low), _mm512_and_si512(c, low), _mm512_srli_epi32(a, 4), _mm512_srli_epi32(c, 4)};
      for (int g = 0; g < 4; ++g) {
        __m512i top = _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(h, 2 * g), three), 4);
        __m512i value = _mm512_sub_epi32(_mm512_or_si512(q[g], top), bias);
        __m512 scale = _mm512_set1_ps(d * static_cast<float>(sc[s + 2 * g]));
        _mm512_storeu_ps(y + 128 * half + 32 * g + 16 * s, _mm512_mul_ps(scale, F(value)));
      }
    }
  }
}

}  // namespace

bool DequantizeRowAvx512(DType t, const void* src, float* dst, int64_t n) {
  const uint8_t* b = static_cast<const uint8_t*>(src);
  const size_t bytes = BlockBytes(t);
  const int64_t blocks = n / BlockSize(t), bs = BlockSize(t);
  switch (t) {
    case DType::kQ4_0: for (int64_t i = 0; i < blocks; ++i) Q4_0(b + i * bytes, dst + i * bs); return true;
    case DType::kQ8_0: for (int64_t i = 0; i < blocks; ++i) Q8_0(b + i * bytes, dst + i * bs); return true;
    case DType::kQ4_K: for (int64_t i = 0; i < blocks; ++i) Q45_K(b + i * bytes, dst + i * bs, false); return true;
    case DType::kQ5_K: for (int64_t i = 0; i < blocks; ++i) Q45_K(b + i * bytes, dst + i * bs, true); return true;
    case DType::kQ6_K: for (int64_t i = 0; i < blocks; ++i) Q6_K(b + i * bytes, dst + i * bs); return true;
    default: return false;
  }
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
