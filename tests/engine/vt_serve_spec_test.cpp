// vt-serve's speculative decoding as a client sees it (specs/speculative-decoding.md): with
// n-gram lookup or a draft model, every greedy answer is the one vt-serve gives without them,
// under concurrent load, and /metrics counts the drafts.
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
using vt::testing::Sh;
using vt::testing::TextOf;

class VtServeSpec : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(vt::testing::TinyFixtureDir("vt-serve-spec-test"));
    // Another model of the same vocabulary (another seed): a draft that is often wrong.
    vt::testing::ToolResult r =
        Sh(std::string(VT_FIXTURE_BIN) + " -o " + *dir_ +
           "/other.gguf --layers 1 --dim 32 --heads 2 --kv-heads 1 --seed 7");
    EXPECT_EQ(r.code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  std::unique_ptr<ServeProcess> Serve(std::vector<std::string> more) {
    std::vector<std::string> args = {
        "-m", *dir_ + "/m.gguf", "--served-model-name", "tiny", "-t", "1", "--max-model-len",
        "256"};
    args.insert(args.end(), more.begin(), more.end());
    std::string error;
    auto server = ServeProcess::Start(VT_SERVE_BIN, args, &error);
    EXPECT_TRUE(server) << error;
    return server;
  }
  static std::string Body(int i, double temperature = 0) {
    return Json{
        {"prompt", "Request " + std::to_string(i) + std::string(static_cast<size_t>(i % 5), '.')},
        {"max_tokens", 24 + 7 * (i % 6)},
        {"temperature", temperature},
        {"seed", i},
        {"ignore_eos", true}}
        .dump();
  }
  // Ten greedy answers sent at once, beside two sampled requests in the same batches (when
  // `sampled`: their drafts are kept only with the probability the target gives them).
  static std::vector<std::string> Together(ServeProcess& server, bool sampled) {
    std::vector<std::string> texts(10);
    std::vector<std::thread> clients;
    for (int i = 0; i < (sampled ? 12 : 10); ++i) {
      clients.emplace_back([&, i] {
        std::string text = TextOf(server.Post("/v1/completions", Body(i, i < 10 ? 0 : 0.9)));
        if (i < 10) texts[static_cast<size_t>(i)] = text;
      });
    }
    for (std::thread& c : clients) c.join();
    return texts;
  }
  static double Counter(ServeProcess& server, const std::string& name) {
    return Metric(server.Get("/metrics").body,
                  "vllm:spec_decode_num_" + name + "_total{model_name=\"tiny\"}");
  }
  static std::string* dir_;
};
std::string* VtServeSpec::dir_ = nullptr;

TEST_F(VtServeSpec, EveryGreedyAnswerIsTheOneWithoutSpeculation) {
  auto plain = Serve({});
  ASSERT_TRUE(plain);
  std::vector<std::string> want;
  for (int i = 0; i < 10; ++i) want.push_back(TextOf(plain->Post("/v1/completions", Body(i))));
  EXPECT_EQ(Counter(*plain, "draft_tokens"), 0);
  const std::vector<std::vector<std::string>> configs = {
      {"--speculative-config",
       R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 3, "prompt_lookup_min": 1})"},
      {"--speculative-config",
       R"({"model": ")" + *dir_ + R"(/other.gguf", "num_speculative_tokens": 3})"},
      {"--speculative-config",
       R"({"model": ")" + *dir_ + R"(/m.gguf", "num_speculative_tokens": 5})"},
      // A quarter of the blocks the load needs: preempted requests recompute in both pools.
      {"--speculative-config",
       R"({"model": ")" + *dir_ + R"(/other.gguf", "num_speculative_tokens": 4})",
       "--kv-cache-memory-bytes", "200KiB", "--max-num-seqs", "12"}};
  for (const auto& config : configs) {
    auto server = Serve(config);
    ASSERT_TRUE(server);
    EXPECT_NE(server->Log().find("speculative decoding: "), std::string::npos) << server->Log();
    const bool self = config[1].find("/m.gguf") != std::string::npos;
    std::vector<std::string> got = Together(*server, !self);
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_EQ(got[i], want[i]) << "request " << i << " with " << config[1];
    const double drafted = Counter(*server, "draft_tokens"),
                 kept = Counter(*server, "accepted_tokens");
    EXPECT_GT(Counter(*server, "drafts"), 0) << config[1];
    if (config.size() > 2) {
      EXPECT_GT(
          Metric(server->Get("/metrics").body, "vllm:num_preemptions_total{model_name=\"tiny\"}"),
          0);
    }
    EXPECT_GT(drafted, 0) << config[1];
    if (self) {
      EXPECT_EQ(kept, drafted) << "the target drafting for itself greedily is always right";
    } else if (config[1].find("other.gguf") != std::string::npos) {
      EXPECT_LT(kept, drafted) << "another model's drafts are not all right";
    }
  }
}

