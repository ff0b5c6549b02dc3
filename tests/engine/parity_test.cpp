#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iterator>

#include "parity_support.h"
#include "vt/cpu_kernels.h"
#include "vt/quant.h"

namespace vt {
namespace {

using testing::IntTensor;
using testing::KernelBackends;
using testing::Parity;
using testing::RandomTensor;

std::mt19937& Rng() {
  static std::mt19937 rng(1234);
  return rng;
}

struct MatmulShape {
  int64_t m, k, n, batch, w_batch;
};

TEST(Parity, MatmulEveryWeightDtypeAndShape) {
  // Odd sizes, sizes that are not multiples of 16/32/6, batch 1 and large, broadcast weights.
  const MatmulShape shapes[] = {{1, 1, 1, 1, 1},     {1, 17, 33, 1, 1},   {2, 64, 5, 1, 1},
                                {3, 100, 70, 1, 1},  {4, 48, 64, 1, 1},   {7, 129, 65, 1, 1},
                                {16, 256, 96, 1, 1}, {33, 300, 70, 2, 1}, {64, 520, 300, 1, 1},
                                {6, 32, 32, 3, 3},   {1, 4096, 40, 1, 1}};
  for (Backend* b : KernelBackends()) {
    for (DType wt : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (const MatmulShape& s : shapes) {
        double tier = wt == DType::kF32 ? testing::kTierGeneral : testing::kTierHalfWeights;
        SCOPED_TRACE(std::string(DTypeName(wt)) + " M=" + std::to_string(s.m) +
                     " K=" + std::to_string(s.k) + " N=" + std::to_string(s.n) +
                     " batch=" + std::to_string(s.batch));
        // The CPU's tile set rounds f32 weights and the activations to bf16 past 48 rows.
        const bool tiles =
            b->device().type == DeviceType::kCPU && CpuKernels().resolved == "amx" && s.m > 48;
        if (wt == DType::kF32 && tiles) tier = testing::kTierBf16Operands;
        Tensor w = RandomTensor(wt, {s.k, s.n, s.w_batch, 1}, Rng());
        Tensor x = RandomTensor(DType::kF32, {s.k, s.m, s.batch, 1}, Rng());
        EXPECT_TRUE(Parity(*b, OpKind::kMatmul, {w, x}, {}, tier));
      }
    }
  }
}

TEST(Parity, ElementwiseOpsWithBroadcast) {
  for (Backend* b : KernelBackends()) {
    for (int64_t n : {1, 7, 16, 33, 4096}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      Tensor a = RandomTensor(DType::kF32, {n, 5, 2, 1}, Rng(), -4, 4);
      Tensor full = RandomTensor(DType::kF32, {n, 5, 2, 1}, Rng(), -4, 4);
      Tensor row = RandomTensor(DType::kF32, {n, 1, 1, 1}, Rng(), -4, 4);
      OpParams scale;
      scale.scale = -0.37f;
      EXPECT_TRUE(Parity(*b, OpKind::kAdd, {a, full}, {}, testing::kTierGeneral));
      EXPECT_TRUE(Parity(*b, OpKind::kAdd, {a, row}, {}, testing::kTierGeneral));
      EXPECT_TRUE(Parity(*b, OpKind::kMul, {a, row}, {}, testing::kTierGeneral));
      EXPECT_TRUE(Parity(*b, OpKind::kScale, {a}, scale, testing::kTierGeneral));
      EXPECT_TRUE(Parity(*b, OpKind::kSilu, {a}, {}, testing::kTierGeneral));
      EXPECT_TRUE(Parity(*b, OpKind::kSwiglu, {a, full}, {}, testing::kTierGeneral));
      EXPECT_TRUE(Parity(*b, OpKind::kGeglu, {a, full}, {}, testing::kTierGeneral)) << "Geglu";
    }
  }
}

TEST(Parity, SiluAtTheEndsOfExpsRange) {
  // e^-x overflows a float below x = -88.7 and underflows above x = 103: SiLU is then -0 and
  // x, never NaN (inf / inf) or 0 for a large x.
  const float xs[] = {-1000.0f, -104.5f, -89.0f, -88.0f, -20.0f, -1e-3f, 0.0f,
                      1e-3f,    20.0f,   88.0f,  89.0f,  104.5f, 1000.0f};
  for (Backend* b : KernelBackends()) {
    SCOPED_TRACE(b->name());
    Tensor a = RandomTensor(DType::kF32, {13, 1, 1, 1}, Rng());
    std::copy(std::begin(xs), std::end(xs), static_cast<float*>(a.data));
    Tensor y = RandomTensor(DType::kF32, {13, 1, 1, 1}, Rng(), 1, 2);
    EXPECT_TRUE(Parity(*b, OpKind::kSilu, {a}, {}, testing::kTierGeneral));
    EXPECT_TRUE(Parity(*b, OpKind::kSwiglu, {a, y}, {}, testing::kTierGeneral));
    EXPECT_TRUE(Parity(*b, OpKind::kGeglu, {a, y}, {}, testing::kTierGeneral))
        << "Geglu";  // e^(-2u) overflows sooner
  }
}

TEST(Parity, RmsNormAndSoftmax) {
  for (Backend* b : KernelBackends()) {
    for (int64_t n : {1, 7, 64, 4096}) {
      SCOPED_TRACE("n=" + std::to_string(n));
      Tensor a = RandomTensor(DType::kF32, {n, 3, 2, 1}, Rng(), -3, 3);
      OpParams p;
      p.eps = 1e-6f;
      p.scale = 0.125f;
      EXPECT_TRUE(Parity(*b, OpKind::kRmsNorm, {a}, p, testing::kTierGeneral));
      EXPECT_TRUE(Parity(*b, OpKind::kSoftmax, {a}, p, testing::kTierGeneral));
      Tensor mask = RandomTensor(DType::kF32, {n, 3, 1, 1}, Rng(), -2, 0);
      for (int64_t i = 0; i < n * 3; i += 3) static_cast<float*>(mask.data)[i] = -INFINITY;
      if (n > 1) {
        EXPECT_TRUE(Parity(*b, OpKind::kSoftmax, {a, mask}, p, testing::kTierGeneral));
      }
    }
  }
}

TEST(Parity, RopeFullAndPartialDims) {
  // Llama 3's frequency factors: a divisor per rotated pair (up to 32 pairs below).
  std::vector<float> factors(32);
  for (size_t j = 0; j < factors.size(); ++j) factors[j] = 1.0f + 0.25f * static_cast<float>(j);
  for (Backend* b : KernelBackends()) {
    for (int mode = 0; mode < 6; ++mode) {
      const int n_dims = std::array<int, 3>{0, 32, -32}[mode % 3];
      const bool neox = mode >= 3;
      SCOPED_TRACE("n_dims=" + std::to_string(n_dims) + (n_dims < 0 ? " with factors" : "") +
                   (neox ? ", NEOX" : ""));
      // 131071: a 128k context's last position, where the angle needs more than float's 24 bits.
      Tensor a = RandomTensor(DType::kF32, {64, 4, 6, 1}, Rng());
      Tensor pos = IntTensor({0, 1, 17, 1000, 4095, 131071});
      OpParams p;
      p.n_dims = n_dims < 0 ? -n_dims : n_dims;
      p.freq_factors = n_dims < 0 ? factors.data() : nullptr;
      p.freq_base = 500000;
      p.freq_scale = 0.5f;
      p.rope_neox = neox;
      EXPECT_TRUE(Parity(*b, OpKind::kRope, {a, pos}, p, testing::kTierGeneral));
    }
  }
}

// The reference's NEOX mode is llama.cpp's: pair j is elements j and j + n_dims/2. A unit
// vector along element 0 turns toward element 2 (in mode 0, toward element 1), so a reference
// that ignored the mode fails here, where parity alone would not see it.
TEST(Parity, RopeNeoxPairsEachElementWithTheOneHalfTheRotatedWidthOn) {
  for (bool neox : {false, true}) {
    Backend& ref = ReferenceBackend();
    Tensor a = NewTensor(ref, DType::kF32, {4, 1, 1, 1}).value(),
           out = NewTensor(ref, DType::kF32, {4, 1, 1, 1}).value();
    const float unit[4] = {1, 0, 0, 0};
    std::memcpy(a.data, unit, sizeof unit);
    Tensor pos = IntTensor({1});
    OpParams p;
    p.rope_neox = neox;
    ASSERT_TRUE(RunOp(ref, Op{OpKind::kRope, {&a, &pos}, &out, p}).ok());
    const float* o = static_cast<const float*>(out.data);
    EXPECT_NEAR(o[0], std::cos(1.0), 1e-6) << (neox ? "NEOX" : "mode 0");
    EXPECT_NEAR(o[neox ? 2 : 1], std::sin(1.0), 1e-6) << (neox ? "NEOX" : "mode 0");
    EXPECT_EQ(o[neox ? 1 : 2], 0.0f) << (neox ? "NEOX" : "mode 0");
  }
}

TEST(Parity, GetRowsFromEveryTableDtypeAndTopK) {
  for (Backend* b : KernelBackends()) {
    for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) {
      Tensor table = RandomTensor(t, {33, 50, 1, 1}, Rng());
      EXPECT_TRUE(Parity(*b, OpKind::kGetRows, {table, IntTensor({0, 49, 7, 7})}, {},
                         testing::kTierGeneral));
    }
    // Ties go to the lower index, as a stable descending sort orders them.
    Tensor ties = RandomTensor(DType::kF32, {8, 2, 1, 1}, Rng());
    float* v = static_cast<float*>(ties.data);
    for (int i = 0; i < 16; ++i) v[i] = static_cast<float>((i * 5) % 3);
    OpParams three;
    three.k = 3;
    EXPECT_TRUE(Parity(*b, OpKind::kTopK, {ties}, three, 0));
    for (int k : {1, 2, 6}) {
      OpParams p;
      p.k = k;
      Tensor logits = RandomTensor(DType::kF32, {64, 9, 1, 1}, Rng());
      EXPECT_TRUE(Parity(*b, OpKind::kTopK, {logits}, p, 0));
    }
  }
}

TEST(Parity, RowOpsLongEnoughToSplitAcrossThreads) {
  // Enough rows that the CPU backend's pool splits each op into several chunks (a prompt's
  // embeddings, its KV-cache rows, its RoPE angles per token): every row is written once.
  std::vector<int32_t> ids(700), positions(300);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 37) % 50);
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int32_t>(3 * i);
  for (Backend* b : KernelBackends()) {
    SCOPED_TRACE(b->name());
    Tensor table = RandomTensor(DType::kF16, {64, 50, 1, 1}, Rng());
    EXPECT_TRUE(Parity(*b, OpKind::kGetRows, {table, IntTensor(ids)}, {}, testing::kTierGeneral));
    OpParams half;
    half.out_dtype = DType::kF16;
    EXPECT_TRUE(
        Parity(*b, OpKind::kCopy, {RandomTensor(DType::kF32, {64, 700, 1, 1}, Rng())}, half, 0));
    OpParams rope;
    rope.freq_base = 10000;
    EXPECT_TRUE(Parity(*b, OpKind::kRope,
                       {RandomTensor(DType::kF32, {64, 2, 300, 1}, Rng()), IntTensor(positions)},
                       rope, testing::kTierGeneral));
  }
}

