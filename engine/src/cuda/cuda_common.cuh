// Device-side helpers shared by the kernels: element access through byte strides, dtype
// conversions with the CPU's rounding (vt/dtype.h), block reductions.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda/cuda_kernels.h"

namespace vt::cuda {

__device__ inline char* At(const Dev4& t, int64_t i0, int64_t i1, int64_t i2 = 0, int64_t i3 = 0) {
  return t.data + i0 * t.nb[0] + i1 * t.nb[1] + i2 * t.nb[2] + i3 * t.nb[3];
}

__device__ inline float LoadF(const Dev4& t, const char* p) {
  if (t.dtype == 1) return __half2float(*reinterpret_cast<const __half*>(p));
  if (t.dtype == 2) return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p));
  return *reinterpret_cast<const float*>(p);
}

// Round to nearest even in integer arithmetic, NaNs as the CPU writes them.
__device__ inline uint16_t F32ToF16Bits(float f) {
  uint32_t u = __float_as_uint(f), sign = u & 0x80000000u;
  u ^= sign;
  uint32_t h;
  if (u >= (127u + 16u) << 23) {
    h = u > (255u << 23) ? 0x7e00u | ((u >> 13) & 0x1ffu) : 0x7c00u;
  } else if (u < (113u << 23)) {
    uint32_t e = u >> 23;
    if (e < 102u) {
      h = 0;
    } else {
      uint32_t m = (u & 0x7fffffu) | 0x800000u, s = 126u - e;
      h = (m + (1u << (s - 1u)) - 1u + ((m >> s) & 1u)) >> s;
    }
  } else {
    u += ((15u - 127u) << 23) + 0xfffu + ((u >> 13) & 1u);
    h = u >> 13;
  }
  return static_cast<uint16_t>(h | (sign >> 16));
}

__device__ inline uint16_t F32ToBF16Bits(float f) {
  uint32_t u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__device__ inline void StoreF(const Dev4& t, char* p, float v) {
  if (t.dtype == 1) *reinterpret_cast<uint16_t*>(p) = F32ToF16Bits(v);
  else if (t.dtype == 2) *reinterpret_cast<uint16_t*>(p) = F32ToBF16Bits(v);
  else *reinterpret_cast<float*>(p) = v;
}

// Sum or max over a block of blockDim.x (a multiple of 32, at most 1024) threads; every
// thread gets the result. `scratch` holds 32 floats.
template <bool kMax>
__device__ inline float BlockReduce(float v, float* scratch) {
  for (int o = 16; o > 0; o >>= 1) {
    float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, other) : v + other;
  }
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  __syncthreads();  // scratch may still be read by a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : (kMax ? -INFINITY : 0.0f);
  for (int o = 16; o > 0; o >>= 1) {
    float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = kMax ? fmaxf(v, other) : v + other;
  }
  return v;
}

inline unsigned Blocks(int64_t items, int per_block) {
  int64_t b = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

}  // namespace vt::cuda