// A draft model's pool has the target's blocks: its bytes per position count in the budget.
TEST_F(VtServeSpec, ADraftModelsCacheCountsInTheBudget) {
  auto server = Serve({"--kv-cache-memory-bytes", "320KiB", "--speculative-config",
                       R"({"model": ")" + *dir_ + R"(/m.gguf", "num_speculative_tokens": 2})"});
  ASSERT_TRUE(server);
  EXPECT_NE(server->Log().find("KV cache: 20 blocks of 16 positions (320.0 KiB, f32, 1024 bytes "
                               "per position, 512 of them the draft model's)"),
            std::string::npos)
      << server->Log();
}

// vt-bench against a speculating vt-serve reports vLLM's acceptance rate and length: the
// target drafting for itself greedily keeps every draft, so each verifying step yields more
// than one token; a server that drafts nothing reports neither.
TEST_F(VtServeSpec, VtBenchReportsTheAcceptanceOfTheServersDrafts) {
  auto bench = [&](ServeProcess& server) {
    auto r = Sh(std::string(VT_BENCH_BIN) + " -m " + *dir_ +
                "/m.gguf --base-url http://127.0.0.1:" + std::to_string(server.port()) +
                " --served-model-name tiny --dataset-name random --num-prompts 3 "
                "--random-input-len 8 --random-output-len 24"
                " --ignore-eos --max-concurrency 2 -o json");
    EXPECT_EQ(r.code, 0) << r.err;
    return Json::parse(r.out, nullptr, false);
  };
  auto spec = Serve({"--speculative-config",
                     R"({"model": ")" + *dir_ + R"(/m.gguf", "num_speculative_tokens": 3})"});
  ASSERT_TRUE(spec);
  Json j = bench(*spec);
  ASSERT_TRUE(j.contains("spec_decode_acceptance_rate")) << j.dump();
  EXPECT_EQ(j["spec_decode_acceptance_rate"].get<double>(), 1.0);
  EXPECT_GT(j["spec_decode_acceptance_length"].get<double>(), 2.0);
  auto plain = Serve({});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(bench(*plain).contains("spec_decode_acceptance_rate"));
}

TEST_F(VtServeSpec, ASpeculativeConfigThatCannotWorkIsRefusedNamingTheKey) {
  const std::string serve = "timeout 10 " + std::string(VT_SERVE_BIN) + " -m " + *dir_ +
                            "/m.gguf --port 0 --speculative-config ";
  auto refused = [&](const std::string& config, const std::string& message) {
    vt::testing::ToolResult r = Sh(serve + "'" + config + "'");
    EXPECT_EQ(r.code, 2) << config << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << config << "\n" << r.err;
  };
  refused("{\"method\": \"ngram\"", "--speculative-config: not a JSON object");
  refused(R"({"method": "ngram"})", "\"num_speculative_tokens\" is required");
  refused(R"({"method": "ngram", "num_speculative_tokens": 0})",
          "\"num_speculative_tokens\" must be an integer in [1, 64], got 0");
  refused(R"({"method": "ngram", "num_speculative_tokens": 2, "lookahead": 1})",
          "unknown key \"lookahead\"");
  refused(R"({"method": "eagle", "num_speculative_tokens": 2})",
          "method \"eagle\": vt runs ngram and draft_model");
  refused(
      R"({"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 2})",
      "\"prompt_lookup_min\" 4 is more than \"prompt_lookup_max\" 2");
  refused(R"({"model": "/nonexistent.gguf", "num_speculative_tokens": 2})",
          "--speculative-config model /nonexistent.gguf");
  refused(R"({"method": "ngram", "model": "d.gguf", "num_speculative_tokens": 2})",
          "\"model\" d.gguf is a draft model; method ngram drafts without one");
  refused("", "--speculative-config: not a JSON object");
  const std::string text = *dir_ + "/text.gguf";
  ASSERT_EQ(Sh(std::string(VT_FIXTURE_BIN) + " -o " + text + " --text-vocab").code, 0);
  refused(R"({"model": ")" + text + R"(", "num_speculative_tokens": 2})",
          "the draft's vocabulary differs from the target's at token 0");
}

}  // namespace
