// out[k, rows] (i32): the indices of each row's k largest values, descending, ties to the lower
// index (a stable descending sort's order). A workgroup per row; pick j is the best element
// strictly after pick j-1 in that order, found by a shared-memory argmax, so nothing is marked
// and any k up to ne0 works.
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
layout(push_constant) uniform Params {
  uint ne0, ne1, ne2, rows, k;
  uint a_off, a1, a2, a3;
  uint o_off, o1, o2, o3;
} p;

shared float best_v[128];
shared uint best_i[128];
const uint kNone = 0xFFFFFFFFu;

// (v, i) comes before (bv, bi) in the output order.
bool Before(float v, uint i, float bv, uint bi) {
  return bi == kNone || v > bv || (v == bv && i < bi);
}

void main() {
  uint tid = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
    uint i1 = row % p.ne1, r = row / p.ne1, i2 = r % p.ne2, i3 = r / p.ne2;
    uint ab = p.a_off + i1 * p.a1 + i2 * p.a2 + i3 * p.a3;
    uint ob = p.o_off + i1 * p.o1 + i2 * p.o2 + i3 * p.o3;
    float prev_v = 0.0;
    uint prev_i = kNone;
    for (uint j = 0u; j < p.k; ++j) {
      float bv = 0.0;
      uint bi = kNone;
      for (uint i = tid; i < p.ne0; i += 128u) {
        float v = a[ab + i];
        bool after = prev_i == kNone || !Before(v, i, prev_v, prev_i) && i != prev_i;
        if (after && Before(v, i, bv, bi)) {
          bv = v;
          bi = i;
        }
      }
      best_v[tid] = bv;
      best_i[tid] = bi;
      barrier();
      for (uint s = 64u; s > 0u; s >>= 1) {
        if (tid < s && Before(best_v[tid + s], best_i[tid + s], best_v[tid], best_i[tid]) && best_i[tid + s] != kNone) {
          best_v[tid] = best_v[tid + s];
          best_i[tid] = best_i[tid + s];
        }
        barrier();
      }
      prev_v = best_v[0];
      prev_i = best_i[0];
      if (tid == 0u) o[ob + j] = int(prev_i);
      barrier();  // everyone has read the pick before the next one overwrites it
    }
  }
}
