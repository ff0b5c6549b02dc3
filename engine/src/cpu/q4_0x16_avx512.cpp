// Decode of interleaved Q4_0 and MXFP4 weights (DType::kQ4_0x16, kMXFP4x16, vt/quant.h) with
// AVX-512 VNNI (MXFP4: each nibble looked up as its value plus 12, sums from -12·Σx). One
// 64-byte chunk holds four nibble bytes of each of 16 rows: its low nibbles are columns
// 4c..4c+3 of every row, its high nibbles 16+4c..16+4c+3, so vpdpbusd against those four
// activation bytes broadcast adds one row's products to each int32 lane. A block's 16 sums
// start from -8·Σx (the activations' layout below), are exact in int32, and are scaled by
// the 16 rows' f16 scales (one conversion) times the activation's: 16 outputs with no
// horizontal sum, where the plain layout spent two scale conversions and spreads per 64
// weights and a reduction per row (specs/quantized.md). Compiled with AVX-512 VNNI flags;
// chosen only where the CPU has them.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

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

// The 16 E8M0 scale bytes at e as E8M0Half floats, 2^(e - 128): (e - 1) << 23, subnormal
// (0x00200000 << e) for e < 2, as quant::E8M0Half.
inline __m512 E8M0Half16(const uint8_t* e) {
  const __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(e)));
  const __m512i normal = _mm512_slli_epi32(_mm512_sub_epi32(v, _mm512_set1_epi32(1)), 23);
  const __m512i tiny = _mm512_sllv_epi32(_mm512_set1_epi32(0x00200000), v);
  return _mm512_castsi512_ps(_mm512_mask_blend_epi32(_mm512_cmplt_epu32_mask(v, _mm512_set1_epi32(2)), normal, tiny));
}

// Activation rows m0 .. m0 + kRows - 1 against the group of 16 weight rows at g: out[i ·
// out_stride + r] for the rows r that `mask` keeps. kMx: MXFP4 (vt/quant.h's kMXFP4x16): one
// scale byte per row, each nibble looked up as its doubled E2M1 value plus 12.
template <bool kMx, int kRows>
void Group(const uint8_t* g, const QuantActs& x, int64_t m0, float* out, size_t out_stride, __mmask16 mask) {
  constexpr int64_t kBlockBytes = kMx ? kInterleavedMxfp4BlockBytes : kInterleavedBlockBytes, kScales = kMx ? 16 : 32;
  __m512 acc[kRows];
  for (int i = 0; i < kRows; ++i) acc[i] = _mm512_setzero_ps();
  const __m512i low = _mm512_set1_epi8(0xF);
  const __m512i values = _mm512_broadcast_i32x4(_mm_setr_epi8(12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0));
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* block = g + b * kBlockBytes;
    const __m512 dw = kMx ? E8M0Half16(block) : _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)));
    __m512i lo[4], hi[4];
    for (int c = 0; c < 4; ++c) {
      const __m512i v = _mm512_loadu_si512(block + kScales + 64 * c);
      lo[c] = _mm512_and_si512(v, low);
      hi[c] = _mm512_and_si512(_mm512_srli_epi16(v, 4), low);
      if constexpr (kMx) lo[c] = _mm512_shuffle_epi8(values, lo[c]), hi[c] = _mm512_shuffle_epi8(values, hi[c]);
    }
    for (int i = 0; i < kRows; ++i) {
      const int64_t m = m0 + i;
      const int8_t* q = x.q + m * x.q_row + 32 * b;
      int32_t start;
      std::memcpy(&start, x.sums + m * x.sums_row + 4 * b, 4);
      // Two chains of four, so each block's sums wait on four multiply-adds, not eight.
      __m512i s0 = _mm512_set1_epi32(start), s1 = _mm512_setzero_si512();
      for (int c = 0; c < 4; ++c) {
        s0 = _mm512_dpbusd_epi32(s0, lo[c], Broadcast4(q + 4 * c));
        s1 = _mm512_dpbusd_epi32(s1, hi[c], Broadcast4(q + 16 + 4 * c));
      }
      const __m512 scale = _mm512_mul_ps(dw, _mm512_set1_ps(x.d[m * x.d_row + b]));
      acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(s0, s1)), scale, acc[i]);
    }
  }
  for (int i = 0; i < kRows; ++i) _mm512_mask_storeu_ps(out + i * out_stride, mask, acc[i]);
}

}  // namespace

const uint8_t* GatherGroup(const GemmArgs& a, int64_t n0, int64_t n1) {
  thread_local std::vector<uint8_t> plain, group;
  plain.assign(kInterleavedRows * a.w_stride, 0);
  group.resize(plain.size());
  PlainRowsOf(a.wtype, a.w, a.N, a.K, n0, n1, plain.data());
  Interleave(PlainOf(a.wtype), plain.data(), group.data(), kInterleavedRows, a.K);
  return group.data();
}

void QuantGemvQ4_0x16(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1) {
  const QuantActs x = ViewQuantActs(DType::kQ4_0x16, a.M, a.K, acts);
  ForEachGroupTile(a, n0, n1, [&](auto rows, const uint8_t* g, int64_t m0, float* out, int count) {
    const auto mask = static_cast<__mmask16>((1u << count) - 1);
    Group<false, decltype(rows)::value>(g, x, m0, out, a.out_stride, mask);
  });
}

void QuantGemvMXFP4x16(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1) {
  const QuantActs x = ViewQuantActs(DType::kMXFP4x16, a.M, a.K, acts);
  ForEachGroupTile(a, n0, n1, [&](auto rows, const uint8_t* g, int64_t m0, float* out, int count) {
    const auto mask = static_cast<__mmask16>((1u << count) - 1);
    Group<true, decltype(rows)::value>(g, x, m0, out, a.out_stride, mask);
  });
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
