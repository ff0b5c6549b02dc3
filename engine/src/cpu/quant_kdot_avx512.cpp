// Decode dot products of Q4_K, Q5_K and Q6_K weight rows with q8_K activations (AVX-512 VNNI),
// 64 weights per instruction: vpmaddubsw of the unsigned weight values with the int8
// activations (adjacent pairs summed in int16, which cannot saturate: at most 2·63·128), then
// vpdpwssd with the sub-block scales as int16 into int32, exact per super-block as ggml's sums
// are. A super-block is unpacked once for up to four activation rows (a batch of decodes),
// each with accumulators of its own, so each row sums in the same order whatever the batch.
#include <immintrin.h>

#include <cstring>

#include "core/quant_blocks.h"
#include "cpu/quant_acts.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (bug 105593)

namespace vt::cpu {
namespace {

// Word indices for vpermw (and per-word shift counts for vpsrlvw).
struct WordIndex {
  alignas(64) int16_t v[32];
};
constexpr WordIndex Pair(int a, int b) {
  WordIndex r{};
  for (int i = 0; i < 32; ++i) r.v[i] = static_cast<int16_t>(i < 16 ? a : b);
  return r;
}
constexpr WordIndex Quad(int base) {
  WordIndex r{};
  for (int i = 0; i < 32; ++i) r.v[i] = static_cast<int16_t>(base + i / 8);
  return r;
}
// Q4_K/Q5_K: vector j holds groups of 32 (a, b) = (0, 2), (1, 3), (4, 6), (5, 7): the
// scale of each output word, and the bit of qh that adds 16 to its values (Q5_K). Q6_K's
// two-bit shifts of qh are the pairs (0, 2) and (4, 6) too.
constexpr WordIndex kPairs[4] = {Pair(0, 2), Pair(1, 3), Pair(4, 6), Pair(5, 7)};
// Q6_K: vector 2h (+1) holds values 0-63 (64-127) of half h, four groups of 16 in order.
constexpr WordIndex kQuads[4] = {Quad(0), Quad(4), Quad(8), Quad(12)};

inline __m512i Words(const WordIndex& w) { return _mm512_load_si512(w.v); }

// One super-block ready for the dot products: four vectors of 64 unsigned values in the
// activations' order, the int16 scale of every output word of vpmaddubsw, and the scalars.
struct Unpacked {
  __m512i w[4], s[4];
  __m128i mins;      // Q4_K/Q5_K: the eight mins as int16
  __m256i scales16;  // Q6_K: the sixteen scales as int16
  float d, dmin;
};

template <bool kFive>
inline void UnpackQ45(const uint8_t* block, Unpacked* u) {
  const quant::QKView v = quant::ViewQK(block, kFive);
  // ggml's unpacking of the twelve bytes: bytes 0-7 the six-bit scales, 8-15 the mins.
  uint32_t t[4];
  std::memcpy(t, v.scales, 12);
  const uint32_t m1 = 0x3f3f3f3f, m2 = 0x0f0f0f0f, m3 = 0x03030303;
  t[3] = ((t[2] >> 4) & m2) | (((t[1] >> 6) & m3) << 4);
  const uint32_t upper = t[1] & m1;
  t[1] = (t[2] & m2) | (((t[0] >> 6) & m3) << 4);
  t[2] = upper;
  t[0] &= m1;
  const __m128i both = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t));
  const __m512i scales = _mm512_zextsi128_si512(_mm_cvtepu8_epi16(both));
  u->mins = _mm_cvtepu8_epi16(_mm_srli_si128(both, 8));
  const __m512i low = _mm512_set1_epi8(0xF);
  const __m512i q0 = _mm512_loadu_si512(v.qs), q1 = _mm512_loadu_si512(v.qs + 64);
  u->w[0] = _mm512_and_si512(q0, low);
  u->w[1] = _mm512_and_si512(_mm512_srli_epi16(q0, 4), low);
  u->w[2] = _mm512_and_si512(q1, low);
  u->w[3] = _mm512_and_si512(_mm512_srli_epi16(q1, 4), low);
  if constexpr (kFive) {
    const __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.qh)));
    const __m512i one = _mm512_set1_epi8(1);
    for (int j = 0; j < 4; ++j) {
      __m512i bit = _mm512_and_si512(_mm512_srlv_epi16(qh, Words(kPairs[j])), one);
      u->w[j] = _mm512_or_si512(u->w[j], _mm512_slli_epi16(bit, 4));
    }
  }
  for (int j = 0; j < 4; ++j) u->s[j] = _mm512_permutexvar_epi16(Words(kPairs[j]), scales);
  u->d = _cvtsh_ss(v.d);
  u->dmin = _cvtsh_ss(v.dmin);
}

