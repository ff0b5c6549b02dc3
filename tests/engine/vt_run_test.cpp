// vt-fixture and vt-run as a user runs them: real processes, real files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "tool_support.h"
#include "vt/cuda.h"
#include "vt/fixture.h"
#include "vt/gguf.h"

namespace {

using Result = vt::testing::ToolResult;
using vt::testing::Sh;

class VtRun : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = (std::filesystem::temp_directory_path() /
              ("vt-model-" + std::to_string(getpid()) + ".gguf"))
                 .string();
    Result r = Sh(std::string(VT_FIXTURE_BIN) + " -o " + model_ +
                  " --layers 2 --dim 64 --heads 4 --kv-heads 2 --experts 4");
    ASSERT_EQ(r.code, 0) << r.err;
  }
  void TearDown() override { std::filesystem::remove(model_); }
  std::string model_;
};

TEST_F(VtRun, GeneratesTheRequestedTokensAndReportsBothSpeeds) {
  Result r = Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hello' -n 20 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["prompt_tokens"], 6);  // <s> + 5 bytes
  EXPECT_EQ(j["generated_tokens"], 20);
  EXPECT_GT(j["prompt_tokens_per_s"].get<double>(), 0);
  EXPECT_GT(j["decode_tokens_per_s"].get<double>(), 0);
}

// A --ctx-size shorter than prompt + n ends the generation when the cache is full, with
// finish "length" and the report: a cache of 10 holds the 6-token prompt and 4 more, and the
// last token sampled needs no room (an outside tester's run lost its --json report).
TEST_F(VtRun, AFullContextEndsTheGenerationWithItsReport) {
  Result r =
      Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hello' -n 20 -c 10 --ignore-eos --json");
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["generated_tokens"], 5);
  EXPECT_EQ(j["finish_reason"], "length");
  Result small = Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hello' -n 20 -c 5 --json");
  EXPECT_EQ(small.code, 2);
  EXPECT_NE(small.err.find("--ctx-size 5 holds fewer than the prompt's 6 tokens"),
            std::string::npos)
      << small.err;
}

// The report names the threads the CPU ran with, VT_THREADS's or -t's, never 0.
TEST_F(VtRun, CacheTypesAreLlamaCppsFlagsAndMustAgree) {
  const std::string run = std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hi' -n 2 --json";
  EXPECT_EQ(nlohmann::json::parse(Sh(run).out)["kv_cache_dtype"], "f32");
  EXPECT_EQ(nlohmann::json::parse(Sh(run + " -ctk f16 -ctv f16").out)["kv_cache_dtype"], "f16");
  EXPECT_EQ(nlohmann::json::parse(
                Sh(run + " --cache-type-k float16 --cache-type-v f16").out)["kv_cache_dtype"],
            "f16");
  Result mixed = Sh(run + " -ctk f16");
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find("--cache-type-k f16 and --cache-type-v f32 differ"), std::string::npos)
      << mixed.err;
  EXPECT_EQ(nlohmann::json::parse(Sh(run + " -ctk bf16 -ctv bfloat16").out)["kv_cache_dtype"],
            "bf16");
  Result blocks = Sh(run + " -ctk q8_0 -ctv q8_0");  // this fixture's heads are 16 wide
  EXPECT_EQ(blocks.code, 2);
  EXPECT_NE(blocks.err.find("-ctk q8_0: a q8_0 KV cache needs a head dimension that is a multiple "
                            "of 32; this model's is 16"),
            std::string::npos)
      << blocks.err;
  Result unknown = Sh(run + " -ctk q4_0 -ctv q4_0");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("--cache-type-k q4_0: the KV cache's type must be"), std::string::npos)
      << unknown.err;
}

