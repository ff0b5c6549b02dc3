// Dequantization of ggml's block formats a row at a time: the blocks decoded by
// core/dequant_block.h (this file is compiled with -ffp-contract=off, so none of their
// products is fused into a multiply-add).
#include "core/dequant_block.h"
#include "vt/quant.h"

namespace vt {

void DequantizeRow(DType t, const void* src, float* dst, int64_t n) {
  const int64_t bs = BlockSize(t);
  const size_t bytes = BlockBytes(t);
  const uint8_t* b = static_cast<const uint8_t*>(src);
  for (int64_t i = 0; i < n / bs; ++i) quant::DequantBlock(t, b + static_cast<size_t>(i) * bytes, dst + i * bs);
}

}  // namespace vt
