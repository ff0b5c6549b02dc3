// out = a / sqrt(mean(a²) + eps) per row: a workgroup per row (grid-stride over rows), the sum
// of squares reduced in shared memory. In place works: each element is read, then written, by
// the same invocation.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer O { float o[]; };
layout(push_constant) uniform Params {
  uint ne0, ne1, ne2, rows;
  uint a_off, a1, a2, a3;
  uint o_off, o1, o2, o3;
  float eps;
} p;

shared float partial[128];

void main() {
  uint tid = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
    uint i1 = row % p.ne1, r = row / p.ne1, i2 = r % p.ne2, i3 = r / p.ne2;
    uint ab = p.a_off + i1 * p.a1 + i2 * p.a2 + i3 * p.a3;
    uint ob = p.o_off + i1 * p.o1 + i2 * p.o2 + i3 * p.o3;
    float ss = 0.0;
    for (uint i = tid; i < p.ne0; i += 128u) ss += a[ab + i] * a[ab + i];
    partial[tid] = ss;
    barrier();
    for (uint s = 64u; s > 0u; s >>= 1) {
      if (tid < s) partial[tid] += partial[tid + s];
      barrier();
    }
    float inv = inversesqrt(partial[0] / float(p.ne0) + p.eps);
    barrier();  // everyone has read partial[0] before the next row writes it
    for (uint i = tid; i < p.ne0; i += 128u) o[ob + i] = a[ab + i] * inv;
  }
}
