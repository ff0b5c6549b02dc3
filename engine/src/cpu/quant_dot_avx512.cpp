// Decode (M <= kGemvMaxRows) of quantized weights with integer dot products, as ggml's
// q8_0 / q8_K dot products do. The activation rows are rounded once per Matmul (before the op
// is split among threads) into the layout of cpu/quant_acts.h: q8_0 for Q8_0, MXFP4, Q4_0 and Q5_0
// (scale amax/127 kept as f16, values rounded to nearest even), q8_K for the K-quants (whose
// dot products are in cpu/quant_kdot_avx512.cpp). Q8_0: each block's 32 products summed
// exactly in int32 by vpdpwssd over sign-extended 16-bit pairs; Q4_0 / Q5_0 / MXFP4: vpdpbusd of
// their unsigned values (MXFP4's looked up), two blocks per vector; then scaled by f16(dw)·f16(dx) in f32 into 16
// float lanes reduced once per row. Weights are read once at their block size and unpacked
// once for up to four activation rows. Q2_K, Q3_K, Q4_1 and Q5_1 go to the AVX2 code over the
// portable rounding (cpu/quant_dot_avx2.cpp). Compiled with AVX-512 VNNI flags and chosen only
// where the CPU has them.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/quant_blocks.h"
#include "cpu/matmul_kernels.h"
#include "cpu/quant_acts.h"

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

// Activation rows m0 .. m0 + kRows - 1 against one Q8_0 weight row: each block's 32
// weights sign-extended to int16 once, vpdpwssd with each row's.
template <int kRows>
void TileQ8_0(const uint8_t* row, const QuantActs& x, int64_t m0, float* out, size_t out_stride) {
  __m512 acc[kRows];
  for (int i = 0; i < kRows; ++i) acc[i] = _mm512_setzero_ps();
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* block = row + b * 34;
    const __m512i w = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2)));
    const float dw = _cvtsh_ss(quant::Half(block));
    for (int i = 0; i < kRows; ++i) {
      const int64_t m = m0 + i;
      __m512i x16 = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.q + m * x.q_row + 32 * b)));
      __m512i sums = _mm512_dpwssd_epi32(_mm512_setzero_si512(), w, x16);
      acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), _mm512_set1_ps(dw * x.d[m * x.d_row + b]), acc[i]);
    }
  }
  for (int i = 0; i < kRows; ++i) out[i * out_stride] = _mm512_reduce_add_ps(acc[i]);
}

// The same for Q4_0, Q5_0 and MXFP4, two blocks per vector (cpu/quant_acts.h's pairs): their
// values as unsigned bytes (Q5_0: the nibble plus 16 for its bit of qh; MXFP4: the doubled
// E2M1 value plus 12, looked up with vpshufb), vpdpbusd with the activations starting from
// -8·Σx (Q5_0: -16·Σx, MXFP4: -12·Σx) so each block sums Σ(q - 8)·x exactly, each lane
// scaled by its block's dw·dx (MXFP4's dw: E8M0Half of its scale byte).
// E8M0Half of every scale byte: two loads per pair, where the bit arithmetic (a branch for
// the subnormal scales) was a tenth of an MXFP4 decode's profile.
const struct E8M0HalfTable {
  float v[256];
  E8M0HalfTable() {
    for (int e = 0; e < 256; ++e) v[e] = quant::E8M0Half(static_cast<uint8_t>(e));
  }
  float operator[](uint8_t e) const { return v[e]; }
} kE8M0Half;

