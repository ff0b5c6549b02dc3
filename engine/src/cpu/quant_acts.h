// The activation rows of a quantized decode as the AVX-512 set's integer dot products read
// them (cpu/quant_dot_avx512.cpp writes them, cpu/quant_kdot_avx512.cpp reads the K-quant
// ones): M rows of K int8 values, then one f32 scale per block of each row, then the int16
// sums of the values per group (the K-quants' mins and offsets multiply these instead of
// every value). Rounded once per Matmul, before it is split among threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "vt/dtype.h"

namespace vt::cpu {

struct GemmArgs;

struct QuantActs {
  const int8_t* q;       // row m at q + m·q_row
  const float* d;        // row m's block scales at d + m·d_row
  const uint8_t* sums;   // row m's group sums (int16; Q4_0: int32 offsets) at sums + m·sums_row
  int64_t K, blocks, sums_per_block;
  int64_t q_row, d_row, sums_row;  // int8s, floats, bytes
};

// Where each part lies for M rows of K: q8_0 (32 per block, no sums) for Q8_0, MXFP4, Q4_0 and Q5_0;
// q8_K (256 per block) with sums per 32 for Q4_K and Q5_K (whose rows also hold each block's
// groups of 32 in the order 0, 2, 1, 3, 4, 6, 5, 7: a 64-byte load of their nibbles yields
// the low nibbles of groups 0 and 2, the high nibbles those of 1 and 3), sums per 16 for Q6_K;
// q8_K in plain order with sums per 32 for q4_Kx16.
// Q4_0, Q5_0 and MXFP4 take their blocks in pairs (b, b + 1), a 64-byte vector each, laid out as its nibbles
// come: values 0-15 of b, 0-15 of b + 1, 16-31 of b, 16-31 of b + 1 (an odd last block is
// paired with zeros). Per pair, its 16 int32 lanes of vpdpbusd: the scale of each lane's block
// (d), and the start of its sums, -8·Σx (Q5_0: -16·Σx, MXFP4: -12·Σx) of the block in lane 0 (b) and lane 4
// (b + 1), so that the sums come out as Σ(q - 8)·x.
struct QuantActsLayout {
  int64_t block, sums_per_block, q_row, d_row, sums_row;
  size_t d_offset, sums_offset, bytes;
};

inline QuantActsLayout LayoutOfQuantActs(DType wtype, int64_t M, int64_t K) {
  const bool k_quant = wtype == DType::kQ4_K || wtype == DType::kQ5_K || wtype == DType::kQ6_K || wtype == DType::kQ4_Kx16;
  QuantActsLayout l{k_quant ? 256 : 32, wtype == DType::kQ6_K ? 16 : k_quant ? 8 : 0, K, 0, 0, 0, 0, 0};
  const int64_t blocks = K / l.block;
  l.d_row = blocks;
  l.sums_row = blocks * l.sums_per_block * 2;
  if (wtype == DType::kQ4_0x16 || wtype == DType::kMXFP4x16) {  // plain q8_0 rows; per block -8·Σq (-12·Σq) as int32
    l.sums_per_block = 1;
    l.sums_row = blocks * 4;
  }
  if (wtype == DType::kQ4_0 || wtype == DType::kQ5_0 || wtype == DType::kMXFP4) {
    const int64_t pairs = (blocks + 1) / 2;
    l.q_row = 64 * pairs;
    l.d_row = 16 * pairs;
    l.sums_row = 64 * pairs;
  }
  l.d_offset = (static_cast<size_t>(M * l.q_row) + 63) / 64 * 64;
  l.sums_offset = l.d_offset + static_cast<size_t>(M * l.d_row) * sizeof(float);
  l.bytes = l.sums_offset + static_cast<size_t>(M * l.sums_row);
  return l;
}

inline QuantActs ViewQuantActs(const QuantActsLayout& l, int64_t K, const uint8_t* base) {
  return {reinterpret_cast<const int8_t*>(base), reinterpret_cast<const float*>(base + l.d_offset), base + l.sums_offset,
          K, K / l.block, l.sums_per_block, l.q_row, l.d_row, l.sums_row};
}

inline QuantActs ViewQuantActs(DType wtype, int64_t M, int64_t K, const uint8_t* base) {
  return ViewQuantActs(LayoutOfQuantActs(wtype, M, K), K, base);
}

// The plain layout of the portable and AVX2 sets (cpu/quant_dot_portable.cpp): each row's K
// values in order, one f32 scale per block, and the int16 sums of its values per group: per
// 32 for Q4_0, Q5_0, Q4_1, Q5_1 (one per block), Q4_K and Q5_K, per 16 for Q2_K, Q3_K and
// Q6_K, none for Q8_0. Q4_1 and Q5_1 (q8_1) have a second f32 per block after the scales:
// s = f16(scale·Σq), ggml's block_q8_1.s, which their minimums multiply.
inline bool HasQ8_1Sums(DType wtype) { return wtype == DType::kQ4_1 || wtype == DType::kQ5_1; }

inline QuantActsLayout LayoutOfPlainQuantActs(DType wtype, int64_t M, int64_t K) {
  const bool per16 = wtype == DType::kQ6_K || wtype == DType::kQ2_K || wtype == DType::kQ3_K;
  const bool k_quant = per16 || wtype == DType::kQ4_K || wtype == DType::kQ5_K;
  const int64_t block = k_quant ? 256 : 32;
  const int64_t per_block = per16 ? 16 : k_quant ? 8 : wtype == DType::kQ8_0 || wtype == DType::kMXFP4 ? 0 : 1;
  QuantActsLayout l{block, per_block, K, K / block * (HasQ8_1Sums(wtype) ? 2 : 1), K / block * per_block * 2, 0, 0, 0};
  l.d_offset = (static_cast<size_t>(M * K) + 63) / 64 * 64;
  l.sums_offset = l.d_offset + static_cast<size_t>(M * l.d_row) * sizeof(float);
  l.bytes = l.sums_offset + static_cast<size_t>(M * l.sums_row);
  return l;
}

// One weight row against activation row m, per type, in the plain layout (portable and AVX2).
struct PlainRowKernels {
  float (*q8_0)(const uint8_t* w, const QuantActs& x, int64_t m);
  float (*q4_0)(const uint8_t* w, const QuantActs& x, int64_t m);
  float (*q5_0)(const uint8_t* w, const QuantActs& x, int64_t m);
  float (*q4_1)(const uint8_t* w, const QuantActs& x, int64_t m);
  float (*q5_1)(const uint8_t* w, const QuantActs& x, int64_t m);
  float (*q45_k)(const uint8_t* w, bool five, const QuantActs& x, int64_t m);
  float (*q6_k)(const uint8_t* w, const QuantActs& x, int64_t m);
  float (*q2_k)(const uint8_t* w, const QuantActs& x, int64_t m);
  float (*q3_k)(const uint8_t* w, const QuantActs& x, int64_t m);
  float (*mxfp4)(const uint8_t* w, const QuantActs& x, int64_t m);
};

// One MXFP4 weight row against plain q8_0 activation row m (cpu/quant_dot_portable.cpp; the
// AVX2 set shares it).
float RowMxfp4(const uint8_t* w, const QuantActs& x, int64_t m);

// Columns [n0, n1) of a decode over plain-layout activations, one row at a time with `rows`
// (cpu/quant_dot_portable.cpp).
void PlainQuantGemv(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1, const PlainRowKernels& rows);

// f(std::integral_constant<int, R>) for R = rows (1..4): a kernel's tile of activation rows
// as a compile-time count, so its accumulators stay in registers.
template <class F>
inline void WithRowCount(int rows, F&& f) {
  switch (rows) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    default: f(std::integral_constant<int, 4>{}); break;
  }
}

// out[i·out_stride + n] for activation rows m0 .. m0 + rows - 1 (rows 1..4) and the `count`
// Q4_K, Q5_K or Q6_K weight rows n at w + n·w_stride (cpu/quant_kdot_avx512.cpp).
// Columns [n0, n1) of a decode of DType::kQ4_0x16 weights (cpu/q4_0x16_avx512.cpp) over
// activations in LayoutOfQuantActs(kQ4_0x16)'s layout; the same for kQ4_Kx16
// (cpu/q4_kx16_avx512.cpp).
void QuantGemvQ4_0x16(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1);
void QuantGemvMXFP4x16(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1);
void QuantGemvQ4_Kx16(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1);

// Rows [n0, n1) of interleaved weights (at most one group's worth, any of them past the last
// whole group) put back in plain order and interleaved again as a group whose missing rows
// are zero: the partial groups of a thread's range read as whole ones (a thread-local buffer).
const uint8_t* GatherGroup(const GemmArgs& a, int64_t n0, int64_t n1);

void KQuantRowsAvx512(DType wtype, const uint8_t* w, size_t w_stride, int64_t count, const QuantActs& x, int64_t m0,
                      int rows, float* out, size_t out_stride);

}  // namespace vt::cpu
