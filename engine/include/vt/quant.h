// ggml's block formats (Q4_0 ... Q6_K) to and from f32, one row at a time. Dequantization is
// the value ggml's dequantize_row_* computes in C; quantization is a plain round-to-nearest
// per block, enough for fixtures that every engine reads the same (specs/quantized.md).
#pragma once

#include <cstdint>

#include "vt/dtype.h"
#include "vt/status.h"

namespace vt {

// dst[0, n) from the blocks at src; `t` quantized and n a multiple of BlockSize(t).
void DequantizeRow(DType t, const void* src, float* dst, int64_t n);

// The blocks of src[0, n) written to dst (RowBytes(t, n) bytes). kInvalidArgument when `t`
// is not a block type or n is not a multiple of its block size.
Status QuantizeRow(DType t, const float* src, void* dst, int64_t n);

// ggml's quantize_row_q8_0 as llama.cpp's CPU runs it (a KV cache's keys and values, a
// decode's activations): per block of 32, d = amax / 127 stored as f16, each value x / d
// (by the unrounded d) rounded to nearest even. QuantizeRow's q8_0 divides by the stored d,
// as fixture files need no more; n a multiple of 32.
void QuantizeRowQ8_0Ggml(const float* src, void* dst, int64_t n);

// DType::kQ4_0x16: an N x K matrix of Q4_0 rows whose rows [0, N / 16 * 16) are stored in
// groups of 16. Group g starts where its first row would (g * 16 rows in); per block b of
// 32 columns it holds the 16 rows' f16 scales (row r's at 2r), then four 64-byte chunks,
// chunk c holding bytes 4c..4c+3 of each row's 16 nibble bytes (row r's at 4r): 288 bytes,
// as many as the 16 rows' blocks. Rows past the last whole group are plain Q4_0.
inline constexpr int64_t kInterleavedRows = 16;
inline constexpr size_t kInterleavedBlockBytes = 16 * 18;
// The N x K Q4_0 matrix at src written to dst in that order (the same number of bytes).
void InterleaveQ4_0(const void* src, void* dst, int64_t N, int64_t K);
// Row n of the N x K q4_0x16 matrix at src, as a plain Q4_0 row, to dst.
void PlainRowOfQ4_0x16(const void* src, int64_t N, int64_t K, int64_t n, void* dst);

// DType::kMXFP4x16: MXFP4 rows in groups of 16 the same way: per block b of 32 columns a group
// holds the 16 rows' E8M0 scale bytes (row r's at r), then Q4_0's four 64-byte chunks of
// nibbles: 272 bytes, as many as the 16 rows' blocks. Rows past the last whole group are plain.
inline constexpr size_t kInterleavedMxfp4BlockBytes = 16 * 17;
void InterleaveMXFP4(const void* src, void* dst, int64_t N, int64_t K);
void PlainRowOfMXFP4x16(const void* src, int64_t N, int64_t K, int64_t n, void* dst);

// DType::kQ4_Kx16: Q4_K rows in groups of 16 the same way. Per super-block b of 256 columns
// a group holds 2304 bytes: the 16 rows' d (f16, row r's at 2r), their dmin (at 32 + 2r),
// their eight 6-bit scales (at 64) and mins (at 160), then at 256 the nibbles: for each pair
// p of groups of 32 (a row's nibble bytes 32p..32p+31), eight 64-byte chunks, chunk c holding
// bytes 32p + 4c .. 32p + 4c + 3 of each row (row r's at 4r). The scales are numbered
// 16j + r and the mins 32(j / 2) + 2r + j % 2 (group j of row r), each set of 128 packed in
// 96 bytes: byte k < 64 holds value k's low four bits and value k + 64's in its high half;
// byte 64 + k (k < 32) the top two bits of values k, k + 32, k + 64, k + 96 at bits 0, 2, 4, 6.
inline constexpr size_t kInterleavedSuperBlockBytes = 16 * 144;
void InterleaveQ4_K(const void* src, void* dst, int64_t N, int64_t K);
void PlainRowOfQ4_Kx16(const void* src, int64_t N, int64_t K, int64_t n, void* dst);

// DType::kF16x16 and kBF16x16: an N x K f16 or bf16 matrix as k-major panels. Rows [0, N / 16 * 16) in groups of
// 16, group g starting where its first row would (16 g K values in) and holding, for each k
// in order, the 16 rows' values w[16g + j][k] (j = 0..15: 32 bytes); the r = N % 16 rows past
// the last whole group the same way with r values per k.
// Where value (n, k) of such a matrix lies, in values from its start.
inline int64_t PanelIndex(int64_t N, int64_t K, int64_t n, int64_t k) {
  const int64_t g = n / kInterleavedRows * kInterleavedRows, rows = N - g < kInterleavedRows ? N - g : kInterleavedRows;
  return g * K + k * rows + (n - g);
}
void InterleavePanels(const void* src, void* dst, int64_t N, int64_t K);

// DType::kBF16Tiles: an N x K f16 or bf16 matrix (N a multiple of 16, K of 32) as bf16 in the
// AMX tiles' order: for each group g of 16 rows and each 32 values of k (tile t), one 1 KiB
// tile at (g * K / 32 + t) * 512 values, whose row p holds the 16 rows' pairs: value (16g + j,
// 32t + 2p + e) at 32p + 2j + e. f16 is rounded to bf16 (nearest even); bf16 is exact.
inline int64_t TileIndex(int64_t K, int64_t n, int64_t k) {
  return ((n / 16) * (K / 32) + k / 32) * 512 + (k % 32 / 2) * 32 + (n % 16) * 2 + k % 2;
}
// Whether an N x K matrix of `t` can be held in that order.
inline bool TilesHold(DType t, int64_t N, int64_t K) {
  return (t == DType::kF16 || t == DType::kBF16) && N % 16 == 0 && K % 32 == 0 && N > 0 && K > 0;
}
void PackTiles(DType plain, const void* src, void* dst, int64_t N, int64_t K);

// The three above for any interleaved type (vt/dtype.h's InterleavedOf): InterleavedOf(plain)'s order from plain rows,
// and row n of an interleaved matrix in PlainOf(t)'s order.
void Interleave(DType plain, const void* src, void* dst, int64_t N, int64_t K);
void PlainRowOf(DType t, const void* src, int64_t N, int64_t K, int64_t n, void* dst);
// Rows [n0, n1) of an interleaved (or plain) matrix in plain order, one after another at dst.
void PlainRowsOf(DType t, const void* src, int64_t N, int64_t K, int64_t n0, int64_t n1, void* dst);

}  // namespace vt