// Pair p of a weight row (block b = 2p, and b + 1 when `two`): its 64 values as unsigned
// bytes and each lane's block scale.
template <DType T>
inline void PairWeights(const uint8_t* block, bool two, __m512i* w_out, __m512* dw_out) {
  constexpr bool kFive = T == DType::kQ5_0, kMx = T == DType::kMXFP4;
  constexpr int64_t kBytes = kFive ? 22 : kMx ? 17 : 18, kQs = kFive ? 6 : kMx ? 1 : 2;
  const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + kQs));
  const __m128i v1 = two ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + kBytes + kQs)) : _mm_setzero_si128();
  const __m256i v = _mm256_set_m128i(v1, v0);
  __m512i w = _mm512_and_si512(_mm512_inserti64x4(_mm512_castsi256_si512(v), _mm256_srli_epi16(v, 4), 1), _mm512_set1_epi8(0xF));
  if constexpr (kFive) {  // bit e of qh is element e's: bytes 0-15 and 32-47 are block b's
    uint32_t h0, h1 = 0;
    std::memcpy(&h0, block + 2, 4);
    if (two) std::memcpy(&h1, block + kBytes + 2, 4);
    const uint64_t bits = (h0 & 0xFFFFu) | uint64_t{h1 & 0xFFFFu} << 16 | uint64_t{h0 >> 16} << 32 | uint64_t{h1 >> 16} << 48;
    w = _mm512_mask_add_epi8(w, _cvtu64_mask64(bits), w, _mm512_set1_epi8(16));
  }
  if constexpr (kMx) {  // kvalues_mxfp4 + 12, in every 128-bit lane
    w = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_setr_epi8(12, 13, 14, 15, 16, 18, 20, 24, 12, 11, 10, 9, 8, 6, 4, 0)), w);
  }
  // The two scales converted together, then spread: lanes 0-3 and 8-11 are block b's.
  __m128 scales;
  if constexpr (kMx) {
    scales = _mm_setr_ps(kE8M0Half[block[0]], two ? kE8M0Half[block[kBytes]] : 0.0f, 0.0f, 0.0f);
  } else {
    scales = _mm_cvtph_ps(_mm_cvtsi32_si128(static_cast<int>(quant::Half(block) | (two ? uint32_t{quant::Half(block + kBytes)} << 16 : 0u))));
  }
  *w_out = w;
  *dw_out = _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1), _mm512_castps128_ps512(scales));
}

// One pair's products of weights w (scales dw) with activation row m, into acc.
inline __m512 PairDot(__m512i w, __m512 dw, const QuantActs& x, int64_t m, int64_t p, __m512 acc) {
  __m512i start = _mm512_loadu_si512(x.sums + m * x.sums_row + 64 * p);
  __m512i sums = _mm512_dpbusd_epi32(start, w, _mm512_loadu_si512(x.q + m * x.q_row + 64 * p));
  __m512 scale = _mm512_mul_ps(dw, _mm512_loadu_ps(x.d + m * x.d_row + 16 * p));
  return _mm512_fmadd_ps(_mm512_cvtepi32_ps(sums), scale, acc);
}

// Pair p of a weight row into every activation row's accumulator.
template <DType T, int kRows>
inline void PairInto(const uint8_t* block, bool two, const QuantActs& x, int64_t m0, int64_t p, __m512* acc) {
  __m512i w;
  __m512 dw;
  PairWeights<T>(block, two, &w, &dw);
  for (int i = 0; i < kRows; ++i) acc[i] = PairDot(w, dw, x, m0 + i, p, acc[i]);
}

template <DType T, int kRows>
void TilePairs(const uint8_t* row, const QuantActs& x, int64_t m0, float* out, size_t out_stride) {
  constexpr int64_t kBytes = T == DType::kQ5_0 ? 22 : T == DType::kMXFP4 ? 17 : 18;
  __m512 acc[kRows];
  for (int i = 0; i < kRows; ++i) acc[i] = _mm512_setzero_ps();
  int64_t b = 0;
#pragma GCC unroll 2
  for (; b + 1 < x.blocks; b += 2) PairInto<T, kRows>(row + b * kBytes, true, x, m0, b / 2, acc);
  if (b < x.blocks) PairInto<T, kRows>(row + b * kBytes, false, x, m0, b / 2, acc);  // an odd last block
  for (int i = 0; i < kRows; ++i) out[i * out_stride] = _mm512_reduce_add_ps(acc[i]);
}

template <DType T, int kRows>
void Tile(const uint8_t* row, const QuantActs& x, int64_t m0, float* out, size_t out_stride) {
  if constexpr (T == DType::kQ8_0) TileQ8_0<kRows>(row, x, m0, out, out_stride);
  else TilePairs<T, kRows>(row, x, m0, out, out_stride);
}

template <DType T>
void Rows(const uint8_t* w, size_t w_stride, int64_t count, const QuantActs& x, int64_t m0, int rows, float* out,
          size_t out_stride) {
  WithRowCount(rows, [&](auto r) {
    for (int64_t n = 0; n < count; ++n) Tile<T, decltype(r)::value>(w + n * w_stride, x, m0, out + n, out_stride);
  });
}

