#include "vt/dtype.h"

#include <bit>

#include "core/quant_blocks.h"

namespace vt {

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kI32: return "i32";
    case DType::kQ8_0: return "q8_0";
    case DType::kQ4_0: return "q4_0";
    case DType::kQ4_1: return "q4_1";
    case DType::kQ5_0: return "q5_0";
    case DType::kQ5_1: return "q5_1";
    case DType::kQ2_K: return "q2_K";
    case DType::kQ3_K: return "q3_K";
    case DType::kQ4_K: return "q4_K";
    case DType::kQ5_K: return "q5_K";
    case DType::kQ6_K: return "q6_K";
    case DType::kQ4_0x16: return "q4_0x16";
    case DType::kQ4_Kx16: return "q4_Kx16";
    case DType::kF16x16: return "f16x16";
    case DType::kBF16x16: return "bf16x16";
    case DType::kMXFP4: return "mxfp4";
    case DType::kMXFP4x16: return "mxfp4x16";
    case DType::kBF16Tiles: return "bf16tiles";
  }
  return "?";
}

DType InterleavedOf(DType t) {
  switch (t) {
    case DType::kQ4_0: return DType::kQ4_0x16;
    case DType::kQ4_K: return DType::kQ4_Kx16;
    case DType::kMXFP4: return DType::kMXFP4x16;
    case DType::kF16: return DType::kF16x16;
    case DType::kBF16: return DType::kBF16x16;
    default: return t;
  }
}

DType PlainOf(DType t) {
  switch (t) {
    case DType::kQ4_0x16: return DType::kQ4_0;
    case DType::kQ4_Kx16: return DType::kQ4_K;
    case DType::kMXFP4x16: return DType::kMXFP4;
    case DType::kF16x16: return DType::kF16;
    case DType::kBF16x16: return DType::kBF16;
    case DType::kBF16Tiles: return DType::kBF16;
    default: return t;
  }
}

bool IsQuantized(DType t) { return BlockSize(t) > 1; }

int64_t BlockSize(DType t) {
  switch (t) {
    case DType::kQ8_0: case DType::kQ4_0: case DType::kQ4_1: case DType::kQ5_0: case DType::kQ5_1:
    case DType::kQ4_0x16: case DType::kMXFP4: case DType::kMXFP4x16: return 32;
    case DType::kQ2_K: case DType::kQ3_K: case DType::kQ4_K: case DType::kQ5_K: case DType::kQ6_K:
    case DType::kQ4_Kx16: return 256;
    default: return 1;
  }
}

size_t BlockBytes(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kF16: return 2;
    case DType::kF16x16: case DType::kBF16x16: return 2;  // the same, 16 rows' values per k
    case DType::kBF16Tiles: return 2;                     // 16 rows' pairs per k pair
    case DType::kBF16: return 2;
    case DType::kI32: return 4;
    case DType::kQ8_0: return 2 + 32;      // f16 scale + 32 int8
    case DType::kQ4_0: return 2 + 32 / 2;  // f16 scale + 32 nibbles
    case DType::kQ4_0x16: return 2 + 32 / 2;  // the same, 16 rows' blocks interleaved
    case DType::kQ4_1: return 4 + 32 / 2;  // f16 scale and min + 32 nibbles
    case DType::kQ5_0: return 2 + 4 + 32 / 2;  // + the 32 fifth bits
    case DType::kQ5_1: return 4 + 4 + 32 / 2;
    case DType::kQ2_K: return 16 + 64 + 4;        // 4-bit scale/min pairs, 2-bit quants, d, dmin
    case DType::kQ3_K: return 32 + 64 + 12 + 2;   // high bits, low 2 bits, 6-bit scales, d
    case DType::kQ4_K: return 4 + 12 + 128;       // d, dmin, 6-bit scales/mins, nibbles
    case DType::kQ4_Kx16: return 4 + 12 + 128;    // the same, 16 rows' super-blocks interleaved
    case DType::kQ5_K: return 4 + 12 + 32 + 128;  // + the fifth bits
    case DType::kQ6_K: return 128 + 64 + 16 + 2;  // low 4 bits, high 2 bits, int8 scales, d
    case DType::kMXFP4: return 1 + 32 / 2;        // E8M0 scale + 32 E2M1 nibbles
    case DType::kMXFP4x16: return 1 + 32 / 2;     // the same, 16 rows' blocks interleaved
  }
  return 0;
}

size_t RowBytes(DType t, int64_t n) { return static_cast<size_t>(n / BlockSize(t)) * BlockBytes(t); }

// Rounding by integer bias on the bit pattern (normal range) and by one float addition
// (subnormal range), which rounds to nearest even in the default FP environment.
uint16_t F32ToF16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint16_t out;
  if (u >= (127u + 16) << 23) {                       // ≥ 65536, inf or NaN
    out = u > (255u << 23) ? 0x7e00 | ((u >> 13) & 0x1ff) : 0x7c00;
  } else if (u < 113u << 23) {                        // half subnormal or zero
    const float magic = std::bit_cast<float>(((127u - 15) + (23 - 10) + 1) << 23);
    out = static_cast<uint16_t>(std::bit_cast<uint32_t>(std::bit_cast<float>(u) + magic) -
                                std::bit_cast<uint32_t>(magic));
  } else {
    uint32_t odd = (u >> 13) & 1;
    u += ((15u - 127) << 23) + 0xfff + odd;
    out = static_cast<uint16_t>(u >> 13);
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}

float F16ToF32(uint16_t h) { return quant::HalfToFloat(h); }

uint16_t F32ToBF16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

float BF16ToF32(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

}  // namespace vt