// A weight (or table) tensor of block type `t`: normal values quantized row by row.
Tensor QuantizedTensor(Backend& b, DType t, int64_t k, int64_t n) {
  Tensor f = RandomTensor(DType::kF32, {k, n, 1, 1}, Rng());
  Tensor q = NewTensor(b, t, {k, n, 1, 1}).value();
  for (int64_t r = 0; r < n; ++r) {
    EXPECT_TRUE(QuantizeRow(t, f.Row<const float>(r), q.Row<char>(r), k).ok());
    // ggml's Q6_K quantizer writes negative int8 scales, vt's does not: negate every other one
    // (any bytes are a valid block; the reference decodes the same ones).
    for (int64_t b = 0; t == DType::kQ6_K && b < k / 256; ++b) {
      int8_t* scales = reinterpret_cast<int8_t*>(q.Row<char>(r) + 210 * b + 192);
      for (int g = 0; g < 16; g += 2) scales[g] = static_cast<int8_t>(-scales[g]);
    }
  }
  return q;
}

TEST(Parity, MatmulAndGetRowsOverEveryBlockType) {
  // The weights decode to exact f32 values; a decode of Q8_0/Q4_0 on AVX-512 VNNI rounds the
  // activations to q8_0 as ggml does (measured NMSE 1.1e-5), so the block types' tier is 1e-4
  // (specs/quantized.md). M = 1 (a decode) and 20 (a gemm); K = 512 is two K-quant
  // super-blocks and sixteen 32-element blocks; N = 300 rows cross the CPU's 256-row blocks
  // of dequantized weights. Vulkan decodes each element in its shaders (weights.glsl), CUDA
  // each block with the CPU's decoders (core/dequant_block.h).
  const double kTierBlockTypes = 1e-4;
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  for (DType t :
       {DType::kQ4_0, DType::kQ4_1, DType::kQ5_0, DType::kQ5_1, DType::kQ8_0, DType::kQ2_K,
        DType::kQ3_K, DType::kQ4_K, DType::kQ5_K, DType::kQ6_K, DType::kMXFP4}) {
    SCOPED_TRACE(std::string(DTypeName(t)));
    Tensor w = QuantizedTensor(cpu, t, 512, 300);
    for (Backend* b : KernelBackends()) {
      for (int64_t m : {1, 20}) {
        Tensor x = RandomTensor(DType::kF32, {512, m, 1, 1}, Rng());
        EXPECT_TRUE(Parity(*b, OpKind::kMatmul, {w, x}, {}, kTierBlockTypes))
            << b->name() << " M=" << m;
      }
    }
    for (Backend* b : KernelBackends()) {
      EXPECT_TRUE(
          Parity(*b, OpKind::kGetRows, {w, IntTensor({0, 299, 7, 7})}, {}, testing::kTierGeneral))
          << b->name();
    }
  }
}

