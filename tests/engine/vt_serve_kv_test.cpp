// vt-serve's paged KV cache as a client sees it (specs/serve-scheduler.md): a prefix shared by
// requests is computed once, and a budget far below the load preempts without changing a token.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "http_client.h"
#include "tool_support.h"

namespace {

using Json = nlohmann::json;
using vt::testing::Metric;
using vt::testing::ServeProcess;
using vt::testing::TextOf;

class VtServeKv : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(vt::testing::TinyFixtureDir("vt-serve-kv-test"));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  std::unique_ptr<ServeProcess> Serve(std::vector<std::string> more) {
    std::vector<std::string> args = {"-m", *dir_ + "/m.gguf", "--served-model-name", "tiny", "-t",
                                     "1"};
    args.insert(args.end(), more.begin(), more.end());
    std::string error;
    auto server = ServeProcess::Start(VT_SERVE_BIN, args, &error);
    EXPECT_TRUE(server) << error;
    return server;
  }
  static std::string Greedy(const std::string& prompt, int max_tokens) {
    return Json{
        {"prompt", prompt}, {"max_tokens", max_tokens}, {"temperature", 0}, {"ignore_eos", true}}
        .dump();
  }
  static std::string* dir_;
};
std::string* VtServeKv::dir_ = nullptr;

constexpr char kHits[] = "vllm:prefix_cache_hits_total{model_name=\"tiny\"}";

// BOS and 320 shared bytes: 20 full blocks of 16 the second request takes from the first.
TEST_F(VtServeKv, APrefixSharedByRequestsIsComputedOnce) {
  const std::string prefix(320, 'x'), a = prefix + " the first question",
                                      b = prefix + " and the second";
  auto cached = Serve({"--max-model-len", "1024"});
  ASSERT_TRUE(cached);
  EXPECT_NE(cached->Log().find("prefix caching on"), std::string::npos) << cached->Log();
  TextOf(cached->Post("/v1/completions", Greedy(a, 8)));
  EXPECT_EQ(Metric(cached->Get("/metrics").body, kHits), 0);
  const std::string shared = TextOf(cached->Post("/v1/completions", Greedy(b, 8)));
  EXPECT_EQ(Metric(cached->Get("/metrics").body, kHits), 320);
  auto fresh = Serve({"--max-model-len", "1024", "--no-enable-prefix-caching"});
  ASSERT_TRUE(fresh);
  TextOf(fresh->Post("/v1/completions", Greedy(a, 8)));
  EXPECT_EQ(TextOf(fresh->Post("/v1/completions", Greedy(b, 8))), shared)
      << "the cached prefix changed the answer";
  EXPECT_EQ(Metric(fresh->Get("/metrics").body, kHits), 0);
}

// 16 requests of about 70 tokens need about 80 blocks; the budget holds 20 (163840 bytes).
TEST_F(VtServeKv, ABudgetOfAQuarterPreemptsAndEveryAnswerIsWhole) {
  auto server = Serve({"--max-num-seqs", "16", "--max-num-batched-tokens", "64", "--max-model-len",
                       "128", "--kv-cache-memory-bytes", "160KiB", "--no-enable-prefix-caching"});
  ASSERT_TRUE(server);
  EXPECT_NE(server->Log().find("KV cache: 20 blocks of 16 positions"), std::string::npos)
      << server->Log();
  std::vector<std::string> bodies, alone, together(16);
  for (int i = 0; i < 16; ++i)
    bodies.push_back(
        Greedy("Request " + std::to_string(i) + std::string(static_cast<size_t>(i), '.'), 48));
  for (const std::string& body : bodies)
    alone.push_back(TextOf(server->Post("/v1/completions", body)));
  std::vector<std::thread> clients;
  for (int i = 0; i < 16; ++i)
    clients.emplace_back(
        [&, i] { together[i] = TextOf(server->Post("/v1/completions", bodies[i])); });
  for (std::thread& c : clients) c.join();
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(together[i], alone[i]) << "request " << i << " changed under preemption";
  EXPECT_GT(Metric(server->Get("/metrics").body, "vllm:num_preemptions_total{model_name=\"tiny\"}"),
            0);
}

