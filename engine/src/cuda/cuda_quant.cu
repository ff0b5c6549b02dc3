// Block-type weights on CUDA (specs/cuda.md): Matmul and GetRows decode each block with the
// CPU's own decoders (core/dequant_block.h, host and device code). This file is compiled with
// --fmad=false, as dequant.cpp is with -ffp-contract=off, so the device's weights are ggml's
// values bit for bit wherever the host's are.
#include "core/dequant_block.h"
#include "cuda/cuda_common.cuh"

namespace vt::cuda {
namespace {

constexpr int kCols = 8;  // activation columns per pass of a warp over its row

struct BlockMatmul {
  Dev4 w, x, o;
  DType type;
  int64_t block, block_bytes;
};

// A warp per output row n (8 rows per 256 threads), activation columns [8z, 8z + 8), batch y
// (weights broadcast over batches as ggml does): each lane decodes the row's blocks lane,
// lane + 32, ... into registers (local memory for a 256-element super-block) and multiplies
// them with those columns; the lanes' sums are added by shuffles.
__global__ void BlockMatmulKernel(BlockMatmul a) {
  const int64_t n = blockIdx.x * 8 + threadIdx.x / 32, M = a.x.ne[1], m0 = int64_t{blockIdx.z} * kCols;
  if (n >= a.w.ne[1]) return;
  const int64_t i2 = blockIdx.y % a.x.ne[2], i3 = blockIdx.y / a.x.ne[2];
  const int64_t r2 = a.x.ne[2] / a.w.ne[2], r3 = a.x.ne[3] / a.w.ne[3];
  const auto* row = reinterpret_cast<const uint8_t*>(a.w.data + (i2 / r2) * a.w.nb[2] + (i3 / r3) * a.w.nb[3] + n * a.w.nb[1]);
  const char* x = a.x.data + i2 * a.x.nb[2] + i3 * a.x.nb[3];
  float acc[kCols] = {};
  float y[256];
  for (int64_t b = threadIdx.x % 32; b < a.w.ne[0] / a.block; b += 32) {
    quant::DequantBlock(a.type, row + b * a.block_bytes, y);
    for (int m = 0; m < kCols && m0 + m < M; ++m) {
      const float* xm = reinterpret_cast<const float*>(x + (m0 + m) * a.x.nb[1]) + b * a.block;
      float s = 0;
      for (int64_t k = 0; k < a.block; ++k) s += y[k] * xm[k];
      acc[m] += s;
    }
  }
  char* o = a.o.data + i2 * a.o.nb[2] + i3 * a.o.nb[3];
  for (int m = 0; m < kCols && m0 + m < M; ++m) {
    float v = acc[m];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0) reinterpret_cast<float*>(o + (m0 + m) * a.o.nb[1])[n] = v;
  }
}

// A thread per (output row, block of the table's row): the block decoded into the output.
__global__ void BlockGetRowsKernel(Dev4 table, Dev4 ids, Dev4 o, DType type, int64_t block, int64_t block_bytes) {
  const int64_t blocks = table.ne[0] / block, items = blocks * o.ne[1];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < items; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t b = i % blocks, r = i / blocks;
    const int32_t id = *reinterpret_cast<const int32_t*>(At(ids, r, 0));
    float y[256];
    quant::DequantBlock(type, reinterpret_cast<const uint8_t*>(table.data + id * table.nb[1]) + b * block_bytes, y);
    float* out = reinterpret_cast<float*>(At(o, b * block, r));
    for (int64_t k = 0; k < block; ++k) out[k] = y[k];
  }
}

}  // namespace

cudaError_t LaunchBlockMatmul(const Op& op, cudaStream_t stream) {
  const Tensor& w = *op.src[0];
  BlockMatmul a{ToDev4(w), ToDev4(*op.src[1]), ToDev4(*op.out), w.dtype, BlockSize(w.dtype), static_cast<int64_t>(BlockBytes(w.dtype))};
  const int64_t batches = a.x.ne[2] * a.x.ne[3], col_groups = (a.x.ne[1] + kCols - 1) / kCols;
  dim3 grid(Blocks(w.ne[1], 8), static_cast<unsigned>(batches), static_cast<unsigned>(col_groups));
  BlockMatmulKernel<<<grid, 256, 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t LaunchBlockGetRows(const Op& op, cudaStream_t stream) {
  const Tensor& table = *op.src[0];
  const int64_t block = BlockSize(table.dtype), items = table.ne[0] / block * op.out->ne[1];
  BlockGetRowsKernel<<<Blocks(items, 256), 256, 0, stream>>>(ToDev4(table), ToDev4(*op.src[1]), ToDev4(*op.out), table.dtype,
                                                              block, static_cast<int64_t>(BlockBytes(table.dtype)));
  return cudaGetLastError();
}

}  // namespace vt::cuda
