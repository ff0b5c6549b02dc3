// olmo2's differences from llama's graph, each seen to matter on a fixture: no norm before
// either block but one after each, Q and K normalised across all of their heads at once, and
// Olmo 3's windows (every 4th layer global, the global RoPE base). The float64 reference
// parity is Architecture.EachForwardEqualsTheFloat64Reference; llama.cpp's verdict on the same
// files is Oracle.Olmo2MatchesLlamaCpp.
#include <gtest/gtest.h>

#include "fixture_support.h"
#include "parity_support.h"
#include "vt/fixture.h"
#include "vt/model.h"

namespace vt {
namespace {

using testing::AllLogits;
using testing::FixtureFile;
using testing::LoadWriter;
using testing::Nmse;
using testing::Relabelled;
using testing::WithKey;

const std::vector<int32_t> kPrompt = {kFixtureBos, 'O', 'L', 'M', 'o', ' ',
                                      'n',         'o', 'r', 'm', 's'};

FixtureSpec Olmo2() { return FixtureSpec{.arch = "olmo2", .seed = 51}; }
std::vector<float> Logits(const GgufWriter& w) { return AllLogits(w, ReferenceBackend(), kPrompt); }
std::string LoadError(const GgufWriter& w) {
  return LoadWriter(w, ReferenceBackend()).status().message();
}

// One attn_q_norm weight per element of all of Q ([n_head·head_dim]), not per element of a
// head: a per-head file is refused naming the shape, and the gains change the logits.
TEST(Olmo2, NormalisesQAndKAcrossAllOfTheirHeads) {
  EXPECT_EQ(LoadError(Relabelled(FixtureSpec{.arch = "qwen3", .seed = 51}, "olmo2")),
            "gguf: blk.0.attn_q_norm.weight has shape [16,1,1], expected [64,1,1]");
  EXPECT_EQ(LoadError(Relabelled(FixtureSpec{.seed = 51}, "olmo2")),
            "gguf: missing tensor blk.0.attn_q_norm.weight (olmo2 reads it, shape [64,1,1])");
  FixtureSpec unit = Olmo2();
  unit.qk_norm_gain = 1;
  EXPECT_GT(Nmse(Logits(MakeFixture(Olmo2())), Logits(MakeFixture(unit))), 1e-3)
      << "the Q/K norm gains changed nothing";
}

// Neither block has a norm before it: a file with one is refused, never ignored.
TEST(Olmo2, ANormBeforeABlockIsRefused) {
  GgufWriter w =
      testing::WithF32Tensors(MakeFixture(Olmo2()), [](const std::string&, std::vector<float>&) {});
  std::vector<float> ones(64, 1.0f);
  w.AddTensor("blk.0.attn_norm.weight", DType::kF32, {64, 1, 1, 1}, 1, ones.data());
  EXPECT_EQ(LoadError(w),
            "gguf: tensor blk.0.attn_norm.weight is not one vt's olmo2 reads (refused rather than "
            "ignored)");
}

// Olmo 3: all but every 4th layer windowed (its converter's array of booleans is passed over,
// as llama.cpp does), rotating with the global base unless rope.freq_base_swa says.
TEST(Olmo2, Olmo3WindowsAllButEveryFourthLayerWithTheGlobalBase) {
  FixtureSpec s = Olmo2();
  s.layers = 5;
  s.sliding_window = 4;
  GgufWriter w =
      WithKey(MakeFixture(s), "olmo2.attention.sliding_window_pattern",
              GgufValue::Array(GgufType::kBool, {GgufValue::Bool(true), GgufValue::Bool(false)}));
  auto hp = ReadHparams(GgufFile::FromBytes(w.Bytes()).value());
  ASSERT_TRUE(hp.ok()) << hp.status().ToString();
  for (int64_t l = 0; l < 5; ++l) EXPECT_EQ(hp->is_swa(l), l != 3) << l;
  EXPECT_EQ(hp->rope_freq_base_swa, hp->rope_freq_base);
  std::vector<float> windowed = Logits(w),
                     whole = Logits(WithKey(w, "olmo2.attention.sliding_window", std::nullopt));
  EXPECT_GT(Nmse(whole, windowed), 1e-3) << "the windows changed nothing";
  EXPECT_EQ(LoadError(WithKey(w, "olmo2.rope.freq_base_swa", GgufValue::String("x"))),
            "gguf: olmo2.rope.freq_base_swa must be a positive number");
}

}  // namespace
}  // namespace vt