// llama.cpp's speculation flags: n-gram lookup and a draft model (here the target itself, so
// every draft is right) give the tokens vt-run gives without them, and say what they drafted.
TEST_F(VtRun, SpeculationGivesTheSameTokensAndCountsItsDrafts) {
  const std::string run =
      std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hello' -n 60 --ignore-eos --json";
  nlohmann::json plain = nlohmann::json::parse(Sh(run).out);
  EXPECT_EQ(plain["spec_type"], "none");
  EXPECT_EQ(plain["draft_tokens"], 0);
  Result ngram = Sh(run + " --spec-type ngram-simple --draft-max 6 --spec-ngram-simple-size-n 3");
  ASSERT_EQ(ngram.code, 0) << ngram.err;
  nlohmann::json n = nlohmann::json::parse(ngram.out);
  EXPECT_EQ(n["tokens"], plain["tokens"]);
  EXPECT_EQ(n["spec_type"], "ngram-simple");
  EXPECT_GT(n["drafts"].get<int>(), 0);
  Result self = Sh(run + " -md " + model_ + " --draft-max 4");
  ASSERT_EQ(self.code, 0) << self.err;
  nlohmann::json d = nlohmann::json::parse(self.out);
  EXPECT_EQ(d["tokens"], plain["tokens"]);
  EXPECT_EQ(d["spec_type"], "draft-simple");
  EXPECT_GT(d["draft_tokens"].get<int>(), 0);
  EXPECT_EQ(d["accepted_tokens"], d["draft_tokens"]);
}

// --draft-min: a draft shorter than it is not verified. 9 tokens drafting 4 for itself: the
// prompt's token, 4 kept and one more, then only 2 may be drafted before max_tokens (6 drafted
// in all); with --draft-min 4 those 2 (and the 1 after) are plain decodes (4 drafted).
TEST_F(VtRun, DraftsShorterThanDraftMinAreNotVerified) {
  const std::string run = std::string(VT_RUN_BIN) + " -m " + model_ +
                          " -p 'Hello' -n 9 --ignore-eos --json -md " + model_ + " --draft-max 4";
  nlohmann::json all = nlohmann::json::parse(Sh(run).out),
                 min = nlohmann::json::parse(Sh(run + " --draft-min 4").out);
  EXPECT_EQ(all["draft_tokens"], 6);
  EXPECT_EQ(min["draft_tokens"], 4);
  EXPECT_EQ(min["tokens"], all["tokens"]);
}

TEST_F(VtRun, SpeculationFlagsThatCannotWorkAreRefusedNamingTheFlag) {
  const std::string run = std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hi' -n 4";
  Result alone = Sh(run + " --spec-type draft-simple");
  EXPECT_EQ(alone.code, 2);
  EXPECT_NE(alone.err.find("--spec-type draft-simple needs --model-draft"), std::string::npos)
      << alone.err;
  Result order = Sh(run + " --spec-type ngram-simple --draft-min 5 --draft-max 2");
  EXPECT_EQ(order.code, 2);
  EXPECT_NE(order.err.find("--draft-min 5 is more than --draft-max 2"), std::string::npos)
      << order.err;
  const std::string other = model_ + ".text.gguf";
  ASSERT_EQ(Sh(std::string(VT_FIXTURE_BIN) + " -o " + other + " --text-vocab").code, 0);
  Result vocab = Sh(run + " -md " + other);
  std::filesystem::remove(other);
  EXPECT_EQ(vocab.code, 2);
  EXPECT_NE(vocab.err.find("--model-draft " + other +
                           ": the draft's vocabulary differs from the target's at token 0"),
            std::string::npos)
      << vocab.err;
  // Flags that would change nothing (a typo would go unseen).
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {" --draft-max 4", "--draft-max does nothing without --spec-type or --model-draft"},
           {" -md ''", "--model-draft needs a GGUF file"},
           {" --spec-type ngram-simple --draft-max 0", "--draft-max 0 drafts nothing"},
           {" -md " + model_ + " --spec-ngram-simple-size-n 3",
            "--spec-ngram-simple-size-n is for --spec-type ngram-simple only"}}) {
    Result r = Sh(run + flags);
    EXPECT_EQ(r.code, 2) << flags;
    EXPECT_NE(r.err.find(message), std::string::npos) << flags << ": " << r.err;
  }
  Result missing = Sh(run + " -md /nonexistent.gguf");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("--model-draft /nonexistent.gguf"), std::string::npos) << missing.err;
}

TEST_F(VtRun, TheJsonReportNamesTheThreadsUsed) {
  std::string run = std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hi' -n 2 --json";
  EXPECT_EQ(nlohmann::json::parse(Sh("VT_THREADS=3 " + run).out)["threads"], 3);
  EXPECT_EQ(nlohmann::json::parse(Sh(run + " -t 2").out)["threads"], 2);
  EXPECT_GE(nlohmann::json::parse(Sh("env -u VT_THREADS " + run).out)["threads"].get<int>(), 1);
}

