// out = softmax(a * scale + mask) per row, mask optional ([ne0, ne1], row i1): a workgroup per
// row, max and sum reduced in shared memory. A row that is all -inf gives zeros (the
// reference's choice). In place works: each element is read, then written, by one invocation.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer M { float mask[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
layout(push_constant) uniform Params {
  uint ne0, ne1, ne2, rows;
  uint a_off, a1, a2, a3;
  uint o_off, o1, o2, o3;
  uint m_off, m1, has_mask;
  float scale;
} p;

shared float partial[128];
#define kNegInf uintBitsToFloat(0xff800000u)

float Logit(uint ab, uint mb, uint i) {
  return a[ab + i] * p.scale + (p.has_mask != 0u ? mask[mb + i] : 0.0);
}

// Reduces partial[] to partial[0] by max (op 0) or sum (op 1).
void Reduce(uint tid, uint op) {
  barrier();
  for (uint s = 64u; s > 0u; s >>= 1) {
    if (tid < s) partial[tid] = op == 0u ? max(partial[tid], partial[tid + s]) : partial[tid] + partial[tid + s];
    barrier();
  }
}

void main() {
  uint tid = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
    uint i1 = row % p.ne1, r = row / p.ne1, i2 = r % p.ne2, i3 = r / p.ne2;
    uint ab = p.a_off + i1 * p.a1 + i2 * p.a2 + i3 * p.a3;
    uint ob = p.o_off + i1 * p.o1 + i2 * p.o2 + i3 * p.o3;
    uint mb = p.m_off + i1 * p.m1;
    float mx = kNegInf;
    for (uint i = tid; i < p.ne0; i += 128u) mx = max(mx, Logit(ab, mb, i));
    partial[tid] = mx;
    Reduce(tid, 0u);
    mx = partial[0];
    barrier();
    float sum = 0.0;
    if (mx != kNegInf) {
      for (uint i = tid; i < p.ne0; i += 128u) sum += exp(Logit(ab, mb, i) - mx);
    }
    partial[tid] = sum;
    Reduce(tid, 1u);
    float inv = partial[0] > 0.0 ? 1.0 / partial[0] : 0.0;
    barrier();
    for (uint i = tid; i < p.ne0; i += 128u) {
      o[ob + i] = mx == kNegInf ? 0.0 : exp(Logit(ab, mb, i) - mx) * inv;
    }
  }
}
