// The architectures beyond llama (qwen2, qwen3, qwen3moe, phi3, gemma3; gemma3's own controls
// are in gemma3_test.cpp): read with their own key prefix,
// each forward equal to the float64 reference's, and each difference from llama's graph seen
// to matter (a fixture where it did not would prove nothing). llama.cpp's own verdict on the
// same files is in oracle_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fixture_support.h"
#include "parity_support.h"
#include "vt/fixture.h"
#include "vt/model.h"

namespace vt {
namespace {

using testing::FixtureFile;
using testing::Relabelled;

Backend& Cpu() { return *GetBackend(DeviceType::kCPU); }

const std::vector<int32_t> kPrompt = {kFixtureBos, 'T', 'h', 'e', ' ', 'q', 'w', 'e',
                                      'n',         ' ', 'f', 'i', 'l', 'e', 's'};

FixtureSpec Qwen2() { return FixtureSpec{.arch = "qwen2", .seed = 21, .biases = true}; }
FixtureSpec Qwen3() { return FixtureSpec{.arch = "qwen3", .seed = 22}; }
FixtureSpec Qwen3Moe() {
  return FixtureSpec{.arch = "qwen3moe", .ff = 48, .experts = 4, .experts_used = 2, .seed = 23};
}
FixtureSpec Phi3() { return FixtureSpec{.arch = "phi3", .seed = 26, .fused_qkv = true}; }
// Layer 0 windowed (4 positions, base 10000), layer 1 global (base 1e6, scaled by 1/2).
// Layers 0-2 windowed (8 positions), layer 3 global: olmo2's default period of 4.
FixtureSpec Olmo2() {
  return FixtureSpec{.arch = "olmo2", .layers = 4, .seed = 28, .sliding_window = 8};
}
// Layer 0 windowed (4 positions), layer 1 global, both YaRN-scaled; 4 experts with biases.
FixtureSpec GptOss() {
  return FixtureSpec{.arch = "gpt-oss",
                     .ff = 32,
                     .experts = 4,
                     .experts_used = 2,
                     .seed = 29,
                     .sliding_window = 4,
                     .rope_scale = 4,
                     .yarn = true};
}
FixtureSpec Gemma3() {
  return FixtureSpec{.arch = "gemma3",
                     .seed = 27,
                     .sliding_window = 4,
                     .swa_pattern = 2,
                     .rope_scale = 2,
                     .logit_softcap = 30};
}

StatusOr<std::unique_ptr<Model>> LoadFile(const GgufWriter& w, Backend& b) {
  return testing::LoadWriter(w, b);
}
std::vector<float> Logits(const GgufWriter& w, Backend& b) {
  return testing::AllLogits(w, b, kPrompt);
}

TEST(Architecture, AnUnsupportedOneIsRefusedNamingItAndTheSupportedOnes) {
  GgufWriter w = MakeFixture(FixtureSpec{});
  w.Set("general.architecture", GgufValue::String("mamba"));
  auto m = LoadFile(w, Cpu());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(m.status().message(),
            "unsupported architecture \"mamba\" (vt runs llama, qwen2, qwen3, qwen3moe, phi3, "
            "gemma3, olmo2, gpt-oss)");
}

TEST(Architecture, KeysAreReadWithTheArchitecturesOwnPrefix) {
  auto hp = ReadHparams(*FixtureFile(Qwen3Moe()));
  ASSERT_TRUE(hp.ok()) << hp.status().ToString();
  EXPECT_EQ(hp->n_layer, 2);
  EXPECT_EQ(hp->n_expert, 4);
  EXPECT_EQ(hp->n_ff_exp, 48);
  // A qwen3 file whose keys say llama.*: its own are missing, and named.
  GgufWriter w = Relabelled(Qwen3(), "llama");
  w.Set("general.architecture", GgufValue::String("qwen3"));  // Set replaces the value
  auto wrong = ReadHparams(GgufFile::FromBytes(w.Bytes()).value());
  EXPECT_EQ(wrong.status().message(), "gguf: missing key qwen3.embedding_length");
}

TEST(Architecture, EachForwardEqualsTheFloat64Reference) {
  for (FixtureSpec s : {Qwen2(), Qwen3(), Qwen3Moe(), Phi3(), Gemma3(), Olmo2(), GptOss()}) {
    for (DType dt : {DType::kF32, DType::kF16}) {
      s.dtype = dt;
      SCOPED_TRACE(s.arch + " " + std::string(DTypeName(dt)));
      std::vector<float> cpu = Logits(MakeFixture(s), Cpu()),
                         ref = Logits(MakeFixture(s), ReferenceBackend());
      ASSERT_EQ(cpu.size(), ref.size());
      EXPECT_LT(testing::Nmse(ref, cpu), 1e-6);
    }
  }
}

// The negative control for NEOX: the same weights as llama (adjacent pairs) give other logits,
// so the fixture is sharp enough that the reference parity above would see the wrong mode.
TEST(Architecture, Qwen2RotatesHalvesWhereLlamaRotatesAdjacentPairs) {
  FixtureSpec s = Qwen2();
  std::vector<float> qwen2 = Logits(MakeFixture(s), ReferenceBackend()),
                     llama = Logits(Relabelled(s, "llama"), ReferenceBackend());
  ASSERT_EQ(qwen2.size(), llama.size());
  EXPECT_GT(testing::Nmse(qwen2, llama), 1e-3)
      << "NEOX and adjacent pairs gave the same logits: the fixture cannot tell them apart";
}

// The negative control for the per-head norms: their weights change the logits, and a file
// without them is refused naming the tensor and its shape.
TEST(Architecture, Qwen3NormalisesEachHeadOfQAndKWithItsOwnWeights) {
  FixtureSpec unit = Qwen3();
  unit.qk_norm_gain = 1;
  std::vector<float> gained = Logits(MakeFixture(Qwen3()), ReferenceBackend()),
                     plain = Logits(MakeFixture(unit), ReferenceBackend());
  ASSERT_EQ(gained.size(), plain.size());
  EXPECT_GT(testing::Nmse(gained, plain), 1e-3) << "the Q/K norm weights changed nothing";
  GgufWriter none = Relabelled(FixtureSpec{.seed = 22}, "qwen3");
  auto m = LoadFile(none, Cpu());
  EXPECT_EQ(m.status().message(),
            "gguf: missing tensor blk.0.attn_q_norm.weight (qwen3 reads it, shape [16,1,1])");
}

// What only llama's graph reads is refused in another architecture's file, never ignored.
TEST(Architecture, ATensorTheArchitectureDoesNotReadIsRefused) {
  GgufWriter w = Relabelled(FixtureSpec{.seed = 24, .biases = true}, "qwen2");
  auto m = LoadFile(w, Cpu());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(),
            "gguf: tensor blk.0.attn_output.bias is not one vt's qwen2 reads (refused rather than "
            "ignored)");
}

TEST(Architecture, Qwen3MoeExpertsHaveTheirOwnWidth) {
  GgufWriter w = MakeFixture(Qwen3Moe());
  w.Set("qwen3moe.expert_feed_forward_length", GgufValue::Uint(GgufType::kU32, 32));
  auto m = LoadFile(w, Cpu());
  EXPECT_EQ(m.status().message(),
            "gguf: blk.0.ffn_gate_exps.weight has shape [64,48,4], expected [64,32,4]");
  auto relabelled = Relabelled(FixtureSpec{.seed = 25}, "qwen3moe");
  EXPECT_EQ(LoadFile(relabelled, Cpu()).status().message(),
            "gguf: missing key qwen3moe.expert_count (qwen3moe is a MoE)");
}

// phi3's ffn_up.weight is the gate's rows, then the up's: the same file with its halves swapped
// gives other logits (so the reference parity above would see a wrong order), and a file whose
// ffn_up is one half wide is refused naming the shape it must have.
TEST(Architecture, Phi3SplitsItsFusedGateAndUpGateFirst) {
  auto file = GgufFile::FromBytes(MakeFixture(Phi3()).Bytes()).value();
  GgufWriter swapped;
  for (const auto& [key, value] : file.metadata()) swapped.Set(key, value);
  for (const GgufTensorInfo& t : file.tensors()) {
    auto* data = static_cast<const uint8_t*>(file.TensorView(t.name).value().data);
    std::vector<uint8_t> bytes(data, data + t.bytes);
    if (t.name.find("ffn_up") != std::string::npos)
      std::rotate(bytes.begin(), bytes.begin() + bytes.size() / 2, bytes.end());
    swapped.AddTensor(t.name, t.dtype, t.ne, t.n_dims, bytes.data());
  }
  std::vector<float> right = Logits(MakeFixture(Phi3()), ReferenceBackend()),
                     wrong = Logits(swapped, ReferenceBackend());
  ASSERT_EQ(right.size(), wrong.size());
  EXPECT_GT(testing::Nmse(right, wrong), 1e-3) << "swapping the gate and the up changed nothing";
  auto unfused =
      Relabelled(FixtureSpec{.seed = 26}, "phi3");  // a llama file's separate gate and up
  EXPECT_EQ(LoadFile(unfused, Cpu()).status().message(),
            "gguf: blk.0.ffn_up.weight has shape [64,128,1], expected [64,256,1] (the gate's rows, "
            "then the up's)");
}

}  // namespace
}  // namespace vt
