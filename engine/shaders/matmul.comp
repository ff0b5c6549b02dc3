// out[n, m, i2, i3] = sum_k w[k, n, i2 / r2, i3 / r3] * x[k, m, i2, i3]: ggml's matmul, one
// invocation per output (grid-stride), f32 accumulation. Weights are read as 32-bit words and
// unpacked by dtype (0 f32, 1 f16, 2 bf16); offsets and strides count weight elements / floats.
#version 450
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

float Weight(uint e) {
  if (p.wtype == 0u) return uintBitsToFloat(w[e]);
  uint word = w[e >> 1], bits = (e & 1u) == 1u ? word >> 16 : word & 0xFFFFu;
  if (p.wtype == 1u) return unpackHalf2x16(bits).x;
  return uintBitsToFloat(bits << 16);
}

void main() {
  uint total = p.N * p.M * p.ne2 * p.ne3;
  for (uint i = gl_GlobalInvocationID.x; i < total; i += gl_NumWorkGroups.x * 256u) {
    uint n = i % p.N, r = i / p.N;
    uint m = r % p.M;
    r /= p.M;
    uint i2 = r % p.ne2, i3 = r / p.ne2;
    uint wb = p.w_off + n * p.w1 + (i2 / p.r2) * p.w2 + (i3 / p.r3) * p.w3;
    uint xb = p.x_off + m * p.x1 + i2 * p.x2 + i3 * p.x3;
    float sum = 0.0;
    for (uint k = 0u; k < p.K; ++k) sum += Weight(wb + k) * x[xb + k];
    o[p.o_off + n + m * p.o1 + i2 * p.o2 + i3 * p.o3] = sum;
  }
}
