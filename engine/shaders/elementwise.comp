// out = f(a, b) elementwise over a 4-d f32 tensor: Add, Mul (b broadcast by index modulo its
// shape), Scale, Silu, Swiglu, Geglu, SwigluOai. Offsets and strides are in elements (rows are contiguous).
// Grid-stride: any element count runs in at most 65535 workgroups.
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
layout(push_constant) uniform Params {
  uint ne0, ne1, ne2, ne3;       // output shape
  uint a_off, a1, a2, a3;        // a: first element and row strides
  uint b_off, b1, b2, b3;
  uint o_off, o1, o2, o3;
  uint bne0, bne1, bne2, bne3;   // b's shape, for broadcasting
  uint op;                       // 0 add, 1 mul, 2 scale, 3 silu, 4 swiglu, 5 geglu, 6 swiglu_oai
  float scale, alpha, limit;
} p;

void main() {
  uint total = p.ne0 * p.ne1 * p.ne2 * p.ne3;
  for (uint i = gl_GlobalInvocationID.x; i < total; i += gl_NumWorkGroups.x * 256u) {
    uint i0 = i % p.ne0, r = i / p.ne0;
    uint i1 = r % p.ne1;
    r /= p.ne1;
    uint i2 = r % p.ne2, i3 = r / p.ne2;
    float x = a[p.a_off + i0 + i1 * p.a1 + i2 * p.a2 + i3 * p.a3];
    float y = 0.0;
    if (p.op == 0u || p.op == 1u || p.op >= 4u) {
      y = b[p.b_off + i0 % p.bne0 + (i1 % p.bne1) * p.b1 + (i2 % p.bne2) * p.b2 + (i3 % p.bne3) * p.b3];
    }
    float v;
    if (p.op == 0u) v = x + y;
    else if (p.op == 1u) v = x * y;
    else if (p.op == 2u) v = x * p.scale;
    else if (p.op == 3u) v = x / (1.0 + exp(-x));
    else if (p.op == 4u) v = x / (1.0 + exp(-x)) * y;
    else if (p.op == 5u) v = x / (1.0 + exp(-1.5957691216057308 * x * (1.0 + 0.044715 * x * x))) * y;  // gelu_tanh = x·σ(2u)
    else {
      float xc = min(x, p.limit);
      v = xc / (1.0 + exp(-p.alpha * xc)) * (clamp(y, -p.limit, p.limit) + 1.0);
    }
    o[p.o_off + i0 + i1 * p.o1 + i2 * p.o2 + i3 * p.o3] = v;
  }
}