// A row's q8_0 blocks (q, d) rearranged into pairs (cpu/quant_acts.h), each block's sums
// starting from -offset·Σx.
void Pair(const int8_t* q, const float* d, int64_t blocks, int32_t offset, int8_t* pq, float* pd, int32_t* start) {
  for (int64_t p = 0; p < (blocks + 1) / 2; ++p) {
    for (int h = 0; h < 2; ++h) {  // h: which block of the pair
      const int64_t b = 2 * p + h;
      int32_t sum = 0;
      for (int j = 0; j < 32; ++j) {
        const int8_t v = b < blocks ? q[32 * b + j] : 0;
        pq[64 * p + 16 * h + (j < 16 ? j : 16 + j)] = v;
        sum += v;
      }
      for (int lane = 0; lane < 4; ++lane) {
        pd[16 * p + 4 * h + lane] = pd[16 * p + 8 + 4 * h + lane] = b < blocks ? d[b] : 0.0f;
        start[16 * p + 4 * h + lane] = start[16 * p + 8 + 4 * h + lane] = 0;
      }
      start[16 * p + 4 * h] = -offset * sum;
    }
  }
}

// One activation row as q8_K (ggml's quantize_row_q8_K): per 256 values, v the first of
// largest magnitude, iscale = -127 / v, q = round-to-nearest(iscale·x) capped at 127, the
// scale 1 / iscale, and the sums of q per `per` values (16 or 32). `permuted`: groups of 32
// stored in the order 0, 2, 1, 3, 4, 6, 5, 7 (cpu/quant_acts.h); the sums stay in order.
void QuantizeQ8_K(const float* x, int64_t K, bool permuted, int per, int8_t* q, float* d, int16_t* sums) {
  static constexpr int kSlot[8] = {0, 2, 1, 3, 4, 6, 5, 7};
  for (int64_t b = 0; b < K / 256; ++b) {
    const float* xb = x + 256 * b;
    __m512 amax_v = _mm512_setzero_ps();
    for (int j = 0; j < 16; ++j) amax_v = _mm512_max_ps(amax_v, _mm512_abs_ps(_mm512_loadu_ps(xb + 16 * j)));
    const float amax = _mm512_reduce_max_ps(amax_v);
    int first = 0;
    for (int j = 0; j < 16; ++j) {
      __mmask16 hit = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_loadu_ps(xb + 16 * j)), _mm512_set1_ps(amax), _CMP_EQ_OQ);
      if (hit) {
        first = 16 * j + __builtin_ctz(hit);
        break;
      }
    }
    const float iscale = amax != 0.0f ? -127.0f / xb[first] : 0.0f;
    int16_t* s = sums + b * (256 / per);
    for (int g = 0; g < 256 / per; ++g) s[g] = 0;
    for (int j = 0; j < 16; ++j) {
      __m512i v = _mm512_min_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(xb + 16 * j), _mm512_set1_ps(iscale))),
                                   _mm512_set1_epi32(127));
      const int slot = permuted ? kSlot[j / 2] : j / 2;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 256 * b + 32 * slot + 16 * (j % 2)), _mm512_cvtsepi32_epi8(v));
      s[16 * j / per] = static_cast<int16_t>(s[16 * j / per] + _mm512_reduce_add_epi32(v));
    }
    d[b] = amax != 0.0f ? 1.0f / iscale : 0.0f;
  }
}

bool ByAvx2(DType t) { return t == DType::kQ2_K || t == DType::kQ3_K || t == DType::kQ4_1 || t == DType::kQ5_1; }

}  // namespace

