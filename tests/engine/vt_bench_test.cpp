// vt-bench as a user runs it: the built binary on a fixture model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "tool_support.h"

namespace {

using Result = vt::testing::ToolResult;
using vt::testing::Sh;

class VtBench : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = (std::filesystem::temp_directory_path() /
              ("vt-bench-" + std::to_string(getpid()) + ".gguf"))
                 .string();
    ASSERT_EQ(Sh(std::string(VT_FIXTURE_BIN) + " -o " + model_ +
                 " --layers 2 --dim 64 --heads 4 --kv-heads 2")
                  .code,
              0);
  }
  void TearDown() override { std::filesystem::remove(model_); }
  Result Bench(const std::string& args) {
    return Sh(std::string(VT_BENCH_BIN) + " -m " + model_ + " " + args);
  }
  nlohmann::json Setting(const nlohmann::json& doc, const std::string& name) {
    for (const auto& s : doc["settings"]) {
      if (s["name"] == name) return s;
    }
    return nullptr;
  }
  std::string model_;
};

TEST_F(VtBench, MeasuresEachPromptAndGenerationLengthWithRepetitions) {
  Result r = Bench("-p 8,16 -n 4 -r 3 -o json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 3u);
  EXPECT_EQ(doc["results"][0]["test"], "pp8");
  EXPECT_EQ(doc["results"][1]["test"], "pp16");
  EXPECT_EQ(doc["results"][2]["test"], "tg4");
  for (const auto& res : doc["results"]) {
    EXPECT_EQ(res["samples_ts"].size(), 3u);
    EXPECT_GT(res["avg_ts"].get<double>(), 0);
  }
}

TEST_F(VtBench, DefaultsKeepWhatOlderScriptsReliedOnAndSayWhatWasResolved) {
  auto doc = nlohmann::json::parse(Bench("-p 8 -n 4 -r 1 -o json").out);
  EXPECT_EQ(Setting(doc, "ignore_eos")["requested"], "true (default)");
  EXPECT_EQ(Setting(doc, "ignore_eos")["resolved"], "true");
  EXPECT_EQ(Setting(doc, "skip_chat_template")["requested"], "true (default)");
  EXPECT_EQ(Setting(doc, "skip_chat_template")["resolved"], "true");
  // 2 layers of 64 with ff 128 and 258 tokens: 107072 f32 weights, 428288 bytes, 21 tensors.
  EXPECT_EQ(Setting(doc, "weights")["resolved"], "f32 0.4 MiB (0.4 MiB in 21 tensors)");
  auto asked = nlohmann::json::parse(Bench("-p 8 -n 4 -r 1 -o json --no-ignore-eos").out);
  EXPECT_EQ(Setting(asked, "ignore_eos")["requested"], "false");
  EXPECT_EQ(Setting(asked, "ignore_eos")["resolved"],
            "false");  // read back from the SamplingParams used
}

TEST_F(VtBench, KvCacheDtypeIsReportedRequestedAndResolved) {
  auto plain = nlohmann::json::parse(Bench("-p 8 -n 4 -r 1 -o json").out);
  EXPECT_EQ(Setting(plain, "kv_cache_dtype")["requested"], "auto (default)");
  EXPECT_EQ(Setting(plain, "kv_cache_dtype")["resolved"], "f32");
  auto half = nlohmann::json::parse(Bench("-p 8 -n 4 -r 1 -o json --kv-cache-dtype float16").out);
  EXPECT_EQ(Setting(half, "kv_cache_dtype")["requested"], "float16");
  EXPECT_EQ(Setting(half, "kv_cache_dtype")["resolved"], "f16");
  auto brain = nlohmann::json::parse(Bench("-p 8 -n 4 -r 1 -o json --kv-cache-dtype bfloat16").out);
  EXPECT_EQ(Setting(brain, "kv_cache_dtype")["resolved"], "bf16");
  Result bad = Bench("-p 8 -n 0 -r 1 --kv-cache-dtype fp8");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--kv-cache-dtype fp8: the KV cache's type must be auto, f32 (float32), "
                         "f16 (float16), bf16 (bfloat16) or q8_0"),
            std::string::npos)
      << bad.err;
}

// The fields of one CSV line as RFC 4180 quotes them.
std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (quoted && line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"')
      out.back() += '"', ++i;
    else if (line[i] == '"')
      quoted = !quoted;
    else if (line[i] == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += line[i];
  }
  return out;
}

