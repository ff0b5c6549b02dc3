// ggml's block formats decoded one block at a time, following the pinned llama.cpp's
// ggml-quants.c dequantize_row_* term by term: each product and difference rounds to f32 in
// that order. Shared by the CPU's DequantizeRow (core/dequant.cpp, compiled with
// -ffp-contract=off so that none is fused into a multiply-add) and CUDA's block-type matmul
// and GetRows (cuda/cuda_quant.cu, compiled with --fmad=false): one code, so a device decodes
// what the tested host code decodes (specs/quantized.md).
#pragma once

#include <cstdint>

#include "core/quant_blocks.h"

namespace vt::quant {

VT_HD inline void Q4_0(const uint8_t* b, float* y) {
  const float d = HalfToFloat(Half(b));
  const uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
    y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
  }
}

VT_HD inline void Q4_1(const uint8_t* b, float* y) {
  const float d = HalfToFloat(Half(b)), m = HalfToFloat(Half(b + 2));
  const uint8_t* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
    y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
  }
}

// Q5_0 and Q5_1: the fifth bit of element j is bit j of qh (little-endian u32).
VT_HD inline void Q5(const uint8_t* b, float* y, bool with_min) {
  const float d = HalfToFloat(Half(b)), m = with_min ? HalfToFloat(Half(b + 2)) : 0.0f;
  const uint8_t* p = b + (with_min ? 4 : 2);
  const uint32_t qh = p[0] | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  const uint8_t* qs = p + 4;
  for (int j = 0; j < 16; ++j) {
    int x0 = (qs[j] & 0x0F) | (((qh >> j) << 4) & 0x10);
    int x1 = (qs[j] >> 4) | ((qh >> (j + 12)) & 0x10);
    if (with_min) {
      y[j] = static_cast<float>(x0) * d + m;
      y[j + 16] = static_cast<float>(x1) * d + m;
    } else {
      y[j] = static_cast<float>(x0 - 16) * d;
      y[j + 16] = static_cast<float>(x1 - 16) * d;
    }
  }
}

VT_HD inline void Q8_0(const uint8_t* b, float* y) {
  const float d = HalfToFloat(Half(b));
  const int8_t* qs = reinterpret_cast<const int8_t*>(b + 2);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(qs[j]) * d;
}

VT_HD inline void Q2_K(const uint8_t* b, float* y) {
  const Q2KView v = ViewQ2K(b);
  const float d = HalfToFloat(v.d), dmin = HalfToFloat(v.dmin);
  const uint8_t* q = v.qs;
  int is = 0;
  for (int n = 0; n < 256; n += 128, q += 32) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half = 0; half < 2; ++half) {
        uint8_t sc = v.scales[is++];
        const float dl = d * static_cast<float>(sc & 0xF), ml = dmin * static_cast<float>(sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>((q[l + 16 * half] >> shift) & 3) - ml;
      }
    }
  }
}

VT_HD inline void Q3_K(const uint8_t* b, float* y) {
  const Q3KView v = ViewQ3K(b);
  const float d_all = HalfToFloat(v.d);
  int8_t scales[16];
  UnpackQ3KScales(v.scales, scales);
  const uint8_t* q = v.qs;
  uint8_t m = 1;
  int is = 0;
  for (int n = 0; n < 256; n += 128, q += 32) {
    for (int shift = 0; shift < 8; shift += 2, m <<= 1) {
      for (int half = 0; half < 2; ++half) {
        const float dl = d_all * static_cast<float>(scales[is++] - 32);
        for (int l = 0; l < 16; ++l) {
          int i = l + 16 * half;
          *y++ = dl * static_cast<float>(((q[i] >> shift) & 3) - ((v.hmask[i] & m) ? 0 : 4));
        }
      }
    }
  }
}

// Q4_K and Q5_K: 8 sub-blocks of 32, each with a 6-bit scale and min; Q5_K's fifth bits in qh.
VT_HD inline void Q45_K(const uint8_t* b, float* y, bool five) {
  const QKView v = ViewQK(b, five);
  const float d = HalfToFloat(v.d), dmin = HalfToFloat(v.dmin);
  const uint8_t* ql = v.qs;
  uint8_t u1 = 1, u2 = 2;
  for (int is = 0; is < 8; is += 2, ql += 32, u1 <<= 2, u2 <<= 2) {
    uint8_t sc, m;
    ScaleMinK4(is, v.scales, &sc, &m);
    const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
    ScaleMinK4(is + 1, v.scales, &sc, &m);
    const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>((ql[l] & 0xF) + (five && (v.qh[l] & u1) ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>((ql[l] >> 4) + (five && (v.qh[l] & u2) ? 16 : 0)) - m2;
  }
}

VT_HD inline void Q6_K(const uint8_t* b, float* y) {
  const Q6KView v = ViewQ6K(b);
  const float d = HalfToFloat(v.d);
  const uint8_t *ql = v.ql, *qh = v.qh;
  const int8_t* sc = v.scales;
  for (int n = 0; n < 256; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
    for (int l = 0; l < 32; ++l) {
      int is = l / 16;
      int q1 = static_cast<int8_t>((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      int q2 = static_cast<int8_t>((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      int q3 = static_cast<int8_t>((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      int q4 = static_cast<int8_t>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
  }
}

// MXFP4: an E8M0 scale, then element j < 16 in the low nibble of byte j, j + 16 in the high.
// The block's sixteen values are formed once (the same products ggml forms per element) and
// looked up: per element, the value and its multiply cost a gpt-oss decode most of its time.
VT_HD inline void MXFP4(const uint8_t* b, float* y) {
  const float d = E8M0Half(b[0]);
  float values[16];
  for (unsigned i = 0; i < 16; ++i) values[i] = static_cast<float>(Mxfp4Value(i)) * d;
  for (int j = 0; j < 16; ++j) {
    y[j] = values[b[1 + j] & 0x0Fu];
    y[j + 16] = values[b[1 + j] >> 4];
  }
}

// Block `b` of type t decoded to y[0, BlockSize(t)); other types write nothing.
VT_HD inline void DequantBlock(DType t, const uint8_t* b, float* y) {
  switch (t) {
    case DType::kQ4_0: Q4_0(b, y); break;
    case DType::kQ4_1: Q4_1(b, y); break;
    case DType::kQ5_0: Q5(b, y, false); break;
    case DType::kQ5_1: Q5(b, y, true); break;
    case DType::kQ8_0: Q8_0(b, y); break;
    case DType::kQ2_K: Q2_K(b, y); break;
    case DType::kQ3_K: Q3_K(b, y); break;
    case DType::kQ4_K: Q45_K(b, y, false); break;
    case DType::kQ5_K: Q45_K(b, y, true); break;
    case DType::kQ6_K: Q6_K(b, y); break;
    case DType::kMXFP4: MXFP4(b, y); break;
    default: break;
  }
}

}  // namespace vt::quant
