// gemma3's differences from llama's graph, each seen to matter on a fixture (a fixture where
// it did not would prove nothing): sliding windows on a layer pattern with their own RoPE,
// sandwich norms, soft-capped logits, Gemma's query scale, and its keys and tensors named
// when wrong. The float64 reference parity is Architecture.EachForwardEqualsTheFloat64Reference;
// llama.cpp's verdict on the same files is Oracle.Gemma3MatchesLlamaCpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

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

const std::vector<int32_t> kPrompt = {kFixtureBos, 'G', 'e', 'm', 'm', 'a', ' ', 'w',
                                      'i',         'n', 'd', 'o', 'w', 's', '!'};
constexpr int64_t kVocab = 258, kWindow = 4;

// Layer 0 windowed, layer 1 global; no RoPE scaling, so only the window and the base differ.
FixtureSpec Gemma3() {
  return FixtureSpec{.arch = "gemma3", .seed = 41, .sliding_window = kWindow, .swa_pattern = 2};
}

std::vector<float> Logits(const GgufWriter& w) { return AllLogits(w, ReferenceBackend(), kPrompt); }
// Positions [from, to) of every-position logits.
std::vector<float> At(const std::vector<float>& all, int64_t from, int64_t to) {
  return std::vector<float>(all.begin() + from * kVocab, all.begin() + to * kVocab);
}
GgufValue U32(int64_t v) { return GgufValue::Uint(GgufType::kU32, static_cast<uint64_t>(v)); }
GgufValue F32(double v) { return GgufValue::Float(GgufType::kF32, v); }

// `w` with every f32 tensor whose name holds `part` multiplied by `factor`.
GgufWriter Scaled(const GgufWriter& w, const std::string& part, float factor) {
  return testing::WithF32Tensors(w, [&](const std::string& name, std::vector<float>& values) {
    if (name.find(part) == std::string::npos) return;
    for (float& x : values) x *= factor;
  });
}

// With the window's base made the global one, the window is all that differs from a file
// without one: the first kWindow positions see their whole prefix either way, the later ones
// not.
TEST(Gemma3, WindowedLayersSeeOnlyTheLastWindowPositions) {
  GgufWriter windowed = WithKey(MakeFixture(Gemma3()), "gemma3.rope.freq_base_swa", F32(1e6));
  GgufWriter whole = WithKey(windowed, "gemma3.attention.sliding_window", std::nullopt);
  std::vector<float> a = Logits(windowed), b = Logits(whole);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), kPrompt.size() * kVocab);
  EXPECT_EQ(At(a, 0, kWindow), At(b, 0, kWindow));
  EXPECT_GT(Nmse(At(b, kWindow, 15), At(a, kWindow, 15)), 1e-3)
      << "the window changed nothing past it";
}

// llama.cpp's pattern: layer l is windowed when l % period < period - 1 (0: every layer),
// 6 when the key is absent or an array.
TEST(Gemma3, AllButEveryPatternthLayerAreWindowed) {
  auto hp = ReadHparams(*FixtureFile(Gemma3())).value();
  EXPECT_TRUE(hp.is_swa(0));
  EXPECT_FALSE(hp.is_swa(1));
  FixtureSpec seven = Gemma3();
  seven.layers = 7;
  seven.swa_pattern = 0;
  auto six = ReadHparams(*FixtureFile(seven)).value();
  for (int64_t l = 0; l < 7; ++l) EXPECT_EQ(six.is_swa(l), l != 5) << l;
  GgufWriter array = WithKey(MakeFixture(seven), "gemma3.attention.sliding_window_pattern",
                             GgufValue::Array(GgufType::kU32, {U32(1), U32(0)}));
  EXPECT_EQ(ReadHparams(GgufFile::FromBytes(array.Bytes()).value()).value().swa_period, 6);
  GgufWriter base = WithKey(MakeFixture(Gemma3()), "gemma3.rope.freq_base_swa", F32(1e6));
  std::vector<float> one_global = Logits(base),
                     none_global =
                         Logits(WithKey(base, "gemma3.attention.sliding_window_pattern", U32(0)));
  EXPECT_GT(Nmse(one_global, none_global), 1e-3) << "windowing layer 1 too changed nothing";
}