// -o csv carries every setting's resolved value, a column each (the request mode: a row each),
// quoted where it holds a comma (an unknown VT_MATMUL's reason has several), as json has them.
TEST_F(VtBench, CsvCarriesEverySettingsResolvedValue) {
  const std::string env = "VT_MATMUL=avx9 ";
  const auto doc = nlohmann::json::parse(
      Sh(env + VT_BENCH_BIN + " -m " + model_ + " -p 8 -n 0 -r 1 -o json").out);
  std::istringstream csv(Sh(env + VT_BENCH_BIN + " -m " + model_ + " -p 8 -n 0 -r 1 -o csv").out);
  std::string header, row;
  ASSERT_TRUE(std::getline(csv, header) && std::getline(csv, row));
  const std::vector<std::string> names = CsvFields(header), values = CsvFields(row);
  ASSERT_EQ(names.size(), values.size()) << header << "\n" << row;
  ASSERT_EQ(names.size(), 7 + doc["settings"].size()) << header;
  for (size_t i = 0; i < doc["settings"].size(); ++i) {
    EXPECT_EQ(names[7 + i], doc["settings"][i]["name"]);
    EXPECT_EQ(values[7 + i], doc["settings"][i]["resolved"]) << row;
  }
  EXPECT_NE(Setting(doc, "kernels")["resolved"].get<std::string>().find(','), std::string::npos);
  std::istringstream requests(
      Sh(env + VT_BENCH_BIN + " -m " + model_ +
         " --dataset-name random --num-prompts 1 --random-input-len 4 --random-output-len 2 -o csv")
          .out);
  std::string line, kernels;
  while (std::getline(requests, line)) {
    if (CsvFields(line)[0] == "setting.kernels") kernels = CsvFields(line).at(1);
  }
  EXPECT_NE(kernels.find("avx9: no such set"), std::string::npos) << kernels;
}

// The CPU's matmul kernel set (specs/amx.md): VT_MATMUL's value or the default, and the set
// that ran, with why it is not the one asked for.
TEST_F(VtBench, TheMatmulKernelSetIsReportedRequestedAndResolved) {
  auto plain = nlohmann::json::parse(Bench("-p 8 -n 0 -r 1 -o json").out);
  EXPECT_EQ(Setting(plain, "kernels")["requested"], "auto (default)");
  auto generic = nlohmann::json::parse(Sh("VT_MATMUL=generic " + std::string(VT_BENCH_BIN) +
                                          " -m " + model_ + " -p 8 -n 0 -r 1 -o json")
                                           .out);
  EXPECT_EQ(Setting(generic, "kernels")["requested"], "generic");
  EXPECT_EQ(Setting(generic, "kernels")["resolved"], "generic");
  auto unknown = nlohmann::json::parse(Sh("VT_MATMUL=avx9 " + std::string(VT_BENCH_BIN) + " -m " +
                                          model_ + " -p 8 -n 0 -r 1 -o json")
                                           .out);
  const std::string resolved = Setting(unknown, "kernels")["resolved"];
  EXPECT_NE(
      resolved.find("(avx9: no such set (amx, avx512-bf16, avx512, avx2, generic), so the default"),
      std::string::npos)
      << resolved;
  EXPECT_EQ(resolved.substr(0, resolved.find(' ')),
            Setting(plain, "kernels")["resolved"].get<std::string>().substr(0, resolved.find(' ')));
}

// The request mode is vt-serve's loop and keeps vt-serve's kernels: with AMX the amx set with
// only weights in tile order on the tiles, unless VT_MATMUL asks (specs/amx.md); elsewhere the
// default set.
TEST_F(VtBench, TheRequestModeKeepsTheServersBatchInvariantKernels) {
  Result r = Bench(
      "--dataset-name random --num-prompts 2 --random-input-len 60 --random-output-len 2 -o json");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string resolved = Setting(nlohmann::json::parse(r.out), "kernels")["resolved"];
  const std::string plain =
      Setting(nlohmann::json::parse(Bench("-p 8 -n 0 -r 1 -o json").out), "kernels")["resolved"];
  EXPECT_EQ(resolved.substr(0, resolved.find(' ')), plain.substr(0, plain.find(' '))) << resolved;
  EXPECT_EQ(resolved.find("only weights in tile order") != std::string::npos,
            plain.rfind("amx", 0) == 0)
      << resolved;
}

