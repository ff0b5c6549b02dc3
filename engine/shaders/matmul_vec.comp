// out[n, m, i2, i3] = sum_k w[k, n, i2 / r2, i3 / r3] * x[k, m, i2, i3] for M <= 8 (decode):
// a workgroup per output row n and batch, its 64 invocations striding k (each weight read
// once for every column), partial sums reduced in shared memory. f32 accumulation.
#version 450
#extension GL_GOOGLE_include_directive : enable
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer W { uint w[]; };
layout(std430, binding = 1) readonly buffer X { float x[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
layout(push_constant) uniform Params {
  uint K, N, M, ne2, ne3, r2, r3, wtype;
  uint w_off, w1, w2, w3;
  uint x_off, x1, x2, x3;
  uint o_off, o1, o2, o3;
} p;

#include "weights.glsl"

shared float partial[8][64];

void main() {
  uint tid = gl_LocalInvocationID.x;
  for (uint job = gl_WorkGroupID.x; job < p.N * p.ne2 * p.ne3; job += gl_NumWorkGroups.x) {
    uint n = job % p.N, r = job / p.N, i2 = r % p.ne2, i3 = r / p.ne2;
    uint wb = p.w_off + n * p.w1 + (i2 / p.r2) * p.w2 + (i3 / p.r3) * p.w3;
    uint xb = p.x_off + i2 * p.x2 + i3 * p.x3;
    float acc[8] = float[8](0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for (uint k = tid; k < p.K; k += 64u) {
      float wk = WeightAt(wb, k, p.wtype);
      // A constant trip count keeps acc[] in registers; columns past M are skipped.
      for (uint m = 0u; m < 8u; ++m) {
        if (m < p.M) acc[m] += wk * x[xb + m * p.x1 + k];
      }
    }
    for (uint m = 0u; m < 8u; ++m) partial[m][tid] = acc[m];
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1) {
      if (tid < s) {
        for (uint m = 0u; m < 8u; ++m) partial[m][tid] += partial[m][tid + s];
      }
      barrier();
    }
    if (tid < p.M) o[p.o_off + n + tid * p.o1 + i2 * p.o2 + i3 * p.o3] = partial[tid][0];
    barrier();  // partial[] is read before the next job writes it
  }
}