// Windowed layers rotate with gemma3.rope.freq_base_swa (10000 unless given) and no scaling;
// the global ones with rope.freq_base and the linear factor.
TEST(Gemma3, WindowedLayersRotateWithTheirOwnBaseUnscaled) {
  GgufWriter w = MakeFixture(Gemma3());
  auto hp = ReadHparams(GgufFile::FromBytes(w.Bytes()).value()).value();
  EXPECT_EQ(hp.rope_freq_base_swa, 10000.0f);
  EXPECT_EQ(hp.rope_freq_base, 1e6f);
  EXPECT_GT(Nmse(Logits(w), Logits(WithKey(w, "gemma3.rope.freq_base_swa", F32(1e6)))), 1e-3)
      << "the window's base changed nothing";
  // Every layer windowed, each window the whole prompt: a scaling factor must change nothing.
  FixtureSpec all = Gemma3();
  all.sliding_window = 64;
  all.swa_pattern = 0;
  std::vector<float> plain = Logits(MakeFixture(all));
  all.rope_scale = 4;
  EXPECT_EQ(plain, Logits(MakeFixture(all)));
  all.swa_pattern = 2;  // layer 1 global: now it does
  EXPECT_GT(Nmse(plain, Logits(MakeFixture(all))), 1e-6);
}

// post_attention_norm and post_ffw_norm each weigh their block's output.
TEST(Gemma3, SandwichNormsWeighEachBlocksOutput) {
  GgufWriter w = MakeFixture(Gemma3());
  std::vector<float> base = Logits(w);
  EXPECT_GT(Nmse(base, Logits(Scaled(w, "post_attention_norm", 3))), 1e-3)
      << "post_attention_norm changed nothing";
  EXPECT_GT(Nmse(base, Logits(Scaled(w, "post_ffw_norm", 3))), 1e-3)
      << "post_ffw_norm changed nothing";
}

TEST(Gemma3, SoftcappedLogitsAreCTimesTanhOfLogitsOverC) {
  GgufWriter capped = WithKey(MakeFixture(Gemma3()), "gemma3.final_logit_softcapping", F32(0.5));
  std::vector<float> c = Logits(capped),
                     plain =
                         Logits(WithKey(capped, "gemma3.final_logit_softcapping", std::nullopt));
  ASSERT_EQ(c.size(), plain.size());
  float widest = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    widest = std::max(widest, std::abs(plain[i]));
    ASSERT_NEAR(c[i], 0.5 * std::tanh(plain[i] / 0.5), 1e-6) << i;
  }
  EXPECT_GT(widest, 1.0f) << "no logit reached the cap: the test proves nothing";
}

// Gemma's query_pre_attn_scalar, as llama.cpp decides it: the 62-layer (27B) model scales by
// n_embd / n_head, every other by the head size.
TEST(Gemma3, QueriesAreScaledByTheHeadSizeButThe27BsByTheEmbeddingPerHead) {
  FixtureSpec s{.arch = "gemma3",
                .layers = 61,
                .dim = 64,
                .heads = 4,
                .kv_heads = 2,
                .ff = 16,
                .head_dim = 32};
  EXPECT_EQ(ReadHparams(*FixtureFile(s)).value().attention_scale, 1 / std::sqrt(32.0f));
  s.layers = 62;
  EXPECT_EQ(ReadHparams(*FixtureFile(s)).value().attention_scale, 1 / std::sqrt(16.0f));
}

TEST(Gemma3, BadKeysAndMissingNormsAreNamed) {
  GgufWriter w = MakeFixture(Gemma3());
  auto message = [](const GgufWriter& bad) {
    return LoadWriter(bad, ReferenceBackend()).status().message();
  };
  EXPECT_EQ(message(WithKey(w, "gemma3.attention.sliding_window", GgufValue::String("4"))),
            "gguf: gemma3.attention.sliding_window is not a non-negative integer");
  EXPECT_EQ(message(WithKey(w, "gemma3.final_logit_softcapping", F32(-1))),
            "gguf: gemma3.final_logit_softcapping must be a non-negative number");
  EXPECT_EQ(message(WithKey(w, "gemma3.rope.freq_base_swa", F32(0))),
            "gguf: gemma3.rope.freq_base_swa must be a positive number");
  GgufWriter no_norm = Relabelled(FixtureSpec{.arch = "qwen3", .seed = 41}, "gemma3");
  EXPECT_EQ(
      message(no_norm),
      "gguf: missing tensor blk.0.post_attention_norm.weight (gemma3 reads it, shape [64,1,1])");
}

}  // namespace
}  // namespace vt
