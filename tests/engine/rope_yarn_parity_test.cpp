// RoPE's YaRN scaling (gpt-oss, Olmo 3's global layers) on every backend against the float64
// reference, whose own formula is seen to differ from linear scaling.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "parity_support.h"

namespace vt {
namespace {

using testing::ReferenceOutput;

// YaRN as ggml computes it: each pair's angle mixed between its interpolated and extrapolated
// values by its ramp, every rotated value scaled; adjacent pairs and NEOX, partial rotation,
// frequency factors, far positions. The reference (its own formula) is seen to differ from
// plain linear scaling and to scale by mscale.
TEST(Parity, RopeYarnMixesEachPairsAngleByItsRamp) {
  std::mt19937 rng(78);
  Tensor a = testing::RandomTensor(DType::kF32, {64, 4, 5, 1}, rng);
  Tensor pos = testing::IntTensor({0, 7, 300, 4095, 30000});
  std::vector<float> factors(32);
  for (size_t j = 0; j < factors.size(); ++j) factors[j] = 1.0f + 0.25f * static_cast<float>(j % 5);
  for (Backend* b : testing::KernelBackends()) {
    for (int n_dims : {0, 32}) {
      for (bool neox : {false, true}) {
        SCOPED_TRACE(b->name() + " n_dims=" + std::to_string(n_dims) + (neox ? " NEOX" : ""));
        OpParams p;
        p.n_dims = n_dims;
        p.rope_neox = neox;
        p.freq_base = 150000;
        p.freq_scale = 1.0f / 32;
        p.ext_factor = 1;
        p.n_ctx_orig = 4096;
        p.mscale = 0.875f;
        EXPECT_TRUE(testing::Parity(*b, OpKind::kRope, {a, pos}, p, testing::kTierGeneral));
        p.freq_factors = factors.data();
        EXPECT_TRUE(testing::Parity(*b, OpKind::kRope, {a, pos}, p, testing::kTierGeneral))
            << "factors";
      }
    }
  }
  OpParams yarn;
  yarn.freq_scale = 1.0f / 32;
  yarn.ext_factor = 1;
  yarn.n_ctx_orig = 4096;
  OpParams linear = yarn;
  linear.ext_factor = 0;
  EXPECT_GT(testing::Nmse(ReferenceOutput(OpKind::kRope, {&a, &pos}, yarn),
                          ReferenceOutput(OpKind::kRope, {&a, &pos}, linear)),
            1e-3);
  OpParams halved = yarn;
  halved.mscale = 0.5f;
  std::vector<float> full = ReferenceOutput(OpKind::kRope, {&a, &pos}, yarn),
                     half = ReferenceOutput(OpKind::kRope, {&a, &pos}, halved);
  for (size_t i = 0; i < full.size(); ++i) ASSERT_NEAR(half[i], full[i] / 2, 1e-6) << i;
}

}  // namespace
}  // namespace vt
