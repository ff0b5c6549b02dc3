// out = a converted between f32, f16 and bf16 (types 0, 1, 2); out is contiguous, a has
// contiguous rows. Conversions are integer arithmetic with round-to-nearest-even, the same as
// the CPU's (vt/dtype.h), so the bytes are identical. Both buffers are 32-bit words: a half
// output is written a word at a time, one invocation per word, keeping a neighbouring half
// that is not the op's (a cache slot may start or end mid-word).
#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) buffer O { uint o[]; };
layout(push_constant) uniform Params {
  uint ne0, ne1, ne2, n;
  uint a_off, a1, a2, a3;
  uint o_off, in_type, out_type;
} p;

uint F32ToF16(uint u) {
  uint sign = u & 0x80000000u;
  u ^= sign;
  uint h;
  if (u >= (127u + 16u) << 23) {               // >= 65536, inf or NaN
    h = u > (255u << 23) ? 0x7e00u | ((u >> 13) & 0x1ffu) : 0x7c00u;
  } else if (u < (113u << 23)) {               // half subnormal or zero
    uint e = u >> 23;
    if (e < 102u) {
      h = 0u;
    } else {
      uint m = (u & 0x7fffffu) | 0x800000u, s = 126u - e;
      h = (m + (1u << (s - 1u)) - 1u + ((m >> s) & 1u)) >> s;
    }
  } else {
    u += ((15u - 127u) << 23) + 0xfffu + ((u >> 13) & 1u);
    h = u >> 13;
  }
  return h | (sign >> 16);
}

uint F16ToF32(uint h) {
  uint bits = (h & 0x7fffu) << 13, e = bits & (0x7c00u << 13);
  bits += (127u - 15u) << 23;
  if (e == 0x7c00u << 13) {
    bits += (128u - 16u) << 23;
  } else if (e == 0u) {  // zero or subnormal: renormalise (exact)
    bits += 1u << 23;
    bits = floatBitsToUint(uintBitsToFloat(bits) - uintBitsToFloat(113u << 23));
  }
  return bits | (h & 0x8000u) << 16;
}

uint F32ToBF16(uint u) {
  if ((u & 0x7fffffffu) > 0x7f800000u) return (u >> 16) | 0x40u;  // quiet NaN
  return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

// Element e of a (flat, row-major over a's shape) as f32 bits.
uint Load(uint e) {
  uint i0 = e % p.ne0, r = e / p.ne0, i1 = r % p.ne1;
  r /= p.ne1;
  uint i2 = r % p.ne2, i3 = r / p.ne2;
  uint ae = p.a_off + i0 + i1 * p.a1 + i2 * p.a2 + i3 * p.a3;
  if (p.in_type == 0u) return a[ae];
  uint half_bits = (ae & 1u) == 1u ? a[ae >> 1] >> 16 : a[ae >> 1] & 0xFFFFu;
  return p.in_type == 1u ? F16ToF32(half_bits) : half_bits << 16;
}

uint Store(uint f32_bits) { return p.out_type == 1u ? F32ToF16(f32_bits) : F32ToBF16(f32_bits); }

void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  if (p.out_type == 0u) {
    for (uint e = gl_GlobalInvocationID.x; e < p.n; e += stride) o[p.o_off + e] = Load(e);
    return;
  }
  uint first = p.o_off >> 1, words = ((p.o_off + p.n + 1u) >> 1) - first;
  for (uint w = gl_GlobalInvocationID.x; w < words; w += stride) {
    uint word = o[first + w];
    for (uint h = 0u; h < 2u; ++h) {
      uint at = 2u * (first + w) + h;
      if (at < p.o_off || at >= p.o_off + p.n) continue;
      uint bits = Store(Load(at - p.o_off)) & 0xFFFFu;
      word = h == 0u ? (word & 0xFFFF0000u) | bits : (word & 0xFFFFu) | (bits << 16);
    }
    o[first + w] = word;
  }
}
