// Attention beyond the causal prefix (parity_test.cpp has that): sliding windows (Gemma 3,
// Olmo 3) and sinks (gpt-oss), on every backend against the float64 reference, each seen to
// change the reference's output.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "parity_support.h"
#include "vt/quant.h"

namespace vt {
namespace {

using testing::KernelBackends;
using testing::Nmse;
using testing::Parity;
using testing::RandomTensor;
using testing::ReferenceOutput;

std::mt19937& Rng() {
  static std::mt19937 rng(4321);
  return rng;
}

// The reference's attention output for `window` (host tensors in, floats out).
std::vector<float> ReferenceAttention(const Tensor& q, const Tensor& k, const Tensor& v, int n_past,
                                      int window) {
  OpParams p;
  p.n_past = n_past;
  p.window = window;
  return ReferenceOutput(OpKind::kAttention, {&q, &k, &v}, p);
}

// Gemma 3's sliding windows: each query sees its last `window` positions only. Decode steps
// over chunks of keys, a prompt in causal blocks after a prefix (each block's rows starting at
// different first positions), a window wider than every prefix, and a window of 1.
TEST(Parity, AttentionOverASlidingWindow) {
  struct Case {
    int64_t hd, heads, kv_heads, tokens, ctx;
    int n_past, window;
    DType cache;
  };
  const Case cases[] = {
      {64, 8, 2, 1, 300, 250, 64, DType::kF16},  {64, 4, 2, 1, 300, 250, 200, DType::kF32},
      {64, 4, 2, 200, 256, 30, 50, DType::kF16}, {32, 4, 1, 130, 160, 20, 97, DType::kF32},
      {32, 6, 3, 5, 8, 3, 1, DType::kF16},       {64, 4, 4, 7, 32, 10, 1000, DType::kF32}};
  for (Backend* b : KernelBackends()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(b->name() + " tokens=" + std::to_string(c.tokens) +
                   " n_past=" + std::to_string(c.n_past) + " window=" + std::to_string(c.window));
      Tensor q = RandomTensor(DType::kF32, {c.hd, c.heads, c.tokens, 1}, Rng());
      Tensor k = RandomTensor(c.cache, {c.hd, c.kv_heads, c.ctx, 1}, Rng());
      Tensor v = RandomTensor(c.cache, {c.hd, c.kv_heads, c.ctx, 1}, Rng());
      OpParams p;
      p.n_past = c.n_past;
      p.window = c.window;
      EXPECT_TRUE(Parity(*b, OpKind::kAttention, {q, k, v}, p, testing::kTierGeneral));
      // The window is seen: one position more (or none) changes the reference's output, but
      // not where the window already covers every prefix.
      bool covers = c.window >= c.n_past + c.tokens;
      double wider = Nmse(ReferenceAttention(q, k, v, c.n_past, c.window),
                          ReferenceAttention(q, k, v, c.n_past, c.window + 1));
      double none = Nmse(ReferenceAttention(q, k, v, c.n_past, c.window),
                         ReferenceAttention(q, k, v, c.n_past, 0));
      EXPECT_EQ(covers, wider == 0) << wider;
      EXPECT_EQ(covers, none == 0) << none;
    }
  }
}

// gpt-oss's sinks: a logit per head in every softmax, on no value. With and without a window,
// decode and prompt blocks, f32 and f16 caches; sinks high enough to take much of the weight
// in some heads, and seen to matter in the reference.
TEST(Parity, AttentionWithSinks) {
  struct Case {
    int64_t hd, heads, kv_heads, tokens, ctx;
    int n_past, window;
    DType cache;
  };
  const Case cases[] = {{64, 8, 2, 1, 300, 250, 0, DType::kF16},
                        {64, 4, 2, 200, 256, 30, 0, DType::kF32},
                        {32, 4, 1, 130, 160, 20, 16, DType::kF16},
                        {32, 6, 3, 5, 8, 3, 1, DType::kF32}};
  std::mt19937 rng(77);
  for (Backend* b : KernelBackends()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(b->name() + " tokens=" + std::to_string(c.tokens) +
                   " window=" + std::to_string(c.window));
      // Small queries spread each softmax over its prefix, so a sink near ln(prefix) weighs.
      Tensor q = RandomTensor(DType::kF32, {c.hd, c.heads, c.tokens, 1}, rng, -0.5, 0.5);
      Tensor k = RandomTensor(c.cache, {c.hd, c.kv_heads, c.ctx, 1}, rng);
      Tensor v = RandomTensor(c.cache, {c.hd, c.kv_heads, c.ctx, 1}, rng);
      Tensor sinks = RandomTensor(DType::kF32, {c.heads, 1, 1, 1}, rng, 0, 7);
      OpParams p;
      p.n_past = c.n_past;
      p.window = c.window;
      EXPECT_TRUE(Parity(*b, OpKind::kAttention, {q, k, v, sinks}, p, testing::kTierGeneral));
      double none = Nmse(ReferenceOutput(OpKind::kAttention, {&q, &k, &v, &sinks}, p),
                         ReferenceOutput(OpKind::kAttention, {&q, &k, &v}, p));
      EXPECT_GT(none, 1e-3) << "the sinks changed nothing";
    }
  }
}

