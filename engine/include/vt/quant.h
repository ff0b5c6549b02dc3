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

}  // namespace vt