// A MoE decode step's routed experts in one op, on the backends that have it (the CPU, up
// to kGemvMaxRows tokens): 1, 3 and 16 tokens, two of six experts each (one expert chosen by
// no token, one by several), every weight dtype the CPU decodes, f = 40 rows of the float
// types (not a multiple of the 16-row units the CPU splits them into). The block types'
// integer decode rounds activations to 8 bits twice, x and then the SwiGLU output (measured
// NMSE up to 2.4e-4), so their tier is that of half-precision weights.
TEST(Parity, ExpertsOverEveryWeightDtype) {
  const int64_t kExperts = 6, kUsed = 2;
  for (DType t :
       {DType::kF32, DType::kF16, DType::kBF16, DType::kQ4_0, DType::kQ8_0, DType::kQ4_K}) {
    const bool blocks = IsQuantized(t);
    const int64_t d = t == DType::kQ4_K ? 256 : 64, f = blocks ? d : 40;
    const double tier = t == DType::kF32 ? testing::kTierGeneral : testing::kTierHalfWeights;
    auto weight = [&](int64_t k, int64_t n) {
      Tensor w = RandomTensor(blocks ? DType::kF32 : t, {k, n, kExperts, 1}, Rng());
      if (!blocks) return w;
      Tensor q = NewTensor(*GetBackend(DeviceType::kCPU), t, w.ne).value();
      for (int64_t r = 0; r < n * kExperts; ++r)
        EXPECT_TRUE(
            QuantizeRow(t, w.Row<const float>(r % n, r / n), q.Row<char>(r % n, r / n), k).ok());
      return q;
    };
    Tensor gate = weight(d, f), up = weight(d, f), down = weight(f, d);
    for (int64_t tokens : {1, 3, 16}) {
      SCOPED_TRACE(std::string(DTypeName(t)) + " T=" + std::to_string(tokens));
      std::vector<int32_t> ids;
      for (int64_t i = 0; i < tokens; ++i)
        ids.insert(ids.end(), {static_cast<int32_t>(i % 3), static_cast<int32_t>(5 - i % 2)});
      Tensor id = IntTensor(ids);
      id.ne = {kUsed, tokens, 1, 1};
      id.nb = ContiguousStrides(DType::kI32, id.ne);
      Tensor weights = RandomTensor(DType::kF32, {kUsed, tokens, 1, 1}, Rng(), 0.1f, 1);
      Tensor x = RandomTensor(DType::kF32, {d, tokens, 1, 1}, Rng());
      for (Backend* b : KernelBackends()) {
        if (b->device().type != DeviceType::kCPU) continue;
        EXPECT_TRUE(Parity(*b, OpKind::kExperts, {x, id, weights, gate, up, down}, {}, tier))
            << b->name();
      }
    }
  }
}

