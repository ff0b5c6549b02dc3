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

}  // namespace vt
