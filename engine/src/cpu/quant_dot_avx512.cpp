// Decode (M <= kGemvMaxRows) of Q8_0, Q4_0 (and Q4_K, below) weights with integer dot
// products, as ggml's q8_0 dot products do: each activation row rounded to q8_0 blocks (scale amax/127 kept as
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

// One activation row as q8_K (ggml's quantize_row_q8_K): per 256 values, v the one of largest
// magnitude, iscale = -127 / v, q = round-to-nearest(iscale·x) capped at 127, the scale
// 1 / iscale, and the sums of q per 16 (for the weights' mins).
void QuantizeQ8_K(const float* x, int64_t K, int8_t* q, float* d, int32_t* bsums) {
  for (int64_t b = 0; b < K / 256; ++b) {
    const float* xb = x + 256 * b;
    float amax = 0, max = 0;
    for (int j = 0; j < 256; ++j) {
      float ax = xb[j] < 0 ? -xb[j] : xb[j];
      if (ax > amax) amax = ax, max = xb[j];
    }
    const float iscale = amax != 0.0f ? -127.0f / max : 0.0f;
    for (int j = 0; j < 256; ++j) {
      int v = static_cast<int>(__builtin_nearbyintf(iscale * xb[j]));
      q[256 * b + j] = static_cast<int8_t>(v < 127 ? v : 127);
    }
    for (int g = 0; g < 16; ++g) {
      int32_t sum = 0;
      for (int j = 0; j < 16; ++j) sum += q[256 * b + 16 * g + j];
      bsums[16 * b + g] = sum;
    }
    d[b] = amax != 0.0f ? 1.0f / iscale : 0.0f;
  }
}

// Σ over one Q4_K (or Q5_K) row's super-blocks: per sub-block of 32 the exact int32 sum of nibble ×
// activation (vpdpbusd: unsigned by signed bytes) times its 6-bit scale; the mins against the
// activations' sums per 16; each super-block scaled in f32.
// Q5_K (kFive): each value's fifth bit, bit 2c (lower 32) or 2c + 1 (upper) of qh[l], adds 16.
template <bool kFive>
float Q45KRow(const uint8_t* row, int64_t blocks, const int8_t* q, const float* dx, const int32_t* bsums) {
  const __m256i low = _mm256_set1_epi8(0xF), one = _mm256_set1_epi8(1);
  const size_t bytes = kFive ? 176 : 144;
  float total = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const quant::QKView v = quant::ViewQK(row + b * bytes, kFive);
    const int8_t* xq = q + 256 * b;
    __m256i acc = _mm256_setzero_si256();
    int32_t mins = 0;
    for (int c = 0; c < 4; ++c) {
      uint8_t sc_lo, m_lo, sc_hi, m_hi;
      quant::ScaleMinK4(2 * c, v.scales, &sc_lo, &m_lo);
      quant::ScaleMinK4(2 * c + 1, v.scales, &sc_hi, &m_hi);
      __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.qs + 32 * c));
      __m256i lo = _mm256_and_si256(w, low), hi = _mm256_and_si256(_mm256_srli_epi16(w, 4), low);
      if constexpr (kFive) {
        __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.qh));
        lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2 * c), one), 4));
        hi = _mm256_or_si256(hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2 * c + 1), one), 4));
      }
      __m256i x_lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq + 64 * c));
      __m256i x_hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq + 64 * c + 32));
      acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_dpbusd_epi32(_mm256_setzero_si256(), lo, x_lo), _mm256_set1_epi32(sc_lo)));
      acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_dpbusd_epi32(_mm256_setzero_si256(), hi, x_hi), _mm256_set1_epi32(sc_hi)));
      const int32_t* s = bsums + 16 * b + 4 * c;
      mins += m_lo * (s[0] + s[1]) + m_hi * (s[2] + s[3]);
    }
    __m128i sum4 = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    sum4 = _mm_add_epi32(sum4, _mm_shuffle_epi32(sum4, 0x4E));
    sum4 = _mm_add_epi32(sum4, _mm_shuffle_epi32(sum4, 0xB1));
    const int32_t sumi = _mm_cvtsi128_si32(sum4);
    total += _cvtsh_ss(v.d) * dx[b] * static_cast<float>(sumi) - _cvtsh_ss(v.dmin) * dx[b] * static_cast<float>(mins);
  }
  return total;
}

