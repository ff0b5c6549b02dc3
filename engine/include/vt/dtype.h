// Element types and their storage sizes. Every byte count in vt is computed here from a
// dtype and an element count: a copy that assumed bf16's 2 bytes for an f32 block moved half
// the data once, and this is the one place that cannot happen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vt {

// The block types are ggml's, byte for byte (specs/quantized.md).
enum class DType : uint8_t {
  kF32, kF16, kBF16, kI32,
  kQ8_0, kQ4_0, kQ4_1, kQ5_0, kQ5_1,     // 32-element blocks
  kQ2_K, kQ3_K, kQ4_K, kQ5_K, kQ6_K,     // 256-element super-blocks
  // Q4_0 and Q4_K with their rows interleaved in groups of 16 for the CPU's decode (vt/quant.h,
  // specs/quantized.md): the same bytes per row, never in a file, never on another backend.
  kQ4_0x16, kQ4_Kx16,
  // f16 and bf16 rows as k-major panels of 16 rows for the CPU's AVX-512 matmuls (vt/quant.h,
  // specs/engine-core.md): the same bytes, never in a file, never on another backend.
  kF16x16, kBF16x16,
  // OCP's MXFP4 (gpt-oss's experts): 32-element blocks of an E8M0 scale and 32 E2M1 nibbles.
  kMXFP4,
  // MXFP4 with its rows interleaved in groups of 16, as Q4_0's (vt/quant.h): the CPU's own.
  kMXFP4x16,
  // f16 or bf16 rows as bf16 in the AMX tile unit's order (vt/quant.h, specs/amx.md): the same
  // bytes as bf16, never in a file, never on another backend. Put back, its rows are bf16.
  kBF16Tiles,
};

std::string_view DTypeName(DType t);

// The interleaved type of a plain one (q4_0 → q4_0x16, q4_K → q4_Kx16, mxfp4 → mxfp4x16,
// f16 → f16x16, bf16 → bf16x16), else `t` itself.
DType InterleavedOf(DType t);
// The plain type an interleaved one holds the rows of, else `t` itself.
DType PlainOf(DType t);
inline bool IsInterleaved(DType t) { return PlainOf(t) != t; }
// f16x16 or bf16x16: 2-byte floats in panels, where the block types' interleavings are not.
inline bool IsPanels(DType t) { return t == DType::kF16x16 || t == DType::kBF16x16; }
// bf16tiles: every matmul over it runs on the tiles (specs/amx.md).
inline bool IsTiles(DType t) { return t == DType::kBF16Tiles; }

// Elements per storage block (1 for plain types, 32 or 256 for the block formats).
int64_t BlockSize(DType t);
// A block format (q4_0 ... q6_K): its elements are read by dequantizing whole blocks.
bool IsQuantized(DType t);
// Bytes per storage block.
size_t BlockBytes(DType t);
// Bytes of `n` contiguous elements; `n` must be a multiple of BlockSize(t).
size_t RowBytes(DType t, int64_t n);

// IEEE binary16 and bfloat16 conversion: round to nearest even, NaN and ±inf preserved.
uint16_t F32ToF16(float f);
float F16ToF32(uint16_t h);
uint16_t F32ToBF16(float f);
float BF16ToF32(uint16_t b);

}  // namespace vt
