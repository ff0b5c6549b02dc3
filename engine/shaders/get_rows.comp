// out[K, n] = table[K, V] rows ids[n]: one invocation per output element (grid-stride). The
// table is read through weights.glsl (f32, f16, bf16, or a block type addressed in bytes).
#version 450
#extension GL_GOOGLE_include_directive : enable
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer T { uint w[]; };
layout(std430, binding = 1) readonly buffer I { int ids[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
layout(push_constant) uniform Params {
  uint K, n, ttype, t_off, t1, id_off, o_off, o1;
} p;

#include "weights.glsl"

void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.K * p.n; i += gl_NumWorkGroups.x * 256u) {
    uint k = i % p.K, row = i / p.K;
    uint id = uint(ids[p.id_off + row]);
    o[p.o_off + k + row * p.o1] = WeightAt(p.t_off + id * p.t1, k, p.ttype);
  }
}
