// Causal GQA attention over a KV cache: out[d, h, t] = Σ_j softmax_j(q·k_j * scale) v[d, j] for
// cache positions j < n_past + t + 1 of kv head h / (H / Hkv), and j >= n_past + t + 1 - window
// where window > 0 (a sliding window); with has_sinks, sinks[h] is one more logit in the
// softmax (in its max and sum) that weighs no value. A workgroup per (head, token);
// keys in chunks of 128 (one score per invocation, in shared memory) with an online softmax,
// so any context length fits; each invocation accumulates up to 4 output dims (head_dim ≤ 512).
// The cache is read as 32-bit words: f32 (kv_type 0), f16 pairs (1) or bf16 pairs (2). With has_rows,
// position j's key and value are row rows[j] of the cache (a paged cache's block table).
#version 450
layout(local_size_x = 128) in;
layout(std430, binding = 0) readonly buffer Q { float q[]; };
layout(std430, binding = 1) readonly buffer K { uint kc[]; };
layout(std430, binding = 2) readonly buffer V { uint vc[]; };
layout(std430, binding = 3) writeonly buffer O { float o[]; };
layout(std430, binding = 4) readonly buffer S { float sinks[]; };
layout(std430, binding = 5) readonly buffer R { uint rows[]; };
layout(push_constant) uniform Params {
  uint hd, heads, kv_heads, tokens, n_past, kv_type;
  float scale;
  uint q_off, q1, q2;
  uint k_off, k1, k2;
  uint v_off, v1, v2;
  uint o_off, o1, o2;
  uint window;
  uint has_sinks, sink_off;
  uint has_rows, rows_off;
} p;

shared float qs[512];
shared float scores[128];
#define kNegInf uintBitsToFloat(0xff800000u)

uint Row(uint j) { return p.has_rows != 0u ? rows[p.rows_off + j] : j; }

float Cache(uint e, bool is_k) {
  if (p.kv_type == 0u) return uintBitsToFloat(is_k ? kc[e] : vc[e]);
  uint word = is_k ? kc[e >> 1] : vc[e >> 1];
  uint half_bits = (e & 1u) == 1u ? word >> 16 : word & 0xFFFFu;
  return p.kv_type == 2u ? uintBitsToFloat(half_bits << 16) : unpackHalf2x16(half_bits).x;
}

void main() {
  uint tid = gl_LocalInvocationID.x;
  for (uint job = gl_WorkGroupID.x; job < p.heads * p.tokens; job += gl_NumWorkGroups.x) {
    uint h = job % p.heads, t = job / p.heads, g = h / (p.heads / p.kv_heads);
    uint n = p.n_past + t + 1u, lo = p.window > 0u && n > p.window ? n - p.window : 0u;
    for (uint d = tid; d < p.hd; d += 128u) qs[d] = q[p.q_off + d + h * p.q1 + t * p.q2];
    barrier();
    // The online softmax starts from the sink: max = sink, sum = e^0 = 1.
    float m = p.has_sinks != 0u ? sinks[p.sink_off + h] : kNegInf, l = p.has_sinks != 0u ? 1.0 : 0.0;
    float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
    for (uint c0 = lo; c0 < n; c0 += 128u) {
      uint j = c0 + tid, cn = min(128u, n - c0);
      float s = kNegInf;
      if (j < n) {
        uint kb = p.k_off + g * p.k1 + Row(j) * p.k2;
        s = 0.0;
        for (uint d = 0u; d < p.hd; ++d) s += qs[d] * Cache(kb + d, true);
        s *= p.scale;
      }
      scores[tid] = s;
      barrier();
      float cm = kNegInf;
      for (uint i = 0u; i < cn; ++i) cm = max(cm, scores[i]);
      float mn = max(m, cm), corr = exp(m - mn);
      l *= corr;
      for (uint x = 0u; x < 4u; ++x) acc[x] *= corr;
      for (uint i = 0u; i < cn; ++i) {
        float w = exp(scores[i] - mn);
        l += w;
        uint vb = p.v_off + g * p.v1 + Row(c0 + i) * p.v2;
        for (uint x = 0u; x < 4u; ++x) {
          uint d = tid + 128u * x;
          if (d < p.hd) acc[x] += w * Cache(vb + d, false);
        }
      }
      m = mn;
      barrier();  // scores are read before the next chunk writes them
    }
    for (uint x = 0u; x < 4u; ++x) {
      uint d = tid + 128u * x;
      if (d < p.hd) o[p.o_off + d + h * p.o1 + t * p.o2] = acc[x] / l;
    }
    barrier();  // qs is read before the next job writes it
  }
}