// bf16 and q8_0 caches (--kv-cache-dtype): each backend that runs them against the float64
// reference reading the same cache, decode steps and prompts; every backend runs bf16, the
// CPU q8_0 (Vulkan and CUDA refuse it: specs/kv-cache-dtype.md). The q8_0 keys meet queries
// rounded to 8-bit blocks, as in ggml's flash attention and the block-type matmuls (measured
// NMSE 2-4e-5): their tier is the block types' 1e-4.
TEST(Parity, AttentionOverBf16AndQ8_0Caches) {
  struct Case {
    int64_t hd, heads, kv_heads, tokens, ctx;
    int n_past;
  };
  // (past 256 positions a q8_0 decode's values are dequantized in more than one chunk)
  const Case cases[] = {{64, 8, 2, 1, 300, 250},
                        {64, 4, 2, 1, 600, 520},
                        {128, 4, 1, 3, 16, 13},
                        {64, 4, 2, 40, 96, 50},
                        {32, 4, 2, 200, 256, 30}};
  for (DType cache : {DType::kBF16, DType::kQ8_0}) {
    for (Backend* b : KernelBackends()) {
      for (const Case& c : cases) {
        SCOPED_TRACE(b->name() + " " + std::string(DTypeName(cache)) +
                     " tokens=" + std::to_string(c.tokens) + " n_past=" + std::to_string(c.n_past));
        Tensor q = RandomTensor(DType::kF32, {c.hd, c.heads, c.tokens, 1}, Rng());
        Tensor k = RandomTensor(cache, {c.hd, c.kv_heads, c.ctx, 1}, Rng());
        Tensor v = RandomTensor(cache, {c.hd, c.kv_heads, c.ctx, 1}, Rng());
        OpParams p;
        p.n_past = c.n_past;
        Tensor out = NewTensor(*GetBackend(DeviceType::kCPU), DType::kF32, q.ne).value();
        const bool runs = b->Supports(Op{OpKind::kAttention, {&q, &k, &v}, &out, p});
        EXPECT_TRUE(runs || cache == DType::kQ8_0) << "every backend reads a bf16 cache";
        EXPECT_TRUE(runs || b->device().type != DeviceType::kCPU) << "the CPU reads a q8_0 cache";
        if (runs) {
          EXPECT_TRUE(Parity(*b, OpKind::kAttention, {q, k, v}, p,
                             cache == DType::kQ8_0 ? 1e-4 : testing::kTierGeneral));
        }
      }
    }
  }
}

