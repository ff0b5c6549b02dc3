// Where each field of ggml's K-quant super-blocks lies (ggml-common.h of the pinned llama.cpp),
// and the 6-bit scale packings, shared by dequantization and quantization.
#pragma once

#include <cstdint>
#include <cstring>

#include "vt/dtype.h"

// The decoders run on CUDA devices too (core/dequant_block.h): what they call is both.
#if defined(__CUDACC__)
#define VT_HD __host__ __device__
#else
#define VT_HD
#endif

namespace vt::quant {

VT_HD inline uint16_t Half(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

VT_HD inline float FloatOfBits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

VT_HD inline uint32_t BitsOfFloat(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

// IEEE binary16 to f32, exact, NaN and ±inf kept (vt/dtype.h's F16ToF32 is this).
VT_HD inline float HalfToFloat(uint16_t h) {
  const uint32_t shifted_exp = 0x7c00u << 13;
  uint32_t o = static_cast<uint32_t>(h & 0x7fff) << 13;
  const uint32_t exp = shifted_exp & o;
  o += (127u - 15) << 23;
  if (exp == shifted_exp) {  // inf or NaN
    o += (128u - 16) << 23;
  } else if (exp == 0) {  // zero or subnormal: renormalise
    o += 1u << 23;
    o = BitsOfFloat(FloatOfBits(o) - FloatOfBits(113u << 23));
  }
  return FloatOfBits(o | static_cast<uint32_t>(h & 0x8000) << 16);
}

// E8M0 (a power of two, 2^(e - 127)) halved, as ggml's ggml_e8m0_to_fp32_half: MXFP4's
// values are stored doubled (kvalues_mxfp4), so its scale is taken at half.
VT_HD inline float E8M0Half(uint8_t e) { return FloatOfBits(e < 2 ? 0x00200000u << e : static_cast<uint32_t>(e - 1) << 23); }

// E2M1 values doubled (ggml's kvalues_mxfp4): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
VT_HD inline int Mxfp4Value(unsigned nibble) {
  const unsigned m = nibble & 7u;
  const int magnitude = m < 4u ? static_cast<int>(m) : static_cast<int>((2u | (m & 1u)) << ((m >> 1) - 1u));  // 4, 6, 8, 12
  return (nibble & 8u) ? -magnitude : magnitude;
}

// block_q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d, dmin.
struct Q2KView { const uint8_t *scales, *qs; uint16_t d, dmin; };
VT_HD inline Q2KView ViewQ2K(const uint8_t* b) { return {b, b + 16, Half(b + 80), Half(b + 82)}; }

// block_q3_K: hmask[32], qs[64], scales[12] (sixteen 6-bit scales, biased by 32), d.
struct Q3KView { const uint8_t *hmask, *qs, *scales; uint16_t d; };
VT_HD inline Q3KView ViewQ3K(const uint8_t* b) { return {b, b + 32, b + 96, Half(b + 108)}; }

// block_q4_K / block_q5_K: d, dmin, scales[12] (eight 6-bit scales and mins), [qh[32]], qs[128].
struct QKView { uint16_t d, dmin; const uint8_t *scales, *qh, *qs; };
VT_HD inline QKView ViewQK(const uint8_t* b, bool five) {
  return {Half(b), Half(b + 2), b + 4, five ? b + 16 : nullptr, five ? b + 48 : b + 16};
}

// block_q6_K: ql[128], qh[64], scales[16] (int8), d.
struct Q6KView { const uint8_t *ql, *qh; const int8_t* scales; uint16_t d; };
VT_HD inline Q6KView ViewQ6K(const uint8_t* b) { return {b, b + 128, reinterpret_cast<const int8_t*>(b + 192), Half(b + 208)}; }

// Scale and min j (0..7) of a Q4_K/Q5_K super-block: ggml's get_scale_min_k4.
VT_HD inline void ScaleMinK4(int j, const uint8_t* q, uint8_t* d, uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// The inverse: eight 6-bit scales `ls` and mins `lm` packed into the twelve bytes at q.
inline void PackScaleMinK4(const int ls[8], const int lm[8], uint8_t* q) {
  std::memset(q, 0, 12);
  for (int j = 0; j < 8; ++j) {
    if (j < 4) {
      q[j] |= static_cast<uint8_t>(ls[j]);
      q[j + 4] |= static_cast<uint8_t>(lm[j]);
    } else {
      q[j + 4] = static_cast<uint8_t>((ls[j] & 0xF) | ((lm[j] & 0xF) << 4));
      q[j - 4] |= static_cast<uint8_t>((ls[j] >> 4) << 6);
      q[j] |= static_cast<uint8_t>((lm[j] >> 4) << 6);
    }
  }
}

// Q3_K's sixteen 6-bit scales: scale 4g+b has its low nibble in byte (g % 2) * 4 + b (the low
// nibble for g < 2, the high one after) and its top two bits in byte 8 + b at bit 2g.
VT_HD inline void UnpackQ3KScales(const uint8_t* s, int8_t out[16]) {
  for (int i = 0; i < 16; ++i) {
    int g = i / 4, b = i % 4;
    int low = (s[(g % 2) * 4 + b] >> (g < 2 ? 0 : 4)) & 0xF;
    int high = (s[8 + b] >> (2 * g)) & 3;
    out[i] = static_cast<int8_t>(low | (high << 4));
  }
}

}  // namespace vt::quant
