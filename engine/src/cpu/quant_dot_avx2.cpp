// The AVX2 set's q8 decode, over the plain layout the portable code rounds the activations
// into (cpu/quant_acts.h): 32 weights per instruction, vpmaddubsw of unsigned weight values
// (Q8_0: their magnitudes, the activations given their signs, as ggml's AVX2 code does) with
// the int8 activations, then vpmaddwd by ones or by the group's int16 scale: exact int32 sums,
// scaled in f32 once per block. One activation row at a time. Compiled with AVX2 flags and
// chosen only where the CPU has them.
#include <immintrin.h>

#include <cstring>

#include "core/quant_blocks.h"
#include "cpu/matmul_kernels.h"
#include "cpu/quant_acts.h"

namespace vt::cpu {
namespace {

float Sum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

// Σ of pairs of u8 × i8 products, in eight int32 lanes, each product scaled by `scale16`.
inline __m256i Dot(__m256i u, __m256i x, __m256i scale16) { return _mm256_madd_epi16(_mm256_maddubs_epi16(u, x), scale16); }

// Lane 0 minus `value`: an offset taken out of a block's int32 sum.
inline __m256i Less(__m256i v, int32_t value) { return _mm256_sub_epi32(v, _mm256_zextsi128_si256(_mm_cvtsi32_si128(value))); }

float RowQ8_0(const uint8_t* w, const QuantActs& x, int64_t m) {
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc = _mm256_setzero_ps();
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* block = w + 34 * b;
    const __m256i wq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2));
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.q + m * x.q_row + 32 * b));
    const __m256i s = Dot(_mm256_sign_epi8(wq, wq), _mm256_sign_epi8(q, wq), ones);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(_cvtsh_ss(quant::Half(block)) * x.d[m * x.d_row + b]), acc);
  }
  return Sum(acc);
}

// Q4_0 / Q5_0: the unsigned values (Q5_0: plus 16 where qh's bit is set), then -offset·Σx;
// Q4_1 / Q5_1 (kMin): no offset, and m·s (q8_1's s) summed apart and added at the end, as
// ggml's x86 vec_dot_q4_1_q8_1 does.
template <bool kFive, bool kMin>
float RowPairs(const uint8_t* w, const QuantActs& x, int64_t m) {
  constexpr int64_t kHead = kMin ? 4 : 2, kBytes = kHead + (kFive ? 4 : 0) + 16, kOffset = kMin ? 0 : kFive ? 16 : 8;
  const __m256i ones = _mm256_set1_epi16(1), low = _mm256_set1_epi8(0xF);
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  __m256 acc = _mm256_setzero_ps();
  float min_total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* block = w + kBytes * b;
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + kHead + (kFive ? 4 : 0)));
    __m256i u = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(v, 4), v), low);
    if constexpr (kFive) {  // byte j gets 0xFF where bit j of qh is set (ggml's bytes_from_bits_32)
      uint32_t qh;
      std::memcpy(&qh, block + kHead, 4);
      const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(qh)),
                                                 _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0));
      const __m256i set = _mm256_cmpeq_epi8(_mm256_or_si256(spread, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe)), _mm256_set1_epi64x(-1));
      u = _mm256_or_si256(u, _mm256_and_si256(set, _mm256_set1_epi8(16)));
    }
    const __m256i q = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.q + m * x.q_row + 32 * b));
    const __m256i s = Less(Dot(u, q, ones), static_cast<int32_t>(kOffset) * sums[b]);
    const float dx = x.d[m * x.d_row + b];
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(_cvtsh_ss(quant::Half(block)) * dx), acc);
    if constexpr (kMin) min_total += _cvtsh_ss(quant::Half(block + 2)) * x.d[m * x.d_row + x.blocks + b];
  }
  return Sum(acc) + min_total;
}

float RowQ45K(const uint8_t* w, bool five, const QuantActs& x, int64_t m) {
  const __m256i low = _mm256_set1_epi8(0xF), one = _mm256_set1_epi8(1);
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  __m256 acc = _mm256_setzero_ps();
  float min_total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const quant::QKView v = quant::ViewQK(w + b * (five ? 176 : 144), five);
    const int8_t* q = x.q + m * x.q_row + 256 * b;
    uint8_t sc[8], mn[8];
    for (int g = 0; g < 8; ++g) quant::ScaleMinK4(g, v.scales, &sc[g], &mn[g]);
    __m256i s = _mm256_setzero_si256();
    for (int c = 0; c < 4; ++c) {  // groups 2c (low nibbles) and 2c + 1 (high)
      const __m256i qs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.qs + 32 * c));
      __m256i lo = _mm256_and_si256(qs, low), hi = _mm256_and_si256(_mm256_srli_epi16(qs, 4), low);
      if (five) {
        const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.qh));
        lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), one), 4));
        hi = _mm256_or_si256(hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), one), 4));
      }
      s = _mm256_add_epi32(s, Dot(lo, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 64 * c)), _mm256_set1_epi16(sc[2 * c])));
      s = _mm256_add_epi32(s, Dot(hi, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 64 * c + 32)), _mm256_set1_epi16(sc[2 * c + 1])));
    }
    int32_t mins = 0;
    for (int g = 0; g < 8; ++g) mins += mn[g] * sums[8 * b + g];
    const float dx = x.d[m * x.d_row + b];
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(_cvtsh_ss(v.d) * dx), acc);
    min_total += _cvtsh_ss(v.dmin) * dx * static_cast<float>(mins);
  }
  return Sum(acc) - min_total;
}