// Σ over one Q6_K row's super-blocks: per half of 128, the four groups of 32 six-bit values
// rebuilt from ql's nibbles and qh's bit pairs, vpdpbusd with the activations (lanes 0-3 are
// one sub-block of 16, lanes 4-7 the next) times the int8 scales; the -32 offset through the
// activations' sums per 16.
float Q6KRow(const uint8_t* row, int64_t blocks, const int8_t* q, const float* dx, const int32_t* bsums) {
  const __m256i low = _mm256_set1_epi8(0xF), two = _mm256_set1_epi8(3);
  float total = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const quant::Q6KView v = quant::ViewQ6K(row + b * 210);
    const int8_t* xq = q + 256 * b;
    __m256i acc = _mm256_setzero_si256();
    int32_t offset = 0;
    for (int j = 0; j < 16; ++j) offset += 32 * v.scales[j] * bsums[16 * b + j];
    for (int half = 0; half < 2; ++half) {
      __m256i A = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.ql + 64 * half));
      __m256i B = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.ql + 64 * half + 32));
      __m256i H = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.qh + 32 * half));
      __m256i g[4] = {_mm256_and_si256(A, low), _mm256_and_si256(B, low), _mm256_and_si256(_mm256_srli_epi16(A, 4), low),
                      _mm256_and_si256(_mm256_srli_epi16(B, 4), low)};
      for (int k = 0; k < 4; ++k) {
        __m256i top = _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(H, 2 * k), two), 4);
        __m256i values = _mm256_or_si256(g[k], top);
        __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq + 128 * half + 32 * k));
        const int8_t* sc = v.scales + 8 * half + 2 * k;
        __m256i scales = _mm256_set_epi32(sc[1], sc[1], sc[1], sc[1], sc[0], sc[0], sc[0], sc[0]);
        acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_dpbusd_epi32(_mm256_setzero_si256(), values, x), scales));
      }
    }
    __m128i sum4 = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    sum4 = _mm_add_epi32(sum4, _mm_shuffle_epi32(sum4, 0x4E));
    sum4 = _mm_add_epi32(sum4, _mm_shuffle_epi32(sum4, 0xB1));
    total += _cvtsh_ss(v.d) * dx[b] * static_cast<float>(_mm_cvtsi128_si32(sum4) - offset);
  }
  return total;
}

// Q4_K, Q5_K or Q6_K rows over q8_K activations.
bool KQuantGemv(const GemmArgs& a, int64_t n0, int64_t n1) {
  if (a.K % 256 != 0) return false;
  const int64_t blocks = a.K / 256;
  thread_local std::vector<int8_t> xq;
  thread_local std::vector<float> xd;
  thread_local std::vector<int32_t> bsums;
  xq.resize(static_cast<size_t>(a.M * a.K));
  xd.resize(static_cast<size_t>(a.M * blocks));
  bsums.resize(static_cast<size_t>(a.M * blocks * 16));
  for (int64_t m = 0; m < a.M; ++m) {
    QuantizeQ8_K(a.x + m * a.x_stride, a.K, xq.data() + m * a.K, xd.data() + m * blocks, bsums.data() + m * blocks * 16);
  }
  for (int64_t n = n0; n < n1; ++n) {
    const uint8_t* row = reinterpret_cast<const uint8_t*>(a.w + n * a.w_stride);
    for (int64_t m = 0; m < a.M; ++m) {
      const int8_t* q = xq.data() + m * a.K;
      const float* d = xd.data() + m * blocks;
      const int32_t* s = bsums.data() + m * blocks * 16;
      float r = a.wtype == DType::kQ4_K   ? Q45KRow<false>(row, blocks, q, d, s)
                : a.wtype == DType::kQ5_K ? Q45KRow<true>(row, blocks, q, d, s)
                                          : Q6KRow(row, blocks, q, d, s);
      a.out[m * a.out_stride + n] = r;
    }
  }
  return true;
}

}  // namespace

bool QuantGemvAvx512(const GemmArgs& a, int64_t n0, int64_t n1) {
  if (a.M > kGemvMaxRows) return false;
  if (a.wtype == DType::kQ4_K || a.wtype == DType::kQ5_K || a.wtype == DType::kQ6_K) return KQuantGemv(a, n0, n1);
  if ((a.wtype != DType::kQ8_0 && a.wtype != DType::kQ4_0) || a.K % 32 != 0) return false;
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