// The CPU's matmul kernel set that ran (specs/amx.md), beside the timings and in --json, with
// why it is not the one VT_MATMUL asked for.
TEST_F(VtRun, TheReportNamesTheMatmulKernelSet) {
  const std::string run = std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hi' -n 2";
  EXPECT_EQ(nlohmann::json::parse(Sh("VT_MATMUL=generic " + run + " --json").out)["kernels"],
            "generic");
  Result text = Sh("VT_MATMUL=avx9 " + run);
  EXPECT_NE(text.err.find("kernels:     "), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("; avx9: no such set"), std::string::npos) << text.err;
  // Speculation that could verify 49 rows at once keeps the batch-invariant kernels (with AMX:
  // the amx set, only weights in tile order on the tiles); a smaller one keeps the plain run's
  // (the prompt on the same kernels, every step below the tiles).
  const nlohmann::json plain = nlohmann::json::parse(Sh(run + " --json").out);
  const nlohmann::json wide =
      nlohmann::json::parse(Sh(run + " --spec-type ngram-simple --draft-max 48 --json").out);
  EXPECT_EQ(wide["kernels"], plain["kernels"]);
  EXPECT_EQ(wide["kernels_note"].get<std::string>().find("only weights in tile order") !=
                std::string::npos,
            plain["kernels"] == "amx")
      << wide["kernels_note"];
  EXPECT_EQ(nlohmann::json::parse(
                Sh(run + " --spec-type ngram-simple --draft-max 47 --json").out)["kernels_note"],
            plain["kernels_note"]);
}

// A token spelled as an end of turn ends the generation as eos does (llama.cpp's EOG list):
// the token vt-run generates first on a fixture, respelled "<end_of_turn>" (control) in the
// vocabulary, stops it there with finish "stop" (a Gemma 3 turn ends so; its eos is <eos>).
TEST_F(VtRun, ATokenSpelledAsAnEndOfTurnEndsTheGeneration) {
  vt::GgufWriter w = vt::MakeFixture(vt::FixtureSpec{});
  ASSERT_TRUE(w.Write(model_).ok());
  const std::string run = std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hi' -n 6 --json";
  nlohmann::json before = nlohmann::json::parse(Sh(run).out);
  ASSERT_EQ(before["generated_tokens"], 6)
      << "the fixture stopped on its own eos: pick another prompt";
  const int first = before["tokens"][0];
  auto file = vt::GgufFile::FromBytes(w.Bytes());
  ASSERT_TRUE(file.ok());
  std::vector<vt::GgufValue> tokens = *file->Find("tokenizer.ggml.tokens")->AsArray(),
                             types = *file->Find("tokenizer.ggml.token_type")->AsArray();
  tokens[static_cast<size_t>(first)] = vt::GgufValue::String("<end_of_turn>");
  types[static_cast<size_t>(first)] = vt::GgufValue::Int(vt::GgufType::kI32, 3);  // control
  w.Set("tokenizer.ggml.tokens", vt::GgufValue::Array(vt::GgufType::kString, tokens));
  w.Set("tokenizer.ggml.token_type", vt::GgufValue::Array(vt::GgufType::kI32, types));
  ASSERT_TRUE(w.Write(model_).ok());
  nlohmann::json after = nlohmann::json::parse(Sh(run).out);
  EXPECT_EQ(after["tokens"], nlohmann::json::array({first}));
  EXPECT_EQ(after["finish_reason"], "stop");
}

TEST_F(VtRun, TextGoesToStdoutAndTimingsToStderr) {
  Result r = Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Hi' -n 5 -t 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("prompt eval: 3 tokens in "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("decode:      4 tokens in "), std::string::npos) << r.err;
}

TEST_F(VtRun, TheSameModelAndPromptGiveTheSameTokens) {
  std::string cmd = std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'abc' -n 12 --json";
  EXPECT_EQ(nlohmann::json::parse(Sh(cmd).out)["tokens"],
            nlohmann::json::parse(Sh(cmd + " -t 1").out)["tokens"]);
}

