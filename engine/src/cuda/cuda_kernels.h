// The CUDA kernels' launchers, one per op family. Tensors cross as Dev4 (a device address,
// shape, byte strides and dtype), so kernels index any view as the CPU does. Every launcher
// queues work on `stream` and returns the launch's error (cudaSuccess when queued).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "vt/ops.h"

namespace vt::cuda {

struct Dev4 {
  char* data = nullptr;
  int64_t ne[4] = {1, 1, 1, 1};
  int64_t nb[4] = {0, 0, 0, 0};
  int dtype = 0;  // 0 f32, 1 f16, 2 bf16, 3 i32
};

Dev4 ToDev4(const Tensor& t);

cudaError_t LaunchElementwise(const Op& op, cudaStream_t stream);
cudaError_t LaunchRmsNorm(const Op& op, cudaStream_t stream);
cudaError_t LaunchSoftmax(const Op& op, cudaStream_t stream);
cudaError_t LaunchRope(const Op& op, cudaStream_t stream);
cudaError_t LaunchGetRows(const Op& op, cudaStream_t stream);
cudaError_t LaunchTopK(const Op& op, cudaStream_t stream);
cudaError_t LaunchAttention(const Op& op, cudaStream_t stream);
cudaError_t LaunchCopy(const Op& op, cudaStream_t stream);

// Block-type weights (Q4_0 ... Q6_K) and tables, decoded by the CPU's own block decoders
// (cuda/cuda_quant.cu).
cudaError_t LaunchBlockMatmul(const Op& op, cudaStream_t stream);
cudaError_t LaunchBlockGetRows(const Op& op, cudaStream_t stream);

// vt's own matmul kernels (gemv for M <= 8, tiled f32, WMMA f16/bf16).
cudaError_t LaunchMatmul(const Op& op, cudaStream_t stream);
// The same product by cuBLAS, for comparison; half activations are rounded into `scratch`
// (at least K×M elements of the weight type). Returns a message, empty on success.
const char* CublasMatmul(const Op& op, cublasHandle_t handle, cudaStream_t stream, void* scratch);

inline constexpr int kMaxRopeDims = 512;  // LaunchRope passes the frequencies by value
inline constexpr int64_t kMaxHeadDim = 512;

}  // namespace vt::cuda