bool QuantizeActivationsAvx512(const GemmArgs& a, std::vector<uint8_t>* acts) {
  if (a.M > (IsInterleaved(a.wtype) ? kInterleavedGemvMaxRows : kGemvMaxRows)) return false;
  // Q2_K, Q3_K, Q4_1 and Q5_1 go through the AVX2 code, over the portable rounding's layout.
  if (ByAvx2(a.wtype)) return QuantizeActivationsPortable(a, acts);
  const bool k_quant = a.wtype == DType::kQ4_K || a.wtype == DType::kQ5_K || a.wtype == DType::kQ6_K || a.wtype == DType::kQ4_Kx16;
  if (!k_quant && a.wtype != DType::kQ8_0 && a.wtype != DType::kQ4_0 && a.wtype != DType::kQ5_0 &&
      a.wtype != DType::kQ4_0x16 && a.wtype != DType::kMXFP4 && a.wtype != DType::kMXFP4x16) {
    return false;
  }
  const QuantActsLayout l = LayoutOfQuantActs(a.wtype, a.M, a.K);
  if (a.K % l.block != 0) return false;
  acts->resize(l.bytes);
  int8_t* q = reinterpret_cast<int8_t*>(acts->data());
  float* d = reinterpret_cast<float*>(acts->data() + l.d_offset);
  const int64_t blocks = a.K / l.block;
  for (int64_t m = 0; m < a.M; ++m) {
    const float* row = a.x + m * a.x_stride;
    if (a.wtype == DType::kQ8_0) {
      QuantizeQ8_0(row, a.K, q + m * l.q_row, d + m * l.d_row);
    } else if (a.wtype == DType::kQ4_0x16 || a.wtype == DType::kMXFP4x16) {
      QuantizeQ8_0(row, a.K, q + m * l.q_row, d + m * l.d_row);
      const int32_t offset = a.wtype == DType::kQ4_0x16 ? 8 : 12;  // the unsigned values' offset
      auto* start = reinterpret_cast<int32_t*>(acts->data() + l.sums_offset + m * l.sums_row);
      for (int64_t b = 0; b < blocks; ++b) {
        int32_t sum = 0;
        for (int j = 0; j < 32; ++j) sum += q[m * l.q_row + 32 * b + j];
        start[b] = -offset * sum;
      }
    } else if (a.wtype == DType::kQ4_0 || a.wtype == DType::kQ5_0 || a.wtype == DType::kMXFP4) {
      thread_local std::vector<int8_t> plain_q;
      thread_local std::vector<float> plain_d;
      plain_q.resize(static_cast<size_t>(a.K));
      plain_d.resize(static_cast<size_t>(blocks));
      QuantizeQ8_0(row, a.K, plain_q.data(), plain_d.data());
      Pair(plain_q.data(), plain_d.data(), blocks, a.wtype == DType::kQ4_0 ? 8 : a.wtype == DType::kMXFP4 ? 12 : 16, q + m * l.q_row, d + m * l.d_row,
                  reinterpret_cast<int32_t*>(acts->data() + l.sums_offset + m * l.sums_row));
    } else {
      const bool permuted = a.wtype == DType::kQ4_K || a.wtype == DType::kQ5_K;
      QuantizeQ8_K(row, a.K, permuted, static_cast<int>(256 / l.sums_per_block), q + m * l.q_row,
                   d + m * l.d_row, reinterpret_cast<int16_t*>(acts->data() + l.sums_offset + m * l.sums_row));
    }
  }
  return true;
}

void QuantGemvAvx512(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1) {
  if (ByAvx2(a.wtype)) {
    QuantGemvAvx2(a, acts, n0, n1);
    return;
  }
  if (a.wtype == DType::kQ4_0x16) {
    QuantGemvQ4_0x16(a, acts, n0, n1);
    return;
  }
  if (a.wtype == DType::kMXFP4x16) {
    QuantGemvMXFP4x16(a, acts, n0, n1);
    return;
  }
  if (a.wtype == DType::kQ4_Kx16) {
    QuantGemvQ4_Kx16(a, acts, n0, n1);
    return;
  }
  const QuantActs x = ViewQuantActs(a.wtype, a.M, a.K, acts);
  // Sixteen weight rows at a time (at most 55 KB of Q8_0 at K = 5632) stay in cache while each
  // group of four activation rows passes over them.
  constexpr int64_t kRowBlock = 16;
  for (int64_t nb = n0; nb < n1; nb += kRowBlock) {
    const int64_t count = std::min(kRowBlock, n1 - nb);
    const uint8_t* w = reinterpret_cast<const uint8_t*>(a.w + nb * a.w_stride);
    for (int64_t m0 = 0; m0 < a.M; m0 += 4) {
      const int rows = static_cast<int>(std::min<int64_t>(4, a.M - m0));
      float* out = a.out + m0 * a.out_stride + nb;
      switch (a.wtype) {
        case DType::kQ8_0: Rows<DType::kQ8_0>(w, a.w_stride, count, x, m0, rows, out, a.out_stride); break;
        case DType::kQ4_0: Rows<DType::kQ4_0>(w, a.w_stride, count, x, m0, rows, out, a.out_stride); break;
        case DType::kQ5_0: Rows<DType::kQ5_0>(w, a.w_stride, count, x, m0, rows, out, a.out_stride); break;
        case DType::kMXFP4: Rows<DType::kMXFP4>(w, a.w_stride, count, x, m0, rows, out, a.out_stride); break;
        default: KQuantRowsAvx512(a.wtype, w, a.w_stride, count, x, m0, rows, out, a.out_stride); break;
      }
    }
  }
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