TEST_F(VtRun, BadInputExitsTwoWithAMessage) {
  Result missing = Sh(std::string(VT_RUN_BIN) + " -m /nonexistent.gguf -p x");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err, "vt-run: /nonexistent.gguf: No such file or directory\n");
  std::ofstream(model_, std::ios::trunc) << "not a gguf file";
  Result garbage = Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p x");
  EXPECT_EQ(garbage.code, 2);
  EXPECT_NE(garbage.err.find("bad magic (not a GGUF file)"), std::string::npos) << garbage.err;
  EXPECT_EQ(Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p x -n 0").code, 2);
  // A whole-text vocabulary has no token for these bytes: refused, not run without them.
  Result text_vocab = Sh(std::string(VT_FIXTURE_BIN) + " -o " + model_ +
                         " --layers 1 --dim 32 --heads 2 --kv-heads 1 --text-vocab");
  ASSERT_EQ(text_vocab.code, 0) << text_vocab.err;
  Result lost = Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'ab\xc3\xa9' -n 1");
  EXPECT_EQ(lost.code, 2);
  EXPECT_EQ(lost.err,
            "vt-run: --prompt holds bytes the model's vocabulary has no token for (no byte tokens, "
            "no unknown token): \\xc3\\xa9\n");
}

TEST_F(VtRun, ASeedGivesTheSameSampledTokensAndAnotherSeedOthers) {
  std::string cmd = std::string(VT_RUN_BIN) + " -m " + model_ +
                    " -p 'abc' -n 24 --json --ignore-eos --temperature 1.5 --seed ";
  auto tokens = [&](const std::string& seed) {
    return nlohmann::json::parse(Sh(cmd + seed).out)["tokens"];
  };
  EXPECT_EQ(tokens("7"), tokens("7"));
  EXPECT_NE(tokens("7"), tokens("8"));
}

// The fixture's text is random bytes: stop at the first letter after the start of one run's
// text, and the second run must print exactly what came before it.
TEST_F(VtRun, AStopStringEndsTheTextBeforeItWithFinishReasonStop) {
  std::string cmd = std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'abc' -n 40 --ignore-eos";
  Result full = Sh(cmd);
  ASSERT_EQ(full.code, 0) << full.err;
  std::string text =
      full.out.substr(0, full.out.size() - 1);  // vt-run ends the text with a newline
  size_t at = text.find_first_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 1);
  ASSERT_NE(at, std::string::npos) << "no letter in this fixture's text";
  std::string stop(1, text[at]);
  Result cut = Sh(cmd + " --stop " + stop);
  ASSERT_EQ(cut.code, 0) << cut.err;
  EXPECT_EQ(cut.out, text.substr(0, text.find(stop)) + "\n");
  nlohmann::json j = nlohmann::json::parse(Sh(cmd + " --stop " + stop + " --json").out);
  EXPECT_EQ(j["finish_reason"], "stop");
  EXPECT_EQ(nlohmann::json::parse(Sh(cmd + " --json").out)["finish_reason"], "length");
}

TEST_F(VtRun, InvalidSamplingValuesExitTwoNamingTheField) {
  Result r = Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p x --temperature -1");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vt-run: temperature must be >= 0, got -1\n");
  EXPECT_EQ(Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p x --top-p 0").code, 2);
}

TEST(VtFixture, RefusesShapesThatCannotBeAModel) {
  Result r = Sh(std::string(VT_FIXTURE_BIN) + " -o /tmp/never.gguf --dim 10 --heads 4");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the head size (--head-dim, or --dim over --heads) must be whole and even"),
            std::string::npos)
      << r.err;
  Result odd =
      Sh(std::string(VT_FIXTURE_BIN) + " -o /tmp/never.gguf --dim 64 --heads 4 --head-dim 7");
  EXPECT_EQ(odd.code, 2);
  EXPECT_NE(odd.err.find("must be whole and even"), std::string::npos) << odd.err;
  Result q =
      Sh(std::string(VT_FIXTURE_BIN) + " -o /tmp/never.gguf --dim 96 --heads 4 --dtype q4_k");
  EXPECT_EQ(q.code, 2);
  EXPECT_NE(q.err.find("--dtype q4_k needs --dim and --ff multiples of 256 (got 96 and 128)"),
            std::string::npos)
      << q.err;
}

