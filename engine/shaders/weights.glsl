// Weights as 32-bit words, unpacked by dtype (0 f32, 1 f16, 2 bf16): element e of the buffer
// `w` (declared by the including shader) in weight elements. Included by the matmul shaders.
float Weight(uint e, uint wtype) {
  if (wtype == 0u) return uintBitsToFloat(w[e]);
  uint word = w[e >> 1], bits = (e & 1u) == 1u ? word >> 16 : word & 0xFFFFu;
  if (wtype == 1u) return unpackHalf2x16(bits).x;
  return uintBitsToFloat(bits << 16);
}

// ggml's block types (3 Q8_0, 4 Q4_0, 5 Q4_1, 6 Q5_0, 7 Q5_1, 8 Q2_K, 9 Q3_K, 10 Q4_K, 11 Q5_K,
// 12 Q6_K, 13 MXFP4), addressed in bytes: element k of the row whose blocks start at byte `row`, decoded
// as engine/src/core/dequant.cpp decodes it (specs/quantized.md).
uint Byte(uint a) { return (w[a >> 2] >> ((a & 3u) * 8u)) & 0xFFu; }
int SignedByte(uint a) { return int(Byte(a) << 24) >> 24; }
float Half(uint a) { return unpackHalf2x16(Byte(a) | (Byte(a + 1u) << 8)).x; }
uint Word(uint a) { return Byte(a) | (Byte(a + 1u) << 8) | (Byte(a + 2u) << 16) | (Byte(a + 3u) << 24); }

// Q4_0, Q4_1, Q5_0, Q5_1: element j < 16 is the low nibble of byte j, j + 16 the high one;
// Q5_x add 16 where bit j of qh is set; _0 types are offset (8, 16), _1 types add a min.
float Weight32(uint row, uint k, uint t) {
  bool one = t == 5u || t == 7u, five = t >= 6u;
  uint head = one ? 4u : 2u, bytes = head + (five ? 4u : 0u) + 16u;
  uint b = row + (k / 32u) * bytes, j = k % 32u, qs = b + head + (five ? 4u : 0u);
  uint q = j < 16u ? Byte(qs + j) & 0xFu : Byte(qs + j - 16u) >> 4;
  if (five) q |= ((Word(b + head) >> j) & 1u) << 4;
  if (one) return Half(b) * float(q) + Half(b + 2u);
  return Half(b) * (float(q) - (five ? 16.0 : 8.0));
}

// Q2_K / Q3_K: element i = 128n + 32j + l is bits 2j..2j+1 of qs[32n + l], group i / 16.
float WeightQ23K(uint row, uint k, uint t) {
  uint i = k % 256u, n = i / 128u, j = i % 128u / 32u, l = i % 32u, g = i / 16u;
  if (t == 8u) {
    uint b = row + (k / 256u) * 84u, sc = Byte(b + g);
    float q = float((Byte(b + 16u + 32u * n + l) >> (2u * j)) & 3u);
    return Half(b + 80u) * float(sc & 0xFu) * q - Half(b + 82u) * float(sc >> 4);
  }
  uint b = row + (k / 256u) * 110u, s = b + 96u, gq = g / 4u, bq = g % 4u;
  uint low = (Byte(s + (gq % 2u) * 4u + bq) >> (gq < 2u ? 0u : 4u)) & 0xFu, high = (Byte(s + 8u + bq) >> (2u * gq)) & 3u;
  int q = int((Byte(b + 32u + 32u * n + l) >> (2u * j)) & 3u) - (((Byte(b + l) >> (4u * n + j)) & 1u) == 1u ? 0 : 4);
  return Half(b + 108u) * float(int(low | (high << 4)) - 32) * float(q);
}

// Q4_K / Q5_K: group g = i / 32 of eight, its 6-bit scale and min (ggml's get_scale_min_k4);
// element l of it is a nibble of qs[32 (g / 2) + l] (Q5_K: plus 16 for bit g of qh[l]).
float WeightQ45K(uint row, uint k, uint t) {
  bool five = t == 11u;
  uint b = row + (k / 256u) * (five ? 176u : 144u), s = b + 4u, i = k % 256u, g = i / 32u, l = i % 32u;
  uint sc = g < 4u ? Byte(s + g) & 63u : (Byte(s + g + 4u) & 0xFu) | ((Byte(s + g - 4u) >> 6) << 4);
  uint mn = g < 4u ? Byte(s + g + 4u) & 63u : (Byte(s + g + 4u) >> 4) | ((Byte(s + g) >> 6) << 4);
  uint byte = Byte(b + (five ? 48u : 16u) + 32u * (g / 2u) + l);
  uint q = (g % 2u == 0u ? byte & 0xFu : byte >> 4) + (five ? ((Byte(b + 16u + l) >> g) & 1u) * 16u : 0u);
  return Half(b) * float(sc) * float(q) - Half(b + 2u) * float(mn);
}

// Q6_K: element r = 32kq + l of half h is nibble kq / 2 of ql[64h + l + 32 (kq % 2)] with bits
// 2kq of qh[32h + l] above it, less 32; an int8 scale per 16.
float WeightQ6K(uint row, uint k) {
  uint b = row + (k / 256u) * 210u, i = k % 256u, h = i / 128u, kq = i % 128u / 32u, l = i % 32u;
  uint byte = Byte(b + 64u * h + l + 32u * (kq % 2u));
  uint top = (Byte(b + 128u + 32u * h + l) >> (2u * kq)) & 3u;
  int q = int((kq < 2u ? byte & 0xFu : byte >> 4) | (top << 4)) - 32;
  return Half(b + 208u) * float(SignedByte(b + 192u + i / 16u)) * float(q);
}

// MXFP4: an E8M0 scale (taken at half: the values are E2M1 doubled), element j < 16 the low
// nibble of byte 1 + j, j + 16 the high one.
float WeightMxfp4(uint row, uint k) {
  uint b = row + (k / 32u) * 17u, j = k % 32u, e = Byte(b);
  uint nibble = j < 16u ? Byte(b + 1u + j) & 0xFu : Byte(b + 1u + j - 16u) >> 4;
  const float magnitude[8] = float[8](0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0);
  float v = (nibble & 8u) != 0u ? -magnitude[nibble & 7u] : magnitude[nibble & 7u];
  return v * uintBitsToFloat(e < 2u ? 0x00200000u << e : (e - 1u) << 23);
}

// Element k of a weight row: `row` in elements for f32/f16/bf16, in bytes for block types.
float WeightAt(uint row, uint k, uint wtype) {
  if (wtype < 3u) return Weight(row + k, wtype);
  if (wtype == 3u) {
    uint b = row + (k / 32u) * 34u;
    return Half(b) * float(SignedByte(b + 2u + k % 32u));
  }
  if (wtype <= 7u) return Weight32(row, k, wtype);
  if (wtype <= 9u) return WeightQ23K(row, k, wtype);
  if (wtype <= 11u) return WeightQ45K(row, k, wtype);
  if (wtype == 13u) return WeightMxfp4(row, k);
  return WeightQ6K(row, k);
}
