// The q8 decode in plain C++ (the generic set's) and the activation rounding that the generic
// and AVX2 sets share: each activation row rounded as ggml's quantize_row_q8_0 / q8_K round
// it, into cpu/quant_acts.h's plain layout, and each weight block's products with it summed
// exactly in int32, then scaled in f32 as ggml's dot products scale them.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/quant_blocks.h"
#include "cpu/matmul_kernels.h"
#include "cpu/quant_acts.h"

namespace vt::cpu {
namespace {

// q8_0: scale amax/127 kept as f16, values rounded to nearest even; the sum of each block;
// q8_1's s = f16(scale·sum), the scale before its rounding, as ggml's quantize_row_q8_1.
void RoundQ8_0(const float* x, int64_t K, int8_t* q, float* d, int16_t* sums, float* s) {
  for (int64_t b = 0; b < K / 32; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[32 * b + j]));
    const float scale = amax / 127.0f, inv = scale != 0.0f ? 1.0f / scale : 0.0f;
    d[b] = F16ToF32(F32ToF16(scale));
    int sum = 0;
    for (int j = 0; j < 32; ++j) {
      const int v = static_cast<int>(std::nearbyint(x[32 * b + j] * inv));
      q[32 * b + j] = static_cast<int8_t>(v);
      sum += v;
    }
    if (sums) sums[b] = static_cast<int16_t>(sum);
    if (s) s[b] = F16ToF32(F32ToF16(scale * static_cast<float>(sum)));
  }
}

// q8_K: per 256, v the first value of largest magnitude, iscale = -127 / v, values
// round-to-nearest(iscale·x) capped at 127, scale 1 / iscale; the sums per `per` values.
void RoundQ8_K(const float* x, int64_t K, int per, int8_t* q, float* d, int16_t* sums) {
  for (int64_t b = 0; b < K / 256; ++b) {
    const float* xb = x + 256 * b;
    float amax = 0, max = 0;
    for (int j = 0; j < 256; ++j) {
      if (std::fabs(xb[j]) > amax) amax = std::fabs(xb[j]), max = xb[j];
    }
    const float iscale = amax != 0.0f ? -127.0f / max : 0.0f;
    for (int g = 0; g < 256 / per; ++g) {
      int sum = 0;
      for (int j = per * g; j < per * (g + 1); ++j) {
        const int v = std::min(127, static_cast<int>(std::nearbyint(iscale * xb[j])));
        q[256 * b + j] = static_cast<int8_t>(v);
        sum += v;
      }
      sums[b * (256 / per) + g] = static_cast<int16_t>(sum);
    }
    d[b] = amax != 0.0f ? 1.0f / iscale : 0.0f;
  }
}

// A super-block's share as ggml's K-quant dot products scale it: d·dx·sumi − dmin·dx·mins.
float WithMins(uint16_t d, uint16_t dmin, float dx, int32_t sumi, int32_t mins) {
  return F16ToF32(d) * dx * static_cast<float>(sumi) - F16ToF32(dmin) * dx * static_cast<float>(mins);
}

float RowQ8_0(const uint8_t* w, const QuantActs& x, int64_t m) {
  float total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* block = w + 34 * b;
    const int8_t* q = x.q + m * x.q_row + 32 * b;
    int32_t s = 0;
    for (int j = 0; j < 32; ++j) s += static_cast<int8_t>(block[2 + j]) * q[j];
    total += F16ToF32(quant::Half(block)) * x.d[m * x.d_row + b] * static_cast<float>(s);
  }
  return total;
}

}  // namespace

// MXFP4: element j < 16 is the low nibble of byte 1 + j, j + 16 the high one, each an index
// into the doubled E2M1 values; a block's sum times E8M0Half(e)·dx, as ggml's scalar dot.
float RowMxfp4(const uint8_t* w, const QuantActs& x, int64_t m) {
  float total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* block = w + 17 * b;
    const int8_t* q = x.q + m * x.q_row + 32 * b;
    int32_t s = 0;
    for (int j = 0; j < 16; ++j) s += quant::Mxfp4Value(block[1 + j] & 0xFu) * q[j] + quant::Mxfp4Value(block[1 + j] >> 4) * q[j + 16];
    total += quant::E8M0Half(block[0]) * x.d[m * x.d_row + b] * static_cast<float>(s);
  }
  return total;
}