TEST(VtFixture, WritesABlockTypeModelThatVtRunNamesWithItsBytes) {
  // 2 layers, 256 wide, ff 512, 258 tokens: 1311744 matrix elements in Q8_0 (34 bytes per 32:
  // 1393728 bytes, 1.3 MiB) and 1280 f32 norm weights, 21 tensors.
  std::string path =
      (std::filesystem::temp_directory_path() / ("vt-q8-" + std::to_string(getpid()) + ".gguf"))
          .string();
  Result made = Sh(std::string(VT_FIXTURE_BIN) + " -o " + path +
                   " --layers 2 --dim 256 --heads 4 --kv-heads 2 --ff 512 --dtype q8_0");
  ASSERT_EQ(made.code, 0) << made.err;
  Result r = Sh(std::string(VT_RUN_BIN) + " -m " + path + " -p 'Hi' -n 4 --json");
  std::filesystem::remove(path);
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["weights"], "q8_0 1.3 MiB, f32 0.0 MiB (1.3 MiB in 21 tensors)");
  EXPECT_EQ(j["generated_tokens"], 4);
}

}  // namespace

namespace {

// --device and --moe-on, on the Vulkan device there is (lavapipe where no GPU is).
class VtRunDevice : public VtRun {
 protected:
  void SetUp() override {
    VtRun::SetUp();
    Result list =
        Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p x -n 1 --device vulkan --json");
    if (list.code != 0) GTEST_SKIP() << "no Vulkan device: " << list.err;
  }
  nlohmann::json Json(const std::string& flags) {
    Result r =
        Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p 'Devices agree' -n 16 --json " + flags);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  }
};

TEST_F(VtRunDevice, VulkanGivesTheCpusTokens) {
  nlohmann::json cpu = Json("--device cpu"), gpu = Json("--device vulkan:0");
  EXPECT_EQ(gpu["tokens"], cpu["tokens"]);
  EXPECT_EQ(cpu["device"], "cpu");
  EXPECT_EQ(gpu["device"].get<std::string>().rfind("vulkan:", 0), 0u) << gpu["device"];
  EXPECT_EQ(gpu["moe_copies"], 0);  // experts on the device with everything else
}

TEST_F(VtRunDevice, MoeOnCpuKeepsTheExpertsThereAndTheTokens) {
  nlohmann::json cpu = Json(""), placed = Json("--device vulkan --moe-on cpu");
  EXPECT_EQ(placed["tokens"], cpu["tokens"]);
  // 2 layers × 16 forward calls (1 prefill, 15 decodes) × there and back.
  EXPECT_EQ(placed["moe_copies"], 64);
}

TEST_F(VtRunDevice, UnknownDevicesAndPlacementsExitTwoSayingWhy) {
  std::string run = std::string(VT_RUN_BIN) + " -m " + model_ + " -p x -n 2 ";
  Result tpu = Sh(run + "--device tpu");
  EXPECT_EQ(tpu.code, 2);
  EXPECT_EQ(tpu.err, "vt-run: --device: unknown device \"tpu\" (cpu, vulkan[:N], cuda[:N])\n");
  Result missing = Sh(run + "--device vulkan:no-such-gpu");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(
      missing.err.find("--device vulkan:no-such-gpu: vulkan: no device matches \"no-such-gpu\""),
      std::string::npos)
      << missing.err;
  Result moe = Sh(run + "--moe-on gpu");
  EXPECT_EQ(moe.code, 2);
  EXPECT_NE(moe.err.find("--moe-on"), std::string::npos) << moe.err;
}

}  // namespace

namespace {

// No Vulkan driver (the loader finds no ICD): exit 2 saying so, never an abort.
TEST_F(VtRun, VulkanWithoutADriverExitsTwoSayingWhy) {
  Result r = Sh("VK_ICD_FILENAMES=/nonexistent.json VK_DRIVER_FILES=/nonexistent.json " +
                std::string(VT_RUN_BIN) + " -m " + model_ + " -p x -n 2 --device vulkan");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("vt-run: --device vulkan: vulkan: ", 0), 0u) << r.err;
}

// Where no GPU is, --device cuda is a clear exit 2 in the CUDA runtime's words, not an abort.
TEST_F(VtRun, CudaWithoutADeviceExitsTwoSayingWhy) {
  auto devices = vt::ListCudaDevices();
  if (devices.ok()) GTEST_SKIP() << "this machine has a CUDA device";
  Result r = Sh(std::string(VT_RUN_BIN) + " -m " + model_ + " -p x -n 2 --device cuda");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vt-run: --device cuda: " + devices.status().message() + "\n");
}

}  // namespace