// Ids are data: one that names no expert is an error, on the CPU as in the reference.
TEST(Parity, AnExpertIdOutsideTheExpertsIsAnError) {
  Tensor gate = RandomTensor(DType::kF32, {32, 16, 4, 1}, Rng()),
         down = RandomTensor(DType::kF32, {16, 32, 4, 1}, Rng());
  Tensor x = RandomTensor(DType::kF32, {32, 1, 1, 1}, Rng()),
         weights = RandomTensor(DType::kF32, {2, 1, 1, 1}, Rng());
  for (Backend* b : {GetBackend(DeviceType::kCPU), &ReferenceBackend()}) {
    for (int32_t bad : {4, -1}) {
      Tensor id = IntTensor({1, bad});
      id.ne = {2, 1, 1, 1};
      Tensor y = NewTensor(*b, DType::kF32, {32, 1, 1, 1}).value();
      Status s = RunOp(*b, Op{OpKind::kExperts, {&x, &id, &weights, &gate, &gate, &down}, &y, {}});
      EXPECT_EQ(s.message(),
                "Experts: token 0's id " + std::to_string(bad) + " is not one of the 4 experts")
          << b->name();
    }
  }
}

TEST(Parity, AttentionOverAKvCacheWithGqa) {
  struct Case {
    int64_t hd, heads, kv_heads, tokens, ctx;
    int n_past;
    DType cache;
  };
  const Case cases[] = {
      {64, 8, 8, 1, 32, 20, DType::kF32},    {64, 8, 2, 7, 32, 0, DType::kF32},
      {128, 4, 1, 3, 16, 13, DType::kF16},   {32, 6, 3, 5, 8, 3, DType::kF16},
      {64, 4, 2, 2, 300, 250, DType::kF16},   // spans chunks of keys
      {64, 4, 2, 40, 96, 50, DType::kF16},    // a prompt after a prefix
      {64, 4, 2, 200, 256, 30, DType::kF16},  // three causal blocks, the last partial
      {32, 2, 1, 130, 130, 0, DType::kF32}};
  for (Backend* b : KernelBackends()) {
    for (const Case& c : cases) {
      SCOPED_TRACE("hd=" + std::to_string(c.hd) + " tokens=" + std::to_string(c.tokens) +
                   " n_past=" + std::to_string(c.n_past));
      Tensor q = RandomTensor(DType::kF32, {c.hd, c.heads, c.tokens, 1}, Rng());
      Tensor k = RandomTensor(c.cache, {c.hd, c.kv_heads, c.ctx, 1}, Rng());
      Tensor v = RandomTensor(c.cache, {c.hd, c.kv_heads, c.ctx, 1}, Rng());
      OpParams p;
      p.n_past = c.n_past;
      EXPECT_TRUE(Parity(*b, OpKind::kAttention, {q, k, v}, p, testing::kTierGeneral));
    }
  }
}

}  // namespace
}  // namespace vt

