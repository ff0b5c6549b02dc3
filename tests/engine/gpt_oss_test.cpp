// gpt-oss's differences from llama's graph, each seen to matter on a fixture: the sinks, the
// router's and experts' biases, and its window key required. The float64 reference parity is
// Architecture.EachForwardEqualsTheFloat64Reference; llama.cpp's verdict on the same files,
// the clamped SwiGLU and YaRN on every layer included, is Oracle.GptOssMatchesLlamaCpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "fixture_support.h"
#include "parity_support.h"
#include "vt/fixture.h"
#include "vt/model.h"

namespace vt {
namespace {

using testing::AllLogits;
using testing::LoadWriter;
using testing::Nmse;
using testing::WithKey;

const std::vector<int32_t> kPrompt = {kFixtureBos, 'g', 'p', 't', '-', 'o', 's',
                                      's',         ' ', 's', 'i', 'n', 'k', 's'};

FixtureSpec GptOss() {
  return FixtureSpec{.arch = "gpt-oss",
                     .ff = 32,
                     .experts = 4,
                     .experts_used = 2,
                     .seed = 61,
                     .sliding_window = 4};
}
std::vector<float> Logits(const GgufWriter& w) { return AllLogits(w, ReferenceBackend(), kPrompt); }

// `w` with every f32 tensor whose name ends in `suffix` set to `value`.
GgufWriter Filled(const GgufWriter& w, const std::string& suffix, float value) {
  return testing::WithF32Tensors(w, [&](const std::string& name, std::vector<float>& values) {
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::fill(values.begin(), values.end(), value);
    }
  });
}

// A sink of -1000 weighs nothing: the file's own sinks (near 2) must change the logits.
TEST(GptOss, EachHeadsSinkTakesItsShareOfTheSoftmax) {
  GgufWriter w = MakeFixture(GptOss());
  EXPECT_GT(Nmse(Logits(w), Logits(Filled(w, "attn_sinks.weight", -1000))), 1e-3)
      << "the sinks changed nothing";
}

TEST(GptOss, TheRoutersAndExpertsBiasesAreAdded) {
  GgufWriter w = MakeFixture(GptOss());
  std::vector<float> base = Logits(w);
  EXPECT_GT(Nmse(base, Logits(Filled(w, "ffn_gate_inp.bias", 0))), 1e-4)
      << "the router's bias changed nothing";
  for (const char* name : {"ffn_gate_exps.bias", "ffn_up_exps.bias", "ffn_down_exps.bias"}) {
    EXPECT_GT(Nmse(base, Logits(Filled(w, name, 0))), 1e-4) << name << " changed nothing";
  }
}

// llama.cpp requires the window key, and a window of 0 would mask every position.
TEST(GptOss, AFileWithoutAWindowIsRefused) {
  GgufWriter w = MakeFixture(GptOss());
  const std::string want = "gguf: gpt-oss.attention.sliding_window must be given and positive";
  EXPECT_EQ(
      LoadWriter(WithKey(w, "gpt-oss.attention.sliding_window", std::nullopt), ReferenceBackend())
          .status()
          .message(),
      want);
  EXPECT_EQ(
      LoadWriter(WithKey(w, "gpt-oss.attention.sliding_window", GgufValue::Uint(GgufType::kU32, 0)),
                 ReferenceBackend())
          .status()
          .message(),
      want);
}

}  // namespace
}  // namespace vt