float RowQ6K(const uint8_t* w, const QuantActs& x, int64_t m) {
  const __m256i low = _mm256_set1_epi8(0xF), two = _mm256_set1_epi8(3);
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  __m256 acc = _mm256_setzero_ps();
  for (int64_t b = 0; b < x.blocks; ++b) {
    const quant::Q6KView v = quant::ViewQ6K(w + b * 210);
    const int8_t* q = x.q + m * x.q_row + 256 * b;
    __m256i s = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {
      const __m256i A = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.ql + 64 * h));
      const __m256i B = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.ql + 64 * h + 32));
      const __m256i H = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.qh + 32 * h));
      const __m256i nib[4] = {_mm256_and_si256(A, low), _mm256_and_si256(B, low), _mm256_and_si256(_mm256_srli_epi16(A, 4), low),
                              _mm256_and_si256(_mm256_srli_epi16(B, 4), low)};
      for (int k = 0; k < 4; ++k) {  // values 32k .. 32k + 31 of the half: groups of 16 8h + 2k, + 1
        const __m256i u = _mm256_or_si256(nib[k], _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(H, 2 * k), two), 4));
        const int8_t* sc = v.scales + 8 * h + 2 * k;
        const __m256i scale = _mm256_set_m128i(_mm_set1_epi16(sc[1]), _mm_set1_epi16(sc[0]));
        s = _mm256_add_epi32(s, Dot(u, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 128 * h + 32 * k)), scale));
      }
    }
    int32_t offset = 0;
    for (int g = 0; g < 16; ++g) offset += v.scales[g] * sums[16 * b + g];
    s = Less(s, 32 * offset);
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(_cvtsh_ss(v.d) * x.d[m * x.d_row + b]), acc);
  }
  return Sum(acc);
}

// Q2_K / Q3_K: for half n of a super-block and shift j, the 32 bytes of qs[32n ..] shifted by
// 2j hold groups 8n + 2j (bytes 0-15) and 8n + 2j + 1 (16-31); Q3_K adds 4 where bit 4n + j of
// hmask is set. `scale` is the int16 scale of group g, `shift` the sum taken out of lane 0.
template <bool kThree>
float RowQ23K(const uint8_t* w, const QuantActs& x, int64_t m) {
  const __m256i two = _mm256_set1_epi8(3), one = _mm256_set1_epi8(1);
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  __m256 acc = _mm256_setzero_ps();
  float min_total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* block = w + b * (kThree ? 110 : 84);
    const uint8_t* qs = kThree ? quant::ViewQ3K(block).qs : quant::ViewQ2K(block).qs;
    int16_t scale[16];
    int32_t taken = 0;
    if constexpr (kThree) {
      int8_t raw[16];
      quant::UnpackQ3KScales(quant::ViewQ3K(block).scales, raw);
      for (int g = 0; g < 16; ++g) scale[g] = static_cast<int16_t>(raw[g] - 32), taken += 4 * scale[g] * sums[16 * b + g];
    } else {
      for (int g = 0; g < 16; ++g) scale[g] = block[g] & 0xF, taken += (block[g] >> 4) * sums[16 * b + g];
    }
    const int8_t* q = x.q + m * x.q_row + 256 * b;
    const __m256i hmask = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block));
    __m256i s = _mm256_setzero_si256();
    for (int n = 0; n < 2; ++n) {
      const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs + 32 * n));
      for (int j = 0; j < 4; ++j) {
        __m256i u = _mm256_and_si256(_mm256_srli_epi16(bits, 2 * j), two);
        if constexpr (kThree) {
          u = _mm256_or_si256(u, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hmask, 4 * n + j), one), 2));
        }
        const int g = 8 * n + 2 * j;
        const __m256i sc = _mm256_set_m128i(_mm_set1_epi16(scale[g + 1]), _mm_set1_epi16(scale[g]));
        s = _mm256_add_epi32(s, Dot(u, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 128 * n + 32 * j)), sc));
      }
    }
    const float dx = x.d[m * x.d_row + b];
    if constexpr (kThree) {
      s = Less(s, taken);
    } else {
      min_total += _cvtsh_ss(quant::ViewQ2K(block).dmin) * dx * static_cast<float>(taken);
    }
    const uint16_t d = kThree ? quant::ViewQ3K(block).d : quant::ViewQ2K(block).d;
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(_cvtsh_ss(d) * dx), acc);
  }
  return Sum(acc) - min_total;
}

}  // namespace

void QuantGemvAvx2(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1) {
  PlainQuantGemv(a, acts, n0, n1,
                 {RowQ8_0, RowPairs<false, false>, RowPairs<true, false>, RowPairs<false, true>, RowPairs<true, true>, RowQ45K,
                  RowQ6K, RowQ23K<false>, RowQ23K<true>, RowMxfp4});
}

}  // namespace vt::cpu
