// Quantization to ggml's block formats for fixture files: round to nearest per block, with
// per-sub-block scales (and mins) for the K-quants, and the scales themselves rounded as ggml
// stores them. Not llama-quantize's error-minimising search: a fixture needs valid blocks
// that every engine decodes the same way, and dequantization is what tests compare.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/quant_blocks.h"
#include "vt/quant.h"

namespace vt {
namespace {

void PutHalf(uint8_t* p, float v) {
  uint16_t h = F32ToF16(v);
  std::memcpy(p, &h, 2);
}

int Nearest(float v, int lo, int hi) { return std::clamp(static_cast<int>(std::lround(v)), lo, hi); }

// Q4_0, Q5_0, Q8_0: a signed scale; Q4_1, Q5_1: scale and min. Levels 0..(2^bits - 1).
void Simple(DType t, const float* x, uint8_t* b) {
  bool with_min = t == DType::kQ4_1 || t == DType::kQ5_1;
  int levels = t == DType::kQ8_0 ? 255 : (t == DType::kQ5_0 || t == DType::kQ5_1) ? 31 : 15;
  float lo = *std::min_element(x, x + 32), hi = *std::max_element(x, x + 32);
  float amax = std::max(std::fabs(lo), std::fabs(hi));
  float d = with_min ? (hi - lo) / static_cast<float>(levels) : amax / static_cast<float>(levels / 2);
  float m = with_min ? lo : 0.0f;
  int zero = with_min ? 0 : levels / 2 + 1;  // stored q = value + zero (8 for Q4_0, 16 for Q5_0)
  if (t == DType::kQ8_0) zero = 0;
  PutHalf(b, d);
  if (with_min) PutHalf(b + 2, m);
  d = F16ToF32(F32ToF16(d));
  m = F16ToF32(F32ToF16(m));
  float inv = d != 0 ? 1.0f / d : 0.0f;
  int q[32];
  for (int j = 0; j < 32; ++j) q[j] = t == DType::kQ8_0 ? Nearest(x[j] * inv, -127, 127) : Nearest((x[j] - m) * inv + static_cast<float>(zero), 0, levels);
  uint8_t* p = b + (with_min ? 4 : 2);
  if (t == DType::kQ8_0) {
    for (int j = 0; j < 32; ++j) p[j] = static_cast<uint8_t>(static_cast<int8_t>(q[j]));
    return;
  }
  if (levels == 31) {
    uint32_t qh = 0;
    for (int j = 0; j < 32; ++j) qh |= static_cast<uint32_t>((q[j] >> 4) & 1) << j;
    std::memcpy(p, &qh, 4);
    p += 4;
  }
  for (int j = 0; j < 16; ++j) p[j] = static_cast<uint8_t>((q[j] & 0xF) | ((q[j + 16] & 0xF) << 4));
}

// Sub-block scales (and mins) quantized against a super-block scale: ls = round(s / d) in
// [0, smax]; returns the super-block scale as stored (f16).
float SuperScale(const float* s, int n, int smax, int* ls, uint8_t* where) {
  float top = *std::max_element(s, s + n);
  float d = top / static_cast<float>(smax);
  PutHalf(where, d);
  d = F16ToF32(F32ToF16(d));
  for (int i = 0; i < n; ++i) ls[i] = d > 0 ? Nearest(s[i] / d, 0, smax) : 0;
  return d;
}

// Q2_K, Q4_K, Q5_K: sub-blocks with a scale and a min: x ≈ d·ls·q − dmin·lm, q in [0, qmax].
struct ScaleMin {
  int ls[16], lm[16];
  float d, dmin;
};
ScaleMin AsymmetricScales(const float* x, int subs, int qmax, int smax, uint8_t* d_at, uint8_t* dmin_at) {
  int len = 256 / subs;
  float scale[16], neg_min[16];
  for (int i = 0; i < subs; ++i) {
    float lo = std::min(0.0f, *std::min_element(x + i * len, x + (i + 1) * len));
    float hi = *std::max_element(x + i * len, x + (i + 1) * len);
    scale[i] = (hi - lo) / static_cast<float>(qmax);
    neg_min[i] = -lo;
  }
  ScaleMin r{};
  r.d = SuperScale(scale, subs, smax, r.ls, d_at);
  r.dmin = SuperScale(neg_min, subs, smax, r.lm, dmin_at);
  return r;
}

int Level(float x, float d, int ls, float dmin, int lm, int qmax) {
  float step = d * static_cast<float>(ls);
  return step > 0 ? Nearest((x + dmin * static_cast<float>(lm)) / step, 0, qmax) : 0;
}

void Q2_K(const float* x, uint8_t* b) {
  ScaleMin s = AsymmetricScales(x, 16, 3, 15, b + 80, b + 82);
  for (int i = 0; i < 16; ++i) b[i] = static_cast<uint8_t>(s.ls[i] | (s.lm[i] << 4));
  uint8_t* qs = b + 16;
  std::memset(qs, 0, 64);
  for (int e = 0; e < 256; ++e) {
    int q = Level(x[e], s.d, s.ls[e / 16], s.dmin, s.lm[e / 16], 3);
    int half = e / 128, j = (e % 128) / 32, l = e % 32;
    qs[half * 32 + l] |= static_cast<uint8_t>(q << (2 * j));
  }
}

void Q45_K(const float* x, uint8_t* b, bool five) {
  int qmax = five ? 31 : 15;
  ScaleMin s = AsymmetricScales(x, 8, qmax, 63, b, b + 2);
  quant::PackScaleMinK4(s.ls, s.lm, b + 4);
  uint8_t* qh = five ? b + 16 : nullptr;
  uint8_t* qs = b + (five ? 48 : 16);
  if (qh) std::memset(qh, 0, 32);
  std::memset(qs, 0, 128);
  for (int e = 0; e < 256; ++e) {
    int q = Level(x[e], s.d, s.ls[e / 32], s.dmin, s.lm[e / 32], qmax);
    int chunk = e / 64, upper = (e % 64) / 32, l = e % 32;
    qs[chunk * 32 + l] |= static_cast<uint8_t>((q & 0xF) << (4 * upper));
    if (qh && (q & 16)) qh[l] |= static_cast<uint8_t>(1 << (2 * chunk + upper));
  }
}

// Q3_K and Q6_K: sub-blocks of 16 with a signed scale: x ≈ d·ls·q.
// Each sub-block of 16's scale: its largest magnitude over the top level `qmax`; then those
// scales against the super-block's (written at `d_at`): returns d, fills ls.
float SymmetricScales(const float* x, float qmax, int smax, int ls[16], uint8_t* d_at) {
  float s[16];
  for (int i = 0; i < 16; ++i) {
    float amax = 0;
    for (int l = 0; l < 16; ++l) amax = std::max(amax, std::fabs(x[16 * i + l]));
    s[i] = amax / qmax;
  }
  return SuperScale(s, 16, smax, ls, d_at);
}

void Q3_K(const float* x, uint8_t* b) {
  int ls[16];
  float d = SymmetricScales(x, 4.0f, 31, ls, b + 108);
  uint8_t *hmask = b, *qs = b + 32, *sc = b + 96;
  std::memset(b, 0, 108);
  for (int i = 0; i < 16; ++i) {
    int v = ls[i] + 32, g = i / 4, k = i % 4;
    sc[(g % 2) * 4 + k] |= static_cast<uint8_t>((v & 0xF) << (g < 2 ? 0 : 4));
    sc[8 + k] |= static_cast<uint8_t>((v >> 4) << (2 * g));
  }
  for (int e = 0; e < 256; ++e) {
    float step = d * static_cast<float>(ls[e / 16]);
    int u = (step > 0 ? Nearest(x[e] / step, -4, 3) : 0) + 4;
    int half = e / 128, j = (e % 128) / 32, l = e % 32;
    qs[half * 32 + l] |= static_cast<uint8_t>((u & 3) << (2 * j));
    if (u & 4) hmask[l] |= static_cast<uint8_t>(1 << (4 * half + j));
  }
}

void Q6_K(const float* x, uint8_t* b) {
  int ls[16];
  float d = SymmetricScales(x, 31.0f, 127, ls, b + 208);
  uint8_t *ql = b, *qh = b + 128;
  std::memset(b, 0, 208);
  for (int i = 0; i < 16; ++i) b[192 + i] = static_cast<uint8_t>(static_cast<int8_t>(ls[i]));
  for (int e = 0; e < 256; ++e) {
    float step = d * static_cast<float>(ls[e / 16]);
    int u = (step > 0 ? Nearest(x[e] / step, -32, 31) : 0) + 32;
    int half = e / 128, r = e % 128, group = r / 32, l = r % 32;  // group: q1..q4 of ggml's loop
    ql[half * 64 + l + 32 * (group % 2)] |= static_cast<uint8_t>((u & 0xF) << (4 * (group / 2)));
    qh[half * 32 + l] |= static_cast<uint8_t>((u >> 4) << (2 * group));
  }
}

// MXFP4 as ggml's quantize_row_mxfp4_ref: the scale the power of two that puts the block's
// largest magnitude at 4..8 (of 6's doubled 12), each value the nearest of the 16 (the first
// on ties, as its search keeps the first best).
void Mxfp4(const float* x, uint8_t* b) {
  float amax = 0;
  for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
  const uint8_t e = amax > 0 ? static_cast<uint8_t>(std::floor(std::log2(amax)) - 2 + 127) : 0;
  const float d = quant::E8M0Half(e);
  b[0] = e;
  auto nearest = [&](float v) {
    unsigned best = 0;
    float err = std::fabs(static_cast<float>(quant::Mxfp4Value(0)) * d - v);
    for (unsigned i = 1; i < 16; ++i) {
      float e_i = std::fabs(static_cast<float>(quant::Mxfp4Value(i)) * d - v);
      if (e_i < err) {
        best = i;
        err = e_i;
      }
    }
    return best;
  };
  for (int j = 0; j < 16; ++j) b[1 + j] = static_cast<uint8_t>(nearest(x[j]) | nearest(x[j + 16]) << 4);
}

}  // namespace

void QuantizeRowQ8_0Ggml(const float* src, void* dst, int64_t n) {
  uint8_t* b = static_cast<uint8_t*>(dst);
  for (int64_t i = 0; i < n / 32; ++i, b += 34) {
    const float* x = src + 32 * i;
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
    PutHalf(b, d);
    for (int j = 0; j < 32; ++j) b[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::nearbyint(x[j] * id)));  // ties to even
  }
}

Status QuantizeRow(DType t, const float* src, void* dst, int64_t n) {
  if (!IsQuantized(t)) return Status(StatusCode::kInvalidArgument, std::string(DTypeName(t)) + " is not a block type");
  const int64_t bs = BlockSize(t);
  if (n % bs != 0) {
    return Status(StatusCode::kInvalidArgument, "a row of " + std::to_string(n) + " is not a multiple of " +
                                                    std::string(DTypeName(t)) + "'s block of " + std::to_string(bs));
  }
  uint8_t* b = static_cast<uint8_t*>(dst);
  for (int64_t i = 0; i < n / bs; ++i, b += BlockBytes(t)) {
    const float* x = src + i * bs;
    switch (t) {
      case DType::kQ2_K: Q2_K(x, b); break;
      case DType::kQ3_K: Q3_K(x, b); break;
      case DType::kQ4_K: Q45_K(x, b, false); break;
      case DType::kQ5_K: Q45_K(x, b, true); break;
      case DType::kQ6_K: Q6_K(x, b); break;
      case DType::kMXFP4: Mxfp4(x, b); break;
      default: Simple(t, x, b); break;
    }
  }
  return Status();
}

}  // namespace vt