namespace vt {
namespace {

TEST(Parity, CopyBetweenEveryFloatDtype) {
  std::mt19937 rng(5);
  for (Backend* b : testing::KernelBackends()) {
    for (DType from : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (DType to : {DType::kF32, DType::kF16, DType::kBF16}) {
        SCOPED_TRACE(std::string(DTypeName(from)) + "->" + std::string(DTypeName(to)));
        OpParams p;
        p.out_dtype = to;
        // Conversions round the same way everywhere: the bytes must be identical.
        Tensor a = testing::RandomTensor(from, {37, 3, 2, 1}, rng);
        if (from == DType::kF32) {
          // Exact ties, which random values almost never hit: halfway between two f16 (and two
          // bf16) neighbours, rounding down to even, then up to even; and f16's subnormals.
          const float ties[] = {1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 1.0f + 0x1p-8f,
                                1.0f + 0x3p-8f,  -0x1.8p-24f,     0x1p-25f};
          std::copy(std::begin(ties), std::end(ties), static_cast<float*>(a.data));
        }
        EXPECT_TRUE(testing::Parity(*b, OpKind::kCopy, {a}, p, 0));
      }
    }
  }
}

}  // namespace
}  // namespace vt

namespace vt {
namespace {

// A cache slot in f16 may start and end mid-word: the halves around it keep their bytes.
TEST(Parity, CopyIntoHalfSlotsAtOddOffsetsLeavesNeighboursAlone) {
  std::mt19937 rng(8);
  Tensor src = testing::RandomTensor(DType::kF32, {3, 1, 1, 1}, rng);
  Tensor before = testing::RandomTensor(DType::kF16, {3, 5, 1, 1}, rng);
  std::vector<uint16_t> want(15);
  for (Backend* b : testing::KernelBackends()) {
    SCOPED_TRACE(b->name());
    Tensor cache = NewTensor(*b, DType::kF16, before.ne).value();
    Tensor on = NewTensor(*b, DType::kF32, src.ne).value();
    ASSERT_TRUE(CopyTensor(before, cache).ok());
    ASSERT_TRUE(CopyTensor(src, on).ok());
    Tensor slot = View(cache, {3, 1, 1, 1}, cache.nb, 1 * cache.nb[1]);  // elements 3..5
    OpParams p;
    p.out_dtype = DType::kF16;
    ASSERT_TRUE(RunOp(*b, Op{OpKind::kCopy, {&on}, &slot, p}).ok());
    std::vector<uint16_t> got(15);
    ASSERT_TRUE(b->CopyOut(got.data(), cache.data, 30).ok());
    if (b->device().type == DeviceType::kCPU) want = got;
    EXPECT_EQ(got, want);
    for (int i : {0, 1, 2, 6, 7})
      EXPECT_EQ(got[i], static_cast<uint16_t*>(before.data)[i]) << "element " << i;
    EXPECT_EQ(got[3], F32ToF16(static_cast<float*>(src.data)[0]));
  }
}

// Regression: rope wrote o[i] before reading x[i] for o[i+1]; harmless out of place, wrong in
// place.
TEST(Parity, OpsWrittenInPlace) {
  std::mt19937 rng(11);
  for (Backend* b : testing::KernelBackends()) {
    Tensor a = testing::RandomTensor(DType::kF32, {64, 4, 5, 1}, rng);
    Tensor c = testing::RandomTensor(DType::kF32, {64, 4, 5, 1}, rng);
    Tensor pos = testing::IntTensor({0, 3, 9, 100, 2000});
    OpParams p;
    p.scale = 0.5f;
    EXPECT_TRUE(testing::ParityInPlace(*b, OpKind::kRope, {a, pos}, p, testing::kTierGeneral));
    OpParams neox = p;
    neox.rope_neox = true;
    EXPECT_TRUE(testing::ParityInPlace(*b, OpKind::kRope, {a, pos}, neox, testing::kTierGeneral))
        << "NEOX";
    for (OpKind k : {OpKind::kAdd, OpKind::kMul, OpKind::kSwiglu, OpKind::kGeglu}) {
      EXPECT_TRUE(testing::ParityInPlace(*b, k, {a, c}, p, testing::kTierGeneral));
    }
    for (OpKind k : {OpKind::kScale, OpKind::kSilu, OpKind::kRmsNorm, OpKind::kSoftmax}) {
      EXPECT_TRUE(testing::ParityInPlace(*b, k, {a}, p, testing::kTierGeneral));
    }
  }
}

}  // namespace
}  // namespace vt

