// vt's CUDA matmul, out[n, m] = Σ_k w[k, n] · x[k, m] per batch (weights broadcast over
// batches): a warp per output row for decode-sized M (weights read once for every column),
// a 64×64 shared-memory tiled kernel for f32 weights, and a WMMA tensor-core kernel for f16
// and bf16 weights (activations rounded to the weight type in shared memory, f32 accumulation).
// cuBLAS runs the same product for comparison (VT_CUDA_MATMUL=cublas).
#include <mma.h>

#include <type_traits>

#include "cuda/cuda_common.cuh"

namespace vt::cuda {
namespace {

constexpr int kGemvMaxM = 8;

// The batch's weight and activation matrices (ggml broadcasting: weight batch = i2/r2, i3/r3).
struct Batch {
  const char* w;
  const char* x;
  char* o;
};

__device__ inline Batch BatchOf(const Dev4& w, const Dev4& x, const Dev4& o, int64_t b) {
  int64_t i2 = b % x.ne[2], i3 = b / x.ne[2];
  int64_t r2 = x.ne[2] / w.ne[2], r3 = x.ne[3] / w.ne[3];
  return {w.data + (i2 / r2) * w.nb[2] + (i3 / r3) * w.nb[3], x.data + i2 * x.nb[2] + i3 * x.nb[3],
          o.data + i2 * o.nb[2] + i3 * o.nb[3]};
}

template <typename T>
__device__ inline float ToF(T v) {
  if constexpr (sizeof(T) == 4) return v;
  else if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else return __bfloat162float(v);
}

// A warp per output row n (8 per block), every column m < M at once.
template <typename T>
__global__ void GemvKernel(Dev4 w, Dev4 x, Dev4 o) {
  int64_t n = blockIdx.x * 8 + threadIdx.x / 32, K = w.ne[0], M = x.ne[1];
  if (n >= w.ne[1]) return;
  Batch b = BatchOf(w, x, o, blockIdx.y);
  const T* wr = reinterpret_cast<const T*>(b.w + n * w.nb[1]);
  float acc[kGemvMaxM] = {};
  for (int64_t k = threadIdx.x % 32; k < K; k += 32) {
    float wk = ToF(wr[k]);
    for (int m = 0; m < kGemvMaxM && m < M; ++m) acc[m] += wk * reinterpret_cast<const float*>(b.x + m * x.nb[1])[k];
  }
  for (int m = 0; m < kGemvMaxM && m < M; ++m) {
    float v = acc[m];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0) reinterpret_cast<float*>(b.o + m * o.nb[1])[n] = v;
  }
}

// The same with 16-byte loads: each lane reads 8 halves (or 4 floats) of a weight row and the
// matching activations at once (rows 16-byte aligned, K a multiple of the vector width).
template <typename T>
__global__ void GemvVecKernel(Dev4 w, Dev4 x, Dev4 o) {
  constexpr int kPer = 16 / sizeof(T);
  int64_t n = blockIdx.x * 8 + threadIdx.x / 32, M = x.ne[1];
  if (n >= w.ne[1]) return;
  Batch b = BatchOf(w, x, o, blockIdx.y);
  const uint4* wr = reinterpret_cast<const uint4*>(b.w + n * w.nb[1]);
  float acc[kGemvMaxM] = {};
  for (int64_t v = threadIdx.x % 32; v < w.ne[0] / kPer; v += 32) {
    uint4 raw = wr[v];
    const T* wv = reinterpret_cast<const T*>(&raw);
    for (int m = 0; m < kGemvMaxM && m < M; ++m) {
      const float4* xv = reinterpret_cast<const float4*>(b.x + m * x.nb[1]) + v * kPer / 4;
      for (int q = 0; q < kPer / 4; ++q) {
        float4 xx = xv[q];
        acc[m] += ToF(wv[4 * q]) * xx.x + ToF(wv[4 * q + 1]) * xx.y + ToF(wv[4 * q + 2]) * xx.z + ToF(wv[4 * q + 3]) * xx.w;
      }
    }
  }
  for (int m = 0; m < kGemvMaxM && m < M; ++m) {
    float sum = acc[m];
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    if (threadIdx.x % 32 == 0) reinterpret_cast<float*>(b.o + m * o.nb[1])[n] = sum;
  }
}

// Whether every row GemvVecKernel reads starts on a 16-byte boundary and holds whole vectors.
bool VectorRows(const Dev4& w, const Dev4& x, size_t elem) {
  auto aligned = [](const Dev4& t) {
    return reinterpret_cast<uintptr_t>(t.data) % 16 == 0 && t.nb[1] % 16 == 0 && t.nb[2] % 16 == 0 && t.nb[3] % 16 == 0;
  };
  return w.ne[0] % static_cast<int64_t>(16 / elem) == 0 && aligned(w) && aligned(x);
}

// 64×64 outputs per block of 256 threads, 4×4 per thread (strided by 16 to spread banks).
__global__ void TiledF32Kernel(Dev4 w, Dev4 x, Dev4 o) {
  __shared__ float ws[16][64 + 1], xs[16][64 + 1];
  int64_t K = w.ne[0], N = w.ne[1], M = x.ne[1], n0 = blockIdx.x * 64, m0 = blockIdx.y * 64;
  Batch b = BatchOf(w, x, o, blockIdx.z);
  int tid = threadIdx.x, tn = tid % 16, tm = tid / 16;
  float acc[4][4] = {};
  for (int64_t k0 = 0; k0 < K; k0 += 16) {
    for (int e = tid; e < 64 * 16; e += 256) {
      int kk = e % 16, r = e / 16;
      bool kin = k0 + kk < K;
      ws[kk][r] = kin && n0 + r < N ? reinterpret_cast<const float*>(b.w + (n0 + r) * w.nb[1])[k0 + kk] : 0.0f;
      xs[kk][r] = kin && m0 + r < M ? reinterpret_cast<const float*>(b.x + (m0 + r) * x.nb[1])[k0 + kk] : 0.0f;
    }
    __syncthreads();
    for (int kk = 0; kk < 16; ++kk) {
      float wv[4], xv[4];
      for (int i = 0; i < 4; ++i) wv[i] = ws[kk][tn + 16 * i], xv[i] = xs[kk][tm + 16 * i];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += wv[i] * xv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      int64_t n = n0 + tn + 16 * i, m = m0 + tm + 16 * j;
      if (n < N && m < M) reinterpret_cast<float*>(b.o + m * o.nb[1])[n] = acc[i][j];
    }
  }
}

// 64×64 outputs per block of 4 warps, each warp 32×32 as 2×2 m16n16k16 fragments. As is
// Wᵀ (row n, along k), Bs is X (column m, along k), Cs the f32 tile (column m, along n).
template <typename T>
__global__ void WmmaKernel(Dev4 w, Dev4 x, Dev4 o) {
  using namespace nvcuda;
  __shared__ __align__(32) T as[64][40];
  __shared__ __align__(32) T bs[64][40];
  __shared__ __align__(32) float cs[64][68];
  int64_t K = w.ne[0], N = w.ne[1], M = x.ne[1], n0 = blockIdx.x * 64, m0 = blockIdx.y * 64;
  Batch b = BatchOf(w, x, o, blockIdx.z);
  int tid = threadIdx.x, warp = tid / 32, wn = warp % 2, wm = warp / 2;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[2][2];
  for (auto& row : c)
    for (auto& f : row) wmma::fill_fragment(f, 0.0f);
  for (int64_t k0 = 0; k0 < K; k0 += 32) {
    for (int e = tid; e < 64 * 32; e += 128) {
      int kk = e % 32, r = e / 32;
      bool kin = k0 + kk < K;
      as[r][kk] = kin && n0 + r < N ? reinterpret_cast<const T*>(b.w + (n0 + r) * w.nb[1])[k0 + kk] : T(0.0f);
      bs[r][kk] = T(kin && m0 + r < M ? reinterpret_cast<const float*>(b.x + (m0 + r) * x.nb[1])[k0 + kk] : 0.0f);
    }
    __syncthreads();
    for (int kk = 0; kk < 32; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> af[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> bf[2];
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(af[i], &as[wn * 32 + i * 16][kk], 40);
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(bf[j], &bs[wm * 32 + j * 16][kk], 40);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::mma_sync(c[i][j], af[i], bf[j], c[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) wmma::store_matrix_sync(&cs[wm * 32 + j * 16][wn * 32 + i * 16], c[i][j], 68, wmma::mem_col_major);
  __syncthreads();
  for (int e = tid; e < 64 * 64; e += 128) {
    int64_t r = e / 64, col = e % 64;
    if (n0 + col < N && m0 + r < M) reinterpret_cast<float*>(b.o + (m0 + r) * o.nb[1])[n0 + col] = cs[r][col];
  }
}

template <typename T>
cudaError_t Launch(const Dev4& w, const Dev4& x, const Dev4& o, cudaStream_t stream) {
  unsigned batches = static_cast<unsigned>(x.ne[2] * x.ne[3]);
  if (x.ne[1] <= kGemvMaxM) {
    dim3 grid(static_cast<unsigned>((w.ne[1] + 7) / 8), batches);
    if (VectorRows(w, x, sizeof(T))) GemvVecKernel<T><<<grid, 256, 0, stream>>>(w, x, o);
    else GemvKernel<T><<<grid, 256, 0, stream>>>(w, x, o);
  } else {
    dim3 grid(static_cast<unsigned>((w.ne[1] + 63) / 64), static_cast<unsigned>((x.ne[1] + 63) / 64), batches);
    if constexpr (sizeof(T) == 4) TiledF32Kernel<<<grid, 256, 0, stream>>>(w, x, o);
    else WmmaKernel<T><<<grid, 128, 0, stream>>>(w, x, o);
  }
  return cudaGetLastError();
}

// Rounds x (f32, rows of K) into a contiguous K×M matrix of T per batch for cuBLAS.
template <typename T>
__global__ void RoundKernel(Dev4 x, int64_t batch, T* out) {
  int64_t K = x.ne[0], n = K * x.ne[1];
  const char* base = x.data + (batch % x.ne[2]) * x.nb[2] + (batch / x.ne[2]) * x.nb[3];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = T(reinterpret_cast<const float*>(base + (i / K) * x.nb[1])[i % K]);
  }
}

}  // namespace

cudaError_t LaunchMatmul(const Op& op, cudaStream_t stream) {
  Dev4 w = ToDev4(*op.src[0]), x = ToDev4(*op.src[1]), o = ToDev4(*op.out);
  if (w.dtype == 1) return Launch<__half>(w, x, o, stream);
  if (w.dtype == 2) return Launch<__nv_bfloat16>(w, x, o, stream);
  return Launch<float>(w, x, o, stream);
}

const char* CublasMatmul(const Op& op, cublasHandle_t handle, cudaStream_t stream, void* scratch) {
  const Tensor &w = *op.src[0], &x = *op.src[1], &o = *op.out;
  int K = static_cast<int>(w.ne[0]), N = static_cast<int>(w.ne[1]), M = static_cast<int>(x.ne[1]);
  int ldw = static_cast<int>(w.nb[1] / BlockBytes(w.dtype)), ldx = static_cast<int>(x.nb[1] / 4), ldo = static_cast<int>(o.nb[1] / 4);
  const float one = 1, zero = 0;
  if (cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS) return "cublasSetStream failed";
  for (int64_t bi = 0; bi < x.ne[2] * x.ne[3]; ++bi) {
    int64_t i2 = bi % x.ne[2], i3 = bi / x.ne[2];
    const char* wb = static_cast<const char*>(w.data) + (i2 / (x.ne[2] / w.ne[2])) * w.nb[2] + (i3 / (x.ne[3] / w.ne[3])) * w.nb[3];
    const char* xb = static_cast<const char*>(x.data) + i2 * x.nb[2] + i3 * x.nb[3];
    char* ob = static_cast<char*>(o.data) + i2 * o.nb[2] + i3 * o.nb[3];
    cublasStatus_t s;
    if (w.dtype == DType::kF32) {
      s = cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, reinterpret_cast<const float*>(wb), ldw,
                      reinterpret_cast<const float*>(xb), ldx, &zero, reinterpret_cast<float*>(ob), ldo);
    } else {
      Dev4 xd = ToDev4(x);
      cudaDataType type = w.dtype == DType::kF16 ? CUDA_R_16F : CUDA_R_16BF;
      if (w.dtype == DType::kF16) RoundKernel<__half><<<Blocks(int64_t{K} * M, 256), 256, 0, stream>>>(xd, bi, static_cast<__half*>(scratch));
      else RoundKernel<__nv_bfloat16><<<Blocks(int64_t{K} * M, 256), 256, 0, stream>>>(xd, bi, static_cast<__nv_bfloat16*>(scratch));
      s = cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, wb, type, ldw, scratch, type, K, &zero, ob,
                       CUDA_R_32F, ldo, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    }
    if (s != CUBLAS_STATUS_SUCCESS) return cublasGetStatusString(s);
  }
  return "";
}

}  // namespace vt::cuda