namespace {

// Q4_0 / Q5_0 (and Q4_1 / Q5_1, kMin): element j < 16 is the low nibble of byte j, element
// j + 16 the high one (Q5_x: plus 16 where bit j, or j + 16, of qh is set), stored with an
// offset of 8 (16); the _1 types have no offset but a min m after d, adding m·s (q8_1's s).
template <bool kFive, bool kMin>
float RowPairs(const uint8_t* w, const QuantActs& x, int64_t m) {
  const int64_t head = kMin ? 4 : 2, bytes = head + (kFive ? 4 : 0) + 16, offset = kMin ? 0 : kFive ? 16 : 8;
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  float total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const uint8_t* block = w + bytes * b;
    const uint8_t* qs = block + head + (kFive ? 4 : 0);
    const uint32_t qh = kFive ? quant::Half(block + head) | uint32_t{quant::Half(block + head + 2)} << 16 : 0;
    const int8_t* q = x.q + m * x.q_row + 32 * b;
    int32_t s = 0;
    for (int j = 0; j < 16; ++j) {
      const int lo = (qs[j] & 0xF) | static_cast<int>(qh >> j & 1) << 4, hi = (qs[j] >> 4) | static_cast<int>(qh >> (j + 16) & 1) << 4;
      s += lo * q[j] + hi * q[j + 16];
    }
    s -= static_cast<int32_t>(offset) * sums[b];
    const float dx = x.d[m * x.d_row + b];
    if (kMin) {  // ggml's generic vec_dot_q4_1_q8_1: both terms, then the running sum
      total += F16ToF32(quant::Half(block)) * dx * static_cast<float>(s) +
               F16ToF32(quant::Half(block + 2)) * x.d[m * x.d_row + x.blocks + b];
    } else {
      total += F16ToF32(quant::Half(block)) * dx * static_cast<float>(s);
    }
  }
  return total;
}

// Q4_K / Q5_K: groups 2c and 2c + 1 are the low and high nibbles of qs[32c .. 32c + 31]
// (Q5_K: plus 16 where bit 2c, or 2c + 1, of qh[l] is set).
float RowQ45K(const uint8_t* w, bool five, const QuantActs& x, int64_t m) {
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  float total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const quant::QKView v = quant::ViewQK(w + b * (five ? 176 : 144), five);
    const int8_t* q = x.q + m * x.q_row + 256 * b;
    int32_t sumi = 0, mins = 0;
    for (int c = 0; c < 4; ++c) {
      int32_t lo = 0, hi = 0;
      for (int l = 0; l < 32; ++l) {
        const int h = five ? v.qh[l] >> 2 * c : 0;
        lo += ((v.qs[32 * c + l] & 0xF) | (h & 1) << 4) * q[64 * c + l];
        hi += ((v.qs[32 * c + l] >> 4) | (h >> 1 & 1) << 4) * q[64 * c + 32 + l];
      }
      uint8_t sc_lo, m_lo, sc_hi, m_hi;
      quant::ScaleMinK4(2 * c, v.scales, &sc_lo, &m_lo);
      quant::ScaleMinK4(2 * c + 1, v.scales, &sc_hi, &m_hi);
      sumi += sc_lo * lo + sc_hi * hi;
      mins += m_lo * sums[8 * b + 2 * c] + m_hi * sums[8 * b + 2 * c + 1];
    }
    total += WithMins(v.d, v.dmin, x.d[m * x.d_row + b], sumi, mins);
  }
  return total;
}

// Q6_K: per half h, value l + 32k of its 128 is nibble k / 2 of ql[l + 32 (k % 2)] with bits
// 2k, 2k + 1 of qh[l] above it, stored with an offset of 32; one int8 scale per 16.
float RowQ6K(const uint8_t* w, const QuantActs& x, int64_t m) {
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  float total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const quant::Q6KView v = quant::ViewQ6K(w + b * 210);
    const int8_t* q = x.q + m * x.q_row + 256 * b;
    int32_t dot[16] = {};
    for (int h = 0; h < 2; ++h) {
      const uint8_t *ql = v.ql + 64 * h, *qh = v.qh + 32 * h;
      const int8_t* qx = q + 128 * h;
      for (int l = 0; l < 32; ++l) {
        dot[8 * h + l / 16] += ((ql[l] & 0xF) | (qh[l] & 3) << 4) * qx[l];
        dot[8 * h + 2 + l / 16] += ((ql[l + 32] & 0xF) | (qh[l] >> 2 & 3) << 4) * qx[l + 32];
        dot[8 * h + 4 + l / 16] += ((ql[l] >> 4) | (qh[l] >> 4 & 3) << 4) * qx[l + 64];
        dot[8 * h + 6 + l / 16] += ((ql[l + 32] >> 4) | (qh[l] >> 6 & 3) << 4) * qx[l + 96];
      }
    }
    int32_t sumi = 0;
    for (int g = 0; g < 16; ++g) sumi += v.scales[g] * (dot[g] - 32 * sums[16 * b + g]);
    total += F16ToF32(v.d) * x.d[m * x.d_row + b] * static_cast<float>(sumi);
  }
  return total;
}

// Σ over group g (16 values) of a Q2_K / Q3_K super-block of its unsigned values times q:
// value i = 128n + 32j + l is bits 2j..2j+1 of qs[32n + l], plus 4 (Q3_K, hmask given) where
// bit 4n + j of hmask[l] is set.
int32_t GroupDot23(const uint8_t* qs, const uint8_t* hmask, const int8_t* q, int g) {
  const int n = g / 8, j = g % 8 / 2, half = g % 2;
  int32_t dot = 0;
  for (int l = 16 * half; l < 16 * half + 16; ++l) {
    int u = qs[32 * n + l] >> 2 * j & 3;
    if (hmask) u += (hmask[l] >> (4 * n + j) & 1) * 4;
    dot += u * q[128 * n + 32 * j + l];
  }
  return dot;
}

