// Attention beyond the causal prefix (parity_test.cpp has that): sliding windows (Gemma 3,
// Olmo 3) and sinks (gpt-oss), on every backend against the float64 reference, each seen to
// change the reference's output.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "parity_support.h"

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
std::vector<float> ReferenceAttention(const Tensor& q, const Tensor& k, const Tensor& v, int n_past, int window) {
  OpParams p;
  p.n_past = n_past;
  p.window = window;
  return ReferenceOutput(OpKind::kAttention, {&q, &k, &v}, p);
}

// Gemma 3's sliding windows: each query sees its last `window` positions only. Decode steps
// over chunks of keys, a prompt in causal blocks after a prefix (each block's rows starting at
// different first positions), a window wider than every prefix, and a window of 1.
TEST(Parity, AttentionOverASlidingWindow) {
  struct Case { int64_t hd, heads, kv_heads, tokens, ctx; int n_past, window; DType cache; };
  const Case cases[] = {{64, 8, 2, 1, 300, 250, 64, DType::kF16},   {64, 4, 2, 1, 300, 250, 200, DType::kF32},
                        {64, 4, 2, 200, 256, 30, 50, DType::kF16},  {32, 4, 1, 130, 160, 20, 97, DType::kF32},
                        {32, 6, 3, 5, 8, 3, 1, DType::kF16},        {64, 4, 4, 7, 32, 10, 1000, DType::kF32}};
  for (Backend* b : KernelBackends()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(b->name() + " tokens=" + std::to_string(c.tokens) + " n_past=" + std::to_string(c.n_past) +
                   " window=" + std::to_string(c.window));
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
      double wider = Nmse(ReferenceAttention(q, k, v, c.n_past, c.window), ReferenceAttention(q, k, v, c.n_past, c.window + 1));
      double none = Nmse(ReferenceAttention(q, k, v, c.n_past, c.window), ReferenceAttention(q, k, v, c.n_past, 0));
      EXPECT_EQ(covers, wider == 0) << wider;
      EXPECT_EQ(covers, none == 0) << none;
    }
  }
}

// gpt-oss's sinks: a logit per head in every softmax, on no value. With and without a window,
// decode and prompt blocks, f32 and f16 caches; sinks high enough to take much of the weight
// in some heads, and seen to matter in the reference.
TEST(Parity, AttentionWithSinks) {
  struct Case { int64_t hd, heads, kv_heads, tokens, ctx; int n_past, window; DType cache; };
  const Case cases[] = {{64, 8, 2, 1, 300, 250, 0, DType::kF16}, {64, 4, 2, 200, 256, 30, 0, DType::kF32},
                        {32, 4, 1, 130, 160, 20, 16, DType::kF16}, {32, 6, 3, 5, 8, 3, 1, DType::kF32}};
  std::mt19937 rng(77);
  for (Backend* b : KernelBackends()) {
    for (const Case& c : cases) {
      SCOPED_TRACE(b->name() + " tokens=" + std::to_string(c.tokens) + " window=" + std::to_string(c.window));
      // Small queries spread each softmax over its prefix, so a sink near ln(prefix) weighs.
      Tensor q = RandomTensor(DType::kF32, {c.hd, c.heads, c.tokens, 1}, rng, -0.5, 0.5);
      Tensor k = RandomTensor(c.cache, {c.hd, c.kv_heads, c.ctx, 1}, rng);
      Tensor v = RandomTensor(c.cache, {c.hd, c.kv_heads, c.ctx, 1}, rng);
      Tensor sinks = RandomTensor(DType::kF32, {c.heads, 1, 1, 1}, rng, 0, 7);
      OpParams p;
      p.n_past = c.n_past;
      p.window = c.window;
      EXPECT_TRUE(Parity(*b, OpKind::kAttention, {q, k, v, sinks}, p, testing::kTierGeneral));
      double none = Nmse(ReferenceOutput(OpKind::kAttention, {&q, &k, &v, &sinks}, p), ReferenceOutput(OpKind::kAttention, {&q, &k, &v}, p));
      EXPECT_GT(none, 1e-3) << "the sinks changed nothing";
    }
  }
}

}  // namespace
}  // namespace vt