TEST_F(VtBench, CombinationsThatWouldBeSilentlyIgnoredAreRefusedNamingBothFlags) {
  Result tpl = Bench("--chat-template t.jinja");
  EXPECT_EQ(tpl.code, 2);
  EXPECT_NE(tpl.err.find("--chat-template t.jinja would be ignored while --skip-chat-template"),
            std::string::npos)
      << tpl.err;
  Result none = Bench("--no-skip-chat-template");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("--no-skip-chat-template: " + model_ + " has no tokenizer.chat_template"),
            std::string::npos)
      << none.err;
  Result pre = Sh("VT_BENCH_PRETOKENIZE=ids.txt " + std::string(VT_BENCH_BIN) + " -m " + model_ +
                  " --no-skip-chat-template");
  EXPECT_EQ(pre.code, 2);
  EXPECT_NE(
      pre.err.find("do nothing with pretokenized input (--pretokenized / VT_BENCH_PRETOKENIZE)"),
      std::string::npos)
      << pre.err;
  Result thinking = Bench("--enable-thinking");
  EXPECT_EQ(thinking.code, 2);
  EXPECT_NE(thinking.err.find("--[no-]enable-thinking would be ignored while --skip-chat-template"),
            std::string::npos);
  EXPECT_EQ(Bench("--ignore-eos --no-ignore-eos").code, 2);
}