TEST_F(VtServeKv, ABudgetThatCannotHoldTheContextIsRefusedAtStartup) {
  const std::string serve =
      "timeout 5 " + std::string(VT_SERVE_BIN) + " -m " + *dir_ + "/m.gguf --port 0 ";
  auto r = vt::testing::Sh(serve + "--kv-cache-memory-bytes 160KiB --max-model-len 1024");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--max-model-len 1024 is longer than the KV cache holds: 320 positions"),
            std::string::npos)
      << r.err;
  r = vt::testing::Sh(serve + "--kv-cache-memory-bytes 1000");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--kv-cache-memory-bytes 1000 is not between one block (8192 bytes"),
            std::string::npos)
      << r.err;
}

// The default budget is whole blocks: 2 contexts of 17 positions take 2 blocks each, and one
// context of 15 still has its block. A budget past the host's memory is refused at start.
TEST_F(VtServeKv, TheDefaultBudgetHoldsEveryContextInWholeBlocks) {
  auto two = Serve({"--max-model-len", "17", "--max-num-seqs", "2", "--no-warmup"});
  ASSERT_TRUE(two);
  EXPECT_NE(two->Log().find("KV cache: 4 blocks of 16 positions (32.0 KiB"), std::string::npos)
      << two->Log();
  auto one = Serve({"--max-model-len", "15", "--max-num-seqs", "1", "--no-warmup"});
  ASSERT_TRUE(one);
  EXPECT_NE(one->Log().find("KV cache: 1 block of 16 positions (8.0 KiB"), std::string::npos)
      << one->Log();
  auto r = vt::testing::Sh("timeout 5 " + std::string(VT_SERVE_BIN) + " -m " + *dir_ +
                           "/m.gguf --port 0 --kv-cache-memory-bytes 512TiB");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(
      r.err.find("--kv-cache-memory-bytes 562949953421312 is more than the memory available now ("),
      std::string::npos)
      << r.err;
}

// No --max-model-len: the model's 512 positions are lowered to the 320 the budget holds, and a
// request past them is a 400 naming both.
TEST_F(VtServeKv, ADefaultContextIsLoweredToTheBudgetAndARequestPastItNamesTheBudget) {
  auto server = Serve({"--kv-cache-memory-bytes", "160KiB"});
  ASSERT_TRUE(server);
  EXPECT_NE(server->Log().find("the longest context 320 (lowered to fit: --kv-cache-memory-bytes)"),
            std::string::npos)
      << server->Log();
  auto r = server->Post("/v1/completions",
                        Json{{"prompt", std::string(300, 'x')}, {"max_tokens", 40}}.dump());
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("maximum context length is 320 tokens"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("what the KV cache holds: 163840 bytes, --kv-cache-memory-bytes"),
            std::string::npos)
      << r.body;
  Json fits = Json::parse(server->Post("/v1/completions", Greedy(std::string(200, 'x'), 100)).body,
                          nullptr, false);
  EXPECT_EQ(fits["usage"]["completion_tokens"], 100) << "one that fits runs: " << fits.dump();
}

// An f16 pool holds twice the positions of an f32 one in the same bytes, and answers as vt-run
// does over an f16 cache.
TEST_F(VtServeKv, AnF16CacheHoldsTwiceThePositionsAndAnswersAsVtRunDoes) {
  auto server = Serve(
      {"--kv-cache-memory-bytes", "160KiB", "--kv-cache-dtype", "f16", "--max-model-len", "256"});
  ASSERT_TRUE(server);
  EXPECT_NE(server->Log().find(
                "KV cache: 40 blocks of 16 positions (160.0 KiB, f16, 256 bytes per position)"),
            std::string::npos)
      << server->Log();
  const std::string text = TextOf(server->Post("/v1/completions", Greedy("Hello", 24)));
  auto run = vt::testing::Sh(std::string(VT_RUN_BIN) + " -m " + *dir_ +
                             "/m.gguf -p Hello -n 24 --ignore-eos --json -ctk f16 -ctv f16");
  ASSERT_EQ(run.code, 0) << run.err;
  Json j = Json::parse(run.out, nullptr, false);
  EXPECT_EQ(j["kv_cache_dtype"], "f16");
  EXPECT_EQ(j["text"], text);
  auto bad = vt::testing::Sh("timeout 5 " + std::string(VT_SERVE_BIN) + " -m " + *dir_ +
                             "/m.gguf --port 0 --kv-cache-dtype fp8");
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--kv-cache-dtype fp8: the KV cache's type must be auto, f32 (float32), "
                         "f16 (float16), bf16 (bfloat16) or q8_0"),
            std::string::npos)
      << bad.err;
}