namespace {

// vt-fixture writes each architecture vt runs, vt-run runs it and vt-bench measures it, as a
// user would.
TEST(VtRunArchitectures, RunsEveryArchitectureVtFixtureWrites) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("vt-run-arch-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (std::string arch :
       {"llama", "qwen2", "qwen3", "qwen3moe", "phi3", "gemma3", "olmo2", "gpt-oss"}) {
    std::string model = dir + "/" + arch + ".gguf";
    Result made = Sh(std::string(VT_FIXTURE_BIN) + " -o " + model + " --arch " + arch +
                     " --layers 2 --dim 64 --heads 4 --kv-heads 2" +
                     (arch == "qwen3moe" || arch == "gpt-oss" ? " --experts 4 --ff 32" : "") +
                     (arch == "gemma3" || arch == "olmo2" || arch == "gpt-oss"
                          ? " --sliding-window 4 --swa-pattern 2"
                          : ""));
    ASSERT_EQ(made.code, 0) << arch << ": " << made.err;
    Result run =
        Sh(std::string(VT_RUN_BIN) + " -m " + model + " -p Hello -n 8 --ignore-eos --json -t 1");
    EXPECT_EQ(run.code, 0) << arch << ": " << run.err;
    EXPECT_EQ(nlohmann::json::parse(run.out, nullptr, false)["tokens"].size(), 8u)
        << arch << ": " << run.out;
    Result bench = Sh(std::string(VT_BENCH_BIN) + " -m " + model +
                      " -p 16 -n 4 -r 1 -t 1 -o json");  // vt-bench measures it too
    EXPECT_EQ(bench.code, 0) << arch << ": " << bench.err;
    EXPECT_EQ(nlohmann::json::parse(bench.out, nullptr, false)["results"].size(), 2u)
        << arch << ": " << bench.out;
  }
  Result moe = Sh(std::string(VT_FIXTURE_BIN) + " -o " + dir + "/y.gguf --arch qwen3moe");
  EXPECT_EQ(moe.code, 2) << "a qwen3moe fixture without experts: " << moe.err;
  Result window =
      Sh(std::string(VT_FIXTURE_BIN) + " -o " + dir + "/w.gguf --arch qwen3 --sliding-window 4");
  EXPECT_EQ(window.code, 2) << "a window on an architecture without one: " << window.err;
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// llama.cpp's -j/--json-schema and --grammar: every sampled output is what they allow, ending
// once nothing more may come; a bad one is exit 2 naming its flag.
TEST_F(VtRun, AJsonSchemaOrAGrammarShapesTheOutput) {
  // --ignore-eos: only the grammar's end may stop it.
  const std::string run = std::string(VT_RUN_BIN) + " -m " + model_ +
                          " -p 'Hi' -n 200 --temperature 1 --ignore-eos --json";
  const std::string schema =
      R"('{"type": "object", "properties": {"n": {"type": "integer", "minimum": -5, "maximum": 5},
    "b": {"type": "boolean"}}, "required": ["n", "b"]}')";
  for (int seed = 1; seed <= 4; ++seed) {
    Result r = Sh(run + " --seed " + std::to_string(seed) + " -j " + schema);
    ASSERT_EQ(r.code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["finish_reason"], "stop");
    nlohmann::json out = nlohmann::json::parse(j["text"].get<std::string>(), nullptr, false);
    ASSERT_TRUE(out.is_object()) << j["text"];
    EXPECT_EQ(out.size(), 2u) << out.dump();
    EXPECT_TRUE(out["n"].is_number_integer() && std::abs(out["n"].get<int>()) <= 5) << out.dump();
    EXPECT_TRUE(out["b"].is_boolean()) << out.dump();
    Result g =
        Sh(run + " --seed " + std::to_string(seed) + " --grammar 'root ::= \"<\" [xy]{2,4} \">\"'");
    EXPECT_TRUE(std::regex_match(nlohmann::json::parse(g.out)["text"].get<std::string>(),
                                 std::regex("<[xy]{2,4}>")))
        << g.out;
  }
  Result bad = Sh(run + " --grammar 'root ::= x'");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--grammar: line 1, column 10: rule 'x' is not defined"),
            std::string::npos)
      << bad.err;
  Result two = Sh(run + " --grammar 'root ::= \"a\"' -j '{}'");
  EXPECT_EQ(two.code, 2);
  EXPECT_NE(two.err.find("give one of --grammar"), std::string::npos) << two.err;
}

}  // namespace