namespace vt {
namespace {

// gpt-oss's clamped SwiGLU over values on both sides of both clamps (a above limit is held at
// it, b clamped both ways), at llama.cpp's alpha and limit and at others; the clamps are seen
// to matter in the reference.
TEST(Parity, SwigluOaiClampsBothInputs) {
  std::mt19937 rng(79);
  Tensor a = testing::RandomTensor(DType::kF32, {300, 3, 1, 1}, rng, -12, 12);
  Tensor b = testing::RandomTensor(DType::kF32, {300, 3, 1, 1}, rng, -12, 12);
  OpParams other;
  other.alpha = 1.0f;
  other.limit = 3.0f;
  for (Backend* be : testing::KernelBackends()) {
    SCOPED_TRACE(be->name());
    EXPECT_TRUE(testing::Parity(*be, OpKind::kSwigluOai, {a, b}, {}, testing::kTierGeneral));
    EXPECT_TRUE(testing::Parity(*be, OpKind::kSwigluOai, {a, b}, other, testing::kTierGeneral))
        << "alpha 1, limit 3";
  }
  OpParams unclamped;
  unclamped.limit = 1e9f;
  EXPECT_GT(testing::Nmse(testing::ReferenceOutput(OpKind::kSwigluOai, {&a, &b}, {}),
                          testing::ReferenceOutput(OpKind::kSwigluOai, {&a, &b}, unclamped)),
            1e-3)
      << "the clamps changed nothing";
}

}  // namespace
}  // namespace vt
