// out[n, m, i2, i3] = sum_k w[k, n, i2 / r2, i3 / r3] * x[k, m, i2, i3] for M > 8: a workgroup
// of 256 computes a 64×64 tile of outputs, 4×4 per invocation (strided by 16 so shared-memory
// reads spread over banks), through 16-deep slices of weights and activations staged in
// shared memory (weights unpacked to f32 as they are staged). f32 accumulation.
#version 450
#extension GL_GOOGLE_include_directive : enable
layout(local_size_x = 256) in;
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

shared float ws[16][65];
shared float xs[16][65];

void main() {
  uint tid = gl_LocalInvocationID.x, tn = tid % 16u, tm = tid / 16u;
  uint tiles_n = (p.N + 63u) / 64u, tiles_m = (p.M + 63u) / 64u;
  for (uint job = gl_WorkGroupID.x; job < tiles_n * tiles_m * p.ne2 * p.ne3; job += gl_NumWorkGroups.x) {
    uint n0 = (job % tiles_n) * 64u, r = job / tiles_n;
    uint m0 = (r % tiles_m) * 64u, b = r / tiles_m, i2 = b % p.ne2, i3 = b / p.ne2;
    uint wb = p.w_off + (i2 / p.r2) * p.w2 + (i3 / p.r3) * p.w3;
    uint xb = p.x_off + i2 * p.x2 + i3 * p.x3;
    float acc[4][4];
    for (uint i = 0u; i < 4u; ++i)
      for (uint j = 0u; j < 4u; ++j) acc[i][j] = 0.0;
    for (uint k0 = 0u; k0 < p.K; k0 += 16u) {
      for (uint e = tid; e < 1024u; e += 256u) {
        uint kk = e % 16u, row = e / 16u;
        bool kin = k0 + kk < p.K;
        ws[kk][row] = kin && n0 + row < p.N ? WeightAt(wb + (n0 + row) * p.w1, k0 + kk, p.wtype) : 0.0;
        xs[kk][row] = kin && m0 + row < p.M ? x[xb + (m0 + row) * p.x1 + k0 + kk] : 0.0;
      }
      barrier();
      for (uint kk = 0u; kk < 16u; ++kk) {
        float wv[4], xv[4];
        for (uint i = 0u; i < 4u; ++i) {
          wv[i] = ws[kk][tn + 16u * i];
          xv[i] = xs[kk][tm + 16u * i];
        }
        for (uint i = 0u; i < 4u; ++i)
          for (uint j = 0u; j < 4u; ++j) acc[i][j] += wv[i] * xv[j];
      }
      barrier();
    }
    for (uint i = 0u; i < 4u; ++i) {
      for (uint j = 0u; j < 4u; ++j) {
        uint n = n0 + tn + 16u * i, m = m0 + tm + 16u * j;
        if (n < p.N && m < p.M) o[p.o_off + n + m * p.o1 + i2 * p.o2 + i3 * p.o3] = acc[i][j];
      }
    }
  }
}
