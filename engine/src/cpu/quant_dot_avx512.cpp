// Decode (M <= kGemvMaxRows) of Q8_0 and Q4_0 weights with integer dot products, as ggml's
// q8_0 dot products do: each activation row rounded to q8_0 blocks (scale amax/127 kept as
// f16, values rounded to nearest even), each block's 32 products summed exactly in int32 by
// vpdpwssd over sign-extended 16-bit pairs, then scaled by f16(dw)·f16(dx) in f32 into 16
// float lanes reduced once per row. Weights are read once at their block size: 34 or 18
// bytes per 32, instead of 128 bytes of dequantized f32. Compiled with AVX-512 VNNI flags and
// chosen only where the CPU has them.
#include <immintrin.h>

#include <vector>

#include "core/quant_blocks.h"
#include "cpu/matmul_kernels.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (bug 105593)

namespace vt::cpu {
namespace {

// One activation row as q8_0: values into q (K int8), block scales (f16-rounded) into d.
void QuantizeQ8_0(const float* x, int64_t K, int8_t* q, float* d) {
  for (int64_t b = 0; b < K / 32; ++b) {
    __m512 lo = _mm512_loadu_ps(x + 32 * b), hi = _mm512_loadu_ps(x + 32 * b + 16);
    float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(lo), _mm512_abs_ps(hi)));
    float scale = amax / 127.0f, inv = scale != 0.0f ? 1.0f / scale : 0.0f;
    d[b] = _cvtsh_ss(_cvtss_sh(scale, _MM_FROUND_TO_NEAREST_INT));
    __m512 iv = _mm512_set1_ps(inv);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 32 * b), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(lo, iv))));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 32 * b + 16), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(hi, iv))));
  }
}

// The 32 weights of a block as int16 lanes.
template <DType T>
inline __m512i WeightBlock(const uint8_t* block) {
  if constexpr (T == DType::kQ8_0) {
    return _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2)));
  } else {  // Q4_0: low nibbles are elements 0..15, high nibbles 16..31, each minus 8
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 2)), low = _mm_set1_epi8(0xF);
    __m256i both = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), low), _mm_and_si128(v, low));
    return _mm512_sub_epi16(_mm512_cvtepu8_epi16(both), _mm512_set1_epi16(8));
  }
}

template <DType T>
void Rows(const GemmArgs& a, int64_t n0, int64_t n1, const int8_t* xq, const float* xd) {
  const int64_t blocks = a.K / 32;
  const size_t bytes = BlockBytes(T);
  for (int64_t n = n0; n < n1; ++n) {
    const uint8_t* row = reinterpret_cast<const uint8_t*>(a.w + n * a.w_stride);
    for (int64_t m = 0; m < a.M; ++m) {
      const int8_t* q = xq + m * a.K;
      const float* d = xd + m * blocks;
      __m512 acc = _mm512_setzero_ps();
      for (int64_t b = 0; b < blocks; ++b) {
        const uint8_t* block = row + b * bytes;
        __m512i x16 = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * b)));
        __m512i sums = _mm512_dpwssd_epi32(_mm512_setzero_si512(), WeightBlock<T>(block), x16);
        float scale = _cvtsh_ss(quant::Half(block)) * d[b];
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), _mm512_set1_ps(scale), acc);
      }
      a.out[m * a.out_stride + n] = _mm512_reduce_add_ps(acc);
    }
  }
}

}  // namespace

bool QuantGemvAvx512(const GemmArgs& a, int64_t n0, int64_t n1) {
  if ((a.wtype != DType::kQ8_0 && a.wtype != DType::kQ4_0) || a.M > kGemvMaxRows || a.K % 32 != 0) return false;
  thread_local std::vector<int8_t> xq;
  thread_local std::vector<float> xd;
  xq.resize(static_cast<size_t>(a.M * a.K));
  xd.resize(static_cast<size_t>(a.M * (a.K / 32)));
  for (int64_t m = 0; m < a.M; ++m) QuantizeQ8_0(a.x + m * a.x_stride, a.K, xq.data() + m * a.K, xd.data() + m * (a.K / 32));
  if (a.wtype == DType::kQ8_0) {
    Rows<DType::kQ8_0>(a, n0, n1, xq.data(), xd.data());
  } else {
    Rows<DType::kQ4_0>(a, n0, n1, xq.data(), xd.data());
  }
  return true;
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