// A q8_0 pool: 34 bytes per 32 values (f16's 64), so 1.88 times f16's positions in the same
// bytes, answering as vt-run does over a q8_0 cache; a model whose heads are not whole blocks
// of 32 (this fixture's 16) is refused naming the flag.
TEST_F(VtServeKv, AQ8_0CacheHoldsMorePositionsAndAnswersAsVtRunDoes) {
  const std::string model = *dir_ + "/hd32.gguf";
  ASSERT_EQ(vt::testing::Sh(std::string(VT_FIXTURE_BIN) + " -o " + model +
                            " --layers 2 --dim 128 --heads 4 --kv-heads 2")
                .code,
            0);
  std::string error;
  auto server = ServeProcess::Start(VT_SERVE_BIN,
                                    {"-m", model, "-t", "1", "--kv-cache-memory-bytes", "136KiB",
                                     "--kv-cache-dtype", "q8_0", "--max-model-len", "256"},
                                    &error);
  ASSERT_TRUE(server) << error;
  EXPECT_NE(server->Log().find(
                "KV cache: 32 blocks of 16 positions (136.0 KiB, q8_0, 272 bytes per position)"),
            std::string::npos)
      << server->Log();
  const std::string text = TextOf(server->Post("/v1/completions", Greedy("Hello", 24)));
  auto run = vt::testing::Sh(std::string(VT_RUN_BIN) + " -m " + model +
                             " -p Hello -n 24 --ignore-eos --json -ctk q8_0 -ctv q8_0");
  ASSERT_EQ(run.code, 0) << run.err;
  Json j = Json::parse(run.out, nullptr, false);
  EXPECT_EQ(j["kv_cache_dtype"], "q8_0");
  EXPECT_EQ(j["text"], text);
  auto bad = vt::testing::Sh("timeout 5 " + std::string(VT_SERVE_BIN) + " -m " + *dir_ +
                             "/m.gguf --port 0 --kv-cache-dtype q8_0");
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--kv-cache-dtype q8_0: a q8_0 KV cache needs a head dimension that is a "
                         "multiple of 32; this model's is 16"),
            std::string::npos)
      << bad.err;
  // A backend without q8_0 attention (Vulkan) is named before anything runs, where there is one.
  const std::string on_vulkan =
      std::string(VT_RUN_BIN) + " -m " + model + " -p Hi -n 2 --device vulkan";
  if (vt::testing::Sh(on_vulkan).code == 0) {
    auto refused = vt::testing::Sh(on_vulkan + " -ctk q8_0 -ctv q8_0");
    EXPECT_EQ(refused.code, 2) << refused.err;
    EXPECT_NE(refused.err.find("has no kernel to write such a cache (the CPU has: --device cpu)"),
              std::string::npos)
        << refused.err;
  }
}

// vt-bench's shared prefix against vt-serve: 4 prompts of the same 32 ids and 4 of their own,
// one at a time; the last 3 find the prefix's 2 blocks, so 96 of the 144 prompt tokens hit.
TEST_F(VtServeKv, VtBenchReportsTheHitRateOfASharedRandomPrefix) {
  auto server = Serve({"--max-model-len", "256"});
  ASSERT_TRUE(server);
  auto r = vt::testing::Sh(std::string(VT_BENCH_BIN) + " -m " + *dir_ +
                           "/m.gguf --base-url http://127.0.0.1:" + std::to_string(server->port()) +
                           " --served-model-name tiny --dataset-name random --num-prompts 4 "
                           "--random-prefix-len 32 --random-input-len 4"
                           " --random-output-len 2 --max-concurrency 1 -o json");
  ASSERT_EQ(r.code, 0) << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["total_input_tokens"], 4 * 36);
  ASSERT_TRUE(j.contains("prefix_cache_hit_rate")) << r.out;
  EXPECT_NEAR(j["prefix_cache_hit_rate"].get<double>(), 96.0 / 144.0, 1e-9);
}

}  // namespace