TEST_F(VtBench, TheMarkdownTableHasARowPerTestAndTheSettings) {
  Result r = Bench("-p 8 -n 4 -r 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| pp8 | "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| tg4 | "), std::string::npos);
  EXPECT_NE(r.out.find("| ignore_eos | true (default) | true |"), std::string::npos) << r.out;
}

// Request mode: a JSON-lines dataset of prompts on the byte-vocabulary fixture (text is its bytes,
// so token counts can be worked out by hand).
class VtBenchRequests : public VtBench {
 protected:
  void SetUp() override {
    VtBench::SetUp();
    dir_ = std::filesystem::path(model_).replace_extension("d");
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "prompts.jsonl")
        << "{\"prompt\": \"hello\"}\n\n{\"prompt\": \"abc\", \"output_tokens\": 2}\n";
    std::ofstream(dir_ / "chat.jinja")
        << "<|user|>{{ messages[0].content }}<|end|>{% if enable_thinking %}T{% endif %}";
  }
  void TearDown() override {
    std::filesystem::remove_all(dir_);
    VtBench::TearDown();
  }
  std::string Path(const char* name) const { return (dir_ / name).string(); }
  nlohmann::json Json(const std::string& args) {
    Result r = Bench(args + " -o json");
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  std::filesystem::path dir_;
};

TEST_F(VtBenchRequests, ReportsVllmsMetricsForEachRequest) {
  auto doc = Json("--dataset-path " + Path("prompts.jsonl") +
                  " --custom-output-len 3 --metric-percentiles 50,90");
  EXPECT_EQ(doc["completed"], 2);
  EXPECT_EQ(doc["total_input_tokens"], 1 + 5 + 1 + 3);  // BOS + bytes, per prompt
  EXPECT_EQ(doc["total_output_tokens"], 3 + 2);         // --custom-output-len, then the line's own
  for (const char* key : {"duration", "request_throughput", "output_throughput", "mean_ttft_ms",
                          "median_tpot_ms", "std_itl_ms", "p50_ttft_ms", "p90_itl_ms"}) {
    ASSERT_TRUE(doc.contains(key)) << key;
    EXPECT_GT(doc[key].get<double>(), 0) << key;
  }
  EXPECT_FALSE(doc.contains("p99_ttft_ms"));
  EXPECT_FALSE(doc.contains("mean_e2el_ms"));  // not in the default --percentile-metrics
}

TEST_F(VtBenchRequests, PromptsAreRenderedWithTheTemplateBeforeTheyAreTokenized) {
  std::string base = "--dataset-path " + Path("prompts.jsonl") + " --custom-output-len 1";
  auto raw = Json(base);
  auto templated = Json(base + " --no-skip-chat-template --chat-template " + Path("chat.jinja") +
                        " --enable-thinking");
  // Each prompt gains "<|user|>" + "<|end|>" + "T": 16 bytes, one token each in a byte vocabulary.
  EXPECT_EQ(templated["total_input_tokens"].get<int>() - raw["total_input_tokens"].get<int>(),
            2 * 16);
  EXPECT_EQ(Setting(templated, "skip_chat_template")["resolved"], "false");
  EXPECT_EQ(Setting(templated, "enable_thinking")["resolved"], "true (passed to the template)");
  EXPECT_EQ(Setting(raw, "enable_thinking")["resolved"], "unused (no template rendered)");
}

// A template that writes BOS itself gets no second one: "<s>" is parsed as the BOS token.
TEST_F(VtBenchRequests, ATemplateThatWritesBosGetsNoSecondOne) {
  std::ofstream(dir_ / "bos.jinja") << "{{ bos_token }}{{ messages[0].content }}";
  std::string base = "--dataset-path " + Path("prompts.jsonl") + " --custom-output-len 1";
  auto raw = Json(base);
  auto templated = Json(base + " --no-skip-chat-template --chat-template " + Path("bos.jinja"));
  EXPECT_EQ(templated["total_input_tokens"], raw["total_input_tokens"]);
}

TEST_F(VtBenchRequests, RandomAndPretokenizedPromptsAreTokenIds) {
  auto random =
      Json("--dataset-name random --random-input-len 7 --random-output-len 2 --num-prompts 3");
  EXPECT_EQ(random["total_input_tokens"], 21);
  EXPECT_EQ(random["total_output_tokens"], 6);
  std::ofstream(Path("ids.jsonl")) << "[1, 2, 3]\n{\"prompt_token_ids\": [4, 5]}\n";
  auto ids = Json("--pretokenized " + Path("ids.jsonl") + " --custom-output-len 2");
  EXPECT_EQ(ids["total_input_tokens"], 5);
  Result env = Sh("VT_BENCH_PRETOKENIZE=" + Path("ids.jsonl") + " " + std::string(VT_BENCH_BIN) +
                  " -m " + model_ + " -o json --custom-output-len 1");
  ASSERT_EQ(env.code, 0) << env.err;
  EXPECT_EQ(nlohmann::json::parse(env.out)["completed"], 2);
}

TEST_F(VtBenchRequests, BadDatasetsAndIgnoredFlagsAreRefusedNamingWhat) {
  std::ofstream(Path("bad.jsonl")) << "{\"prompt\": \"ok\"}\n{\"text\": 1}\n";
  Result bad = Bench("--dataset-path " + Path("bad.jsonl"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(Path("bad.jsonl") + ":2: expected an object with a \"prompt\" string"),
            std::string::npos)
      << bad.err;
  std::ofstream(Path("ids.jsonl")) << "[1, 2, 300]\n";
  EXPECT_NE(Bench("--pretokenized " + Path("ids.jsonl"))
                .err.find(":1: token id 300 is outside the vocabulary (0..257)"),
            std::string::npos);
  std::ofstream(Path("raise.jinja")) << "{{ raise_exception('no system prompts') }}";
  Result raised = Bench("--dataset-path " + Path("prompts.jsonl") +
                        " --no-skip-chat-template --chat-template " + Path("raise.jinja"));
  EXPECT_EQ(raised.code, 2);
  EXPECT_NE(raised.err.find("raise.jinja: template:1:19: raise_exception: no system prompts"),
            std::string::npos)
      << raised.err;
  Result random_tpl =
      Bench("--dataset-name random --no-skip-chat-template --chat-template " + Path("chat.jinja"));
  EXPECT_EQ(random_tpl.code, 2);
  EXPECT_NE(
      random_tpl.err.find("--no-skip-chat-template: --dataset-name random prompts are token ids"),
      std::string::npos)
      << random_tpl.err;
  EXPECT_NE(Bench("--dataset-path " + Path("prompts.jsonl") + " -p 8")
                .err.find("-p/-n/-r set pp/tg tests"),
            std::string::npos);
  EXPECT_NE(Bench("--num-prompts 3").err.find("need a request dataset"), std::string::npos);
  EXPECT_NE(Bench("--dataset-name custom").err.find("--dataset-name custom needs --dataset-path"),
            std::string::npos);
  EXPECT_NE(
      Bench("--dataset-name random --percentile-metrics ttft,foo").err.find("unknown metric 'foo'"),
      std::string::npos);
  EXPECT_EQ(Bench("--dataset-path " + Path("absent.jsonl")).code, 1);
}

}  // namespace

namespace {

// --device: the measurement runs where asked and says where in its settings.
TEST_F(VtBench, RunsOnTheAskedDeviceAndReportsIt) {
  Result cpu = Bench("-p 8 -n 4 -r 1 -o json");
  ASSERT_EQ(cpu.code, 0) << cpu.err;
  EXPECT_EQ(Setting(nlohmann::json::parse(cpu.out), "device")["resolved"], "cpu");
  Result tpu = Bench("-p 8 -n 4 -r 1 --device tpu");
  EXPECT_EQ(tpu.code, 2);
  EXPECT_EQ(tpu.err, "vt-bench: --device: unknown device \"tpu\" (cpu, vulkan[:N], cuda[:N])\n");
  Result gpu = Bench("-p 8 -n 4 -r 1 -o json --device vulkan --moe-on cpu");
  if (gpu.code != 0 && gpu.err.find("--device vulkan: vulkan: ") != std::string::npos)
    GTEST_SKIP() << gpu.err;
  ASSERT_EQ(gpu.code, 0) << gpu.err;
  nlohmann::json device = Setting(nlohmann::json::parse(gpu.out), "device");
  EXPECT_EQ(device["requested"], "vulkan, experts on cpu");
  EXPECT_EQ(device["resolved"].get<std::string>().rfind("vulkan:", 0), 0u) << device;
}

}  // namespace
