// out[K, n] = table[K, V] rows ids[n]: one invocation per output element (grid-stride). The
// table is read as 32-bit words and unpacked by dtype (0 f32, 1 f16, 2 bf16).
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer T { uint table[]; };
layout(std430, binding = 1) readonly buffer I { int ids[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
layout(push_constant) uniform Params {
  uint K, n, ttype, t_off, t1, id_off, o_off, o1;
} p;

float Load(uint e) {
  if (p.ttype == 0u) return uintBitsToFloat(table[e]);
  uint word = table[e >> 1], bits = (e & 1u) == 1u ? word >> 16 : word & 0xFFFFu;
  if (p.ttype == 1u) return unpackHalf2x16(bits).x;
  return uintBitsToFloat(bits << 16);
}

void main() {
  for (uint i = gl_GlobalInvocationID.x; i < p.K * p.n; i += gl_NumWorkGroups.x * 256u) {
    uint k = i % p.K, row = i / p.K;
    uint id = uint(ids[p.id_off + row]);
    o[p.o_off + k + row * p.o1] = Load(p.t_off + k + id * p.t1);
  }
}
