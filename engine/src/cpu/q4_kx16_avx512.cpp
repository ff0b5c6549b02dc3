// Decode of interleaved Q4_K weights (DType::kQ4_Kx16, vt/quant.h) with AVX-512 VNNI. As for
// q4_0x16: one 64-byte chunk holds four nibble bytes of each of 16 rows, its low nibbles
// columns of group 2p and its high nibbles the same columns of group 2p + 1, so vpdpbusd
// against four activation bytes broadcast adds one row's products to each int32 lane. The
// groups' sums are multiplied by their 16 rows' six-bit scales in int32 (exact: at most
// 63·15·127·256 per super-block), the mins by the activations' group sums with one vpdpwssd
// per pair of groups, and d and dmin are applied once per super-block: 16 outputs with no
// horizontal sum and no per-row unpacking of the twelve scale bytes, where the plain layout
// spent both per row (specs/quantized.md). Compiled with AVX-512 VNNI flags; chosen only where
// the CPU has them.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "cpu/interleaved_groups.h"
#include "vt/quant.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_* (bug 105593)

namespace vt::cpu {
namespace {

inline __m512i Broadcast4(const int8_t* q) {
  int32_t v;
  std::memcpy(&v, q, 4);
  return _mm512_set1_epi32(v);
}

// The 128 six-bit values packed at p (vt/quant.h) as bytes, to out[0, 128). The top bit pairs
// of values k and k + 32 share a byte at bits 0 and 2 (64 + k: 4 and 6), so each 256-bit half
// of the broadcast pairs shifts its words by its own count.
inline void Unpack6(const uint8_t* p, uint8_t* out) {
  const __m512i nib = _mm512_loadu_si512(p);
  const __m512i top = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 64)));
  const __m512i f = _mm512_set1_epi8(0xF), three = _mm512_set1_epi8(3);
  const __m512i shift = _mm512_inserti64x4(_mm512_setzero_si512(), _mm256_set1_epi16(2), 1);
  const __m512i top_lo = _mm512_and_si512(_mm512_srlv_epi16(top, shift), three);
  const __m512i top_hi = _mm512_and_si512(_mm512_srlv_epi16(top, _mm512_add_epi16(shift, _mm512_set1_epi16(4))), three);
  _mm512_store_si512(out, _mm512_or_si512(_mm512_and_si512(nib, f), _mm512_slli_epi16(top_lo, 4)));
  _mm512_store_si512(out + 64, _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(nib, 4), f), _mm512_slli_epi16(top_hi, 4)));
}

// Activation rows m0 .. m0 + kRows - 1 against the pair p of groups of 32 of super-block b
// (at sb): each row's sums of groups 2p and 2p + 1 times their scales added to isum, and
// their mins times the groups' activation sums to imin.
template <int kRows>
inline void Pair(const uint8_t* sb, const uint8_t* scales, const uint8_t* mins, const QuantActs& x, int64_t m0, int64_t b,
                 int p, __m512i* isum, __m512i* imin) {
  const __m512i low = _mm512_set1_epi8(0xF);
  __m512i even[kRows], odd[kRows];
  for (int i = 0; i < kRows; ++i) even[i] = odd[i] = _mm512_setzero_si512();
  for (int h = 0; h < 2; ++h) {  // chunks 4h .. 4h + 3: columns 16h .. 16h + 15 of each group
    __m512i lo[4], hi[4];
    for (int c = 0; c < 4; ++c) {
      const __m512i v = _mm512_loadu_si512(sb + 256 + 512 * p + 64 * (4 * h + c));
      lo[c] = _mm512_and_si512(v, low);
      hi[c] = _mm512_and_si512(_mm512_srli_epi16(v, 4), low);
    }
    for (int i = 0; i < kRows; ++i) {
      const int8_t* q = x.q + (m0 + i) * x.q_row + 256 * b + 64 * p + 16 * h;
      for (int c = 0; c < 4; ++c) {
        even[i] = _mm512_dpbusd_epi32(even[i], lo[c], Broadcast4(q + 4 * c));
        odd[i] = _mm512_dpbusd_epi32(odd[i], hi[c], Broadcast4(q + 32 + 4 * c));
      }
    }
  }
  const __m512i s_even = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(scales + 32 * p)));
  const __m512i s_odd = _mm512_cvtepu8_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(scales + 32 * p + 16)));
  const __m512i m_pair = _mm512_cvtepu8_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(mins + 32 * p)));
  for (int i = 0; i < kRows; ++i) {
    isum[i] = _mm512_add_epi32(isum[i], _mm512_add_epi32(_mm512_mullo_epi32(even[i], s_even), _mm512_mullo_epi32(odd[i], s_odd)));
    int32_t sums;  // the activations' int16 sums of groups 2p and 2p + 1
    std::memcpy(&sums, x.sums + (m0 + i) * x.sums_row + 2 * (b * x.sums_per_block + 2 * p), 4);
    imin[i] = _mm512_dpwssd_epi32(imin[i], m_pair, _mm512_set1_epi32(sums));
  }
}

// Activation rows m0 .. m0 + kRows - 1 against the group of 16 weight rows at g: out[i ·
// out_stride + r] for the rows r that `mask` keeps.
template <int kRows>
void Group(const uint8_t* g, const QuantActs& x, int64_t m0, float* out, size_t out_stride, __mmask16 mask) {
  __m512 acc[kRows];
  for (int i = 0; i < kRows; ++i) acc[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* sb = g + b * static_cast<int64_t>(kInterleavedSuperBlockBytes);
    alignas(64) uint8_t scales[128], mins[128];
    Unpack6(sb + 64, scales);
    Unpack6(sb + 160, mins);
    __m512i isum[kRows], imin[kRows];
    for (int i = 0; i < kRows; ++i) isum[i] = imin[i] = _mm512_setzero_si512();
    for (int p = 0; p < 4; ++p) Pair<kRows>(sb, scales, mins, x, m0, b, p, isum, imin);
    const __m512 d = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb)));
    const __m512 dmin = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sb + 32)));
    for (int i = 0; i < kRows; ++i) {
      const __m512 dx = _mm512_set1_ps(x.d[(m0 + i) * x.d_row + b]);
      acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[i]), _mm512_mul_ps(d, dx), acc[i]);
      acc[i] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(imin[i]), _mm512_mul_ps(dmin, dx), acc[i]);
    }
  }
  for (int i = 0; i < kRows; ++i) _mm512_mask_storeu_ps(out + i * out_stride, mask, acc[i]);
}

}  // namespace

void QuantGemvQ4_Kx16(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1) {
  const QuantActs x = ViewQuantActs(DType::kQ4_Kx16, a.M, a.K, acts);
  ForEachGroupTile(a, n0, n1, [&](auto rows, const uint8_t* g, int64_t m0, float* out, int count) {
    const auto mask = static_cast<__mmask16>((1u << count) - 1);
    Group<decltype(rows)::value>(g, x, m0, out, a.out_stride, mask);
  });
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
