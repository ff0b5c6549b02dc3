// Weights as 32-bit words, unpacked by dtype (0 f32, 1 f16, 2 bf16): element e of the buffer
// `w` (declared by the including shader) in weight elements. Included by the matmul shaders.
float Weight(uint e, uint wtype) {
  if (wtype == 0u) return uintBitsToFloat(w[e]);
  uint word = w[e >> 1], bits = (e & 1u) == 1u ? word >> 16 : word & 0xFFFFu;
  if (wtype == 1u) return unpackHalf2x16(bits).x;
  return uintBitsToFloat(bits << 16);
}