inline void UnpackQ6(const uint8_t* block, Unpacked* u) {
  const quant::Q6KView v = quant::ViewQ6K(block);
  u->scales16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(v.scales)));
  const __m512i scales = _mm512_zextsi256_si512(u->scales16);
  const __m512i low = _mm512_set1_epi8(0xF), two = _mm512_set1_epi8(3);
  for (int h = 0; h < 2; ++h) {
    const __m512i ql = _mm512_loadu_si512(v.ql + 64 * h);
    const __m512i qh = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.qh + 32 * h)));
    __m512i top_lo = _mm512_and_si512(_mm512_srlv_epi16(qh, Words(kPairs[0])), two);
    __m512i top_hi = _mm512_and_si512(_mm512_srlv_epi16(qh, Words(kPairs[2])), two);
    u->w[2 * h] = _mm512_or_si512(_mm512_and_si512(ql, low), _mm512_slli_epi16(top_lo, 4));
    u->w[2 * h + 1] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(ql, 4), low), _mm512_slli_epi16(top_hi, 4));
    u->s[2 * h] = _mm512_permutexvar_epi16(Words(kQuads[2 * h]), scales);
    u->s[2 * h + 1] = _mm512_permutexvar_epi16(Words(kQuads[2 * h + 1]), scales);
  }
  u->d = _cvtsh_ss(v.d);
  u->dmin = 0;
}

template <DType T, int kRows>
void Tile(const uint8_t* row, const QuantActs& x, int64_t m0, float* out, size_t out_stride) {
  constexpr size_t kBytes = T == DType::kQ4_K ? 144 : T == DType::kQ5_K ? 176 : 210;
  __m512 acc[kRows], mins[kRows];
  for (int i = 0; i < kRows; ++i) acc[i] = mins[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < x.blocks; ++b) {
    Unpacked u;
    if constexpr (T == DType::kQ6_K) UnpackQ6(row + b * kBytes, &u);
    else UnpackQ45<T == DType::kQ5_K>(row + b * kBytes, &u);
    for (int i = 0; i < kRows; ++i) {
      const int64_t m = m0 + i;
      const int8_t* q = x.q + m * x.q_row + 256 * b;
      __m512i s = _mm512_setzero_si512();
      for (int j = 0; j < 4; ++j) s = _mm512_dpwssd_epi32(s, _mm512_maddubs_epi16(u.w[j], _mm512_loadu_si512(q + 64 * j)), u.s[j]);
      const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row) + b * x.sums_per_block;
      const float dx = x.d[m * x.d_row + b];
      if constexpr (T == DType::kQ6_K) {  // the -32 offset of every value, per group of 16
        __m256i offset = _mm256_madd_epi16(u.scales16, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums)));
        s = _mm512_sub_epi32(s, _mm512_zextsi256_si512(_mm256_slli_epi32(offset, 5)));
      } else {
        __m128i m4 = _mm_madd_epi16(u.mins, _mm_loadu_si128(reinterpret_cast<const __m128i*>(sums)));
        mins[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_zextsi128_si512(m4)), _mm512_set1_ps(u.dmin * dx), mins[i]);
      }
      acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_set1_ps(u.d * dx), acc[i]);
    }
  }
  for (int i = 0; i < kRows; ++i) out[i * out_stride] = _mm512_reduce_add_ps(_mm512_sub_ps(acc[i], mins[i]));
}

template <DType T>
void Rows(const uint8_t* w, size_t w_stride, int64_t count, const QuantActs& x, int64_t m0, int rows, float* out,
          size_t out_stride) {
  WithRowCount(rows, [&](auto r) {
    for (int64_t n = 0; n < count; ++n) Tile<T, decltype(r)::value>(w + n * w_stride, x, m0, out + n, out_stride);
  });
}

}  // namespace

void KQuantRowsAvx512(DType wtype, const uint8_t* w, size_t w_stride, int64_t count, const QuantActs& x, int64_t m0,
                      int rows, float* out, size_t out_stride) {
  if (wtype == DType::kQ4_K) Rows<DType::kQ4_K>(w, w_stride, count, x, m0, rows, out, out_stride);
  else if (wtype == DType::kQ5_K) Rows<DType::kQ5_K>(w, w_stride, count, x, m0, rows, out, out_stride);
  else Rows<DType::kQ6_K>(w, w_stride, count, x, m0, rows, out, out_stride);
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