// A cache's rounding, against attention over the f32 keys and values it was written from
// (the CPU's Copy into the type, then its attention; the reference's over f32): NMSE within
// f16 1e-6, bf16 1e-4, q8_0 3e-4 (measured 1.1e-7, 8.2e-6, 8.0e-5: the q8_0 keys meet queries
// rounded to 8-bit blocks too).
TEST(Parity, AttentionOverARoundedCacheStaysNearItsF32Values) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor q = RandomTensor(DType::kF32, {64, 8, 5, 1}, Rng());
  Tensor k = RandomTensor(DType::kF32, {64, 2, 64, 1}, Rng()),
         v = RandomTensor(DType::kF32, {64, 2, 64, 1}, Rng());
  OpParams p;
  p.n_past = 59;
  const std::vector<float> exact = ReferenceOutput(OpKind::kAttention, {&q, &k, &v}, p);
  for (const auto& [type, bound] : std::vector<std::pair<DType, double>>{
           {DType::kF16, 1e-6}, {DType::kBF16, 1e-4}, {DType::kQ8_0, 3e-4}}) {
    OpParams into;
    into.out_dtype = type;
    Tensor kr = NewTensor(cpu, type, k.ne).value(), vr = NewTensor(cpu, type, v.ne).value(),
           out = NewTensor(cpu, DType::kF32, q.ne).value();
    ASSERT_TRUE(RunOp(cpu, Op{OpKind::kCopy, {&k}, &kr, into}).ok());
    ASSERT_TRUE(RunOp(cpu, Op{OpKind::kCopy, {&v}, &vr, into}).ok());
    ASSERT_TRUE(RunOp(cpu, Op{OpKind::kAttention, {&q, &kr, &vr}, &out, p}).ok());
    std::vector<float> got(static_cast<const float*>(out.data),
                           static_cast<const float*>(out.data) + out.NumElements());
    const double nmse = Nmse(exact, got);
    EXPECT_LT(nmse, bound) << DTypeName(type);
    EXPECT_GT(nmse, 0) << DTypeName(type) << ": the cache was not rounded";
  }
}

// The q8_0 keys meet the queries rounded to 8-bit blocks (ggml's flash attention): the CPU's
// output is the float64 attention of the rounded queries (NMSE under 1e-9), and the rounding
// is seen (the unrounded queries' attention is 1e-6 or more away).
TEST(Parity, Q8_0KeysMeetQueriesRoundedAsGgmlRoundsThem) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor q = RandomTensor(DType::kF32, {64, 4, 20, 1}, Rng());
  Tensor k = RandomTensor(DType::kQ8_0, {64, 2, 64, 1}, Rng()),
         v = RandomTensor(DType::kQ8_0, {64, 2, 64, 1}, Rng());
  Tensor rounded = NewTensor(cpu, DType::kF32, q.ne).value();
  std::vector<uint8_t> blocks(RowBytes(DType::kQ8_0, 64));
  for (int64_t r = 0; r < q.NumElements() / 64; ++r) {
    QuantizeRowQ8_0Ggml(static_cast<const float*>(q.data) + r * 64, blocks.data(), 64);
    DequantizeRow(DType::kQ8_0, blocks.data(), static_cast<float*>(rounded.data) + r * 64, 64);
  }
  OpParams p;
  p.n_past = 40;
  Tensor out = NewTensor(cpu, DType::kF32, q.ne).value();
  ASSERT_TRUE(RunOp(cpu, Op{OpKind::kAttention, {&q, &k, &v}, &out, p}).ok());
  std::vector<float> got(static_cast<const float*>(out.data),
                         static_cast<const float*>(out.data) + out.NumElements());
  EXPECT_LT(Nmse(ReferenceOutput(OpKind::kAttention, {&rounded, &k, &v}, p), got), 1e-9);
  EXPECT_GT(Nmse(ReferenceOutput(OpKind::kAttention, {&q, &k, &v}, p), got), 1e-6);
}

}  // namespace
}  // namespace vt
