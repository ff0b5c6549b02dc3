// llama.cpp's rope modes: a[hd, heads, T, ne3] rotated in pairs (x0, x1) by theta = pos[t] *
// freq[j] for pair j < n_dims / 2: adjacent elements (2j, 2j + 1) in mode 0, or (j, j + n_dims/2)
// in mode NEOX; the rest is copied. One invocation per pair.
// freq[j] = freq_scale * freq_base^(-2j / n_dims) / factor_j comes from the host, in double: the
// shader's pow may be tens of ULPs off, which at position 4096 is a visible angle error. The
// angle is reduced to [-pi, pi] in extended precision (p * f split exactly by fma, 2*pi in
// three parts) because sin and cos are only accurate there. In place works: both elements of
// a pair are read before either is written.
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer P { int pos[]; };
layout(std430, binding = 2) readonly buffer F { float freq[]; };
layout(std430, binding = 3) writeonly buffer O { float o[]; };
layout(push_constant) uniform Params {
  uint ne0, ne1, ne2, ne3;
  uint a_off, a1, a2, a3;
  uint o_off, o1, o2, o3;
  uint pos_off, freq_off, n_dims, neox;
  float mscale;  // RopeMagnitude: YaRN's and attn_factor's scaling of the rotated values
} p;

// theta = x * f reduced modulo 2*pi.
float Reduced(float x, float f) {
  precise float hi = x * f;
  precise float lo = fma(x, f, -hi);  // exact: x * f == hi + lo
  const float c1 = 6.28125;                  // 2*pi = c1 + c2 + c3, c1 with few bits so k*c1 is exact
  const float c2 = 0.0019353071795864769;
  const float c3 = 1.2154188766544803e-10;
  precise float k = round(hi * 0.15915494309189535);
  precise float r = ((hi - k * c1) - k * c2) - k * c3;
  return r + lo;
}

void main() {
  uint half_ne0 = p.ne0 / 2u, total = half_ne0 * p.ne1 * p.ne2 * p.ne3;
  for (uint i = gl_GlobalInvocationID.x; i < total; i += gl_NumWorkGroups.x * 256u) {
    uint j = i % half_ne0, r = i / half_ne0;
    uint head = r % p.ne1;
    r /= p.ne1;
    uint t = r % p.ne2, i3 = r / p.ne2;
    bool rotated = 2u * j < p.n_dims;
    // A NEOX pair's elements are half the rotated width apart; every other pair's are adjacent.
    uint e0 = rotated && p.neox != 0u ? j : 2u * j, step = rotated && p.neox != 0u ? p.n_dims / 2u : 1u;
    uint ai = p.a_off + e0 + head * p.a1 + t * p.a2 + i3 * p.a3;
    uint oi = p.o_off + e0 + head * p.o1 + t * p.o2 + i3 * p.o3;
    float x0 = a[ai], x1 = a[ai + step];
    if (!rotated) {
      o[oi] = x0;
      o[oi + 1u] = x1;
      continue;
    }
    float theta = Reduced(float(pos[p.pos_off + t]), freq[p.freq_off + j]);
    float c = cos(theta), s = sin(theta);
    o[oi] = p.mscale * (x0 * c - x1 * s);
    o[oi + step] = p.mscale * (x0 * s + x1 * c);
  }
}