// Q2_K: group g of 16 has scale scales[g] & 0xF and min scales[g] >> 4.
float RowQ2K(const uint8_t* w, const QuantActs& x, int64_t m) {
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  float total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const quant::Q2KView v = quant::ViewQ2K(w + b * 84);
    int32_t sumi = 0, mins = 0;
    for (int g = 0; g < 16; ++g) {
      sumi += (v.scales[g] & 0xF) * GroupDot23(v.qs, nullptr, x.q + m * x.q_row + 256 * b, g);
      mins += (v.scales[g] >> 4) * sums[16 * b + g];
    }
    total += WithMins(v.d, v.dmin, x.d[m * x.d_row + b], sumi, mins);
  }
  return total;
}

// Q3_K: values stored 4 below the unsigned ones, so 4·Σx of each group of 16 is taken out;
// 6-bit scales biased by 32.
float RowQ3K(const uint8_t* w, const QuantActs& x, int64_t m) {
  const int16_t* sums = reinterpret_cast<const int16_t*>(x.sums + m * x.sums_row);
  float total = 0;
  for (int64_t b = 0; b < x.blocks; ++b) {
    const quant::Q3KView v = quant::ViewQ3K(w + b * 110);
    int8_t scales[16];
    quant::UnpackQ3KScales(v.scales, scales);
    int32_t sumi = 0;
    for (int g = 0; g < 16; ++g) {
      sumi += (scales[g] - 32) * (GroupDot23(v.qs, v.hmask, x.q + m * x.q_row + 256 * b, g) - 4 * sums[16 * b + g]);
    }
    total += F16ToF32(v.d) * x.d[m * x.d_row + b] * static_cast<float>(sumi);
  }
  return total;
}

}  // namespace

bool QuantizeActivationsPortable(const GemmArgs& a, std::vector<uint8_t>* acts) {
  switch (a.wtype) {
    case DType::kQ8_0: case DType::kQ4_0: case DType::kQ5_0: case DType::kQ4_1: case DType::kQ5_1: case DType::kQ2_K:
    case DType::kQ3_K: case DType::kQ4_K: case DType::kQ5_K: case DType::kQ6_K: case DType::kMXFP4: break;
    default: return false;
  }
  if (a.M > kGemvMaxRows) return false;
  const QuantActsLayout l = LayoutOfPlainQuantActs(a.wtype, a.M, a.K);
  if (a.K % l.block != 0) return false;
  acts->resize(l.bytes);
  for (int64_t m = 0; m < a.M; ++m) {
    int8_t* q = reinterpret_cast<int8_t*>(acts->data()) + m * l.q_row;
    float* d = reinterpret_cast<float*>(acts->data() + l.d_offset) + m * l.d_row;
    int16_t* sums = reinterpret_cast<int16_t*>(acts->data() + l.sums_offset + m * l.sums_row);
    if (l.block == 32) {
      RoundQ8_0(a.x + m * a.x_stride, a.K, q, d, l.sums_per_block ? sums : nullptr, HasQ8_1Sums(a.wtype) ? d + a.K / 32 : nullptr);
    }
    if (l.block == 256) RoundQ8_K(a.x + m * a.x_stride, a.K, static_cast<int>(256 / l.sums_per_block), q, d, sums);
  }
  return true;
}

void PlainQuantGemv(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1, const PlainRowKernels& rows) {
  const QuantActs x = ViewQuantActs(LayoutOfPlainQuantActs(a.wtype, a.M, a.K), a.K, acts);
  for (int64_t n = n0; n < n1; ++n) {
    const uint8_t* w = reinterpret_cast<const uint8_t*>(a.w + n * a.w_stride);
    for (int64_t m = 0; m < a.M; ++m) {
      float r = a.wtype == DType::kQ8_0   ? rows.q8_0(w, x, m)
                : a.wtype == DType::kQ4_0 ? rows.q4_0(w, x, m)
                : a.wtype == DType::kQ5_0 ? rows.q5_0(w, x, m)
                : a.wtype == DType::kQ4_1 ? rows.q4_1(w, x, m)
                : a.wtype == DType::kQ5_1 ? rows.q5_1(w, x, m)
                : a.wtype == DType::kQ6_K ? rows.q6_k(w, x, m)
                : a.wtype == DType::kQ2_K ? rows.q2_k(w, x, m)
                : a.wtype == DType::kQ3_K ? rows.q3_k(w, x, m)
                : a.wtype == DType::kMXFP4 ? rows.mxfp4(w, x, m)
                                          : rows.q45_k(w, a.wtype == DType::kQ5_K, x, m);
      a.out[m * a.out_stride + n] = r;
    }
  }
}

void QuantGemvPortable(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1) {
  PlainQuantGemv(a, acts, n0, n1,
                 {RowQ8_0, RowPairs<false, false>, RowPairs<true, false>, RowPairs<false, true>, RowPairs<true, true>, RowQ45K,
                  RowQ6K, RowQ2K, RowQ3K, RowMxfp4});
}

}  // namespace vt::cpu
