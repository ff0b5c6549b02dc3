// vt-serve as a client sees it: a real process on 127.0.0.1 serving a vt-fixture model, asked
// over real HTTP.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "http_client.h"
#include "tool_support.h"
#include "vt/fixture.h"

namespace {

using Json = nlohmann::json;
using vt::testing::HttpReply;
using vt::testing::Metric;
using vt::testing::ServeProcess;
using vt::testing::TextOf;

// A byte-vocabulary chat template: "[role]content" per message, then "[assistant]".
const char kTemplate[] =
    "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}{% if add_generation_prompt "
    "%}[assistant]{% endif %}";

class VtServe : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(vt::testing::TinyFixtureDir("vt-serve-test"));
    std::ofstream(*dir_ + "/chat.jinja") << kTemplate;
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  // vt-serve on the fixture, named "tiny", with `more` flags.
  std::unique_ptr<ServeProcess> Serve(std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"-m", *dir_ + "/m.gguf", "--served-model-name", "tiny", "-t",
                                     "1"};
    args.insert(args.end(), more.begin(), more.end());
    std::string error;
    auto server = ServeProcess::Start(VT_SERVE_BIN, args, &error);
    EXPECT_TRUE(server) << error;
    return server;
  }
  static Json Parse(const HttpReply& r) { return Json::parse(r.body, nullptr, false); }
  static std::string* dir_;
};
std::string* VtServe::dir_ = nullptr;

// The "data: ..." payloads of an SSE body, in order.
std::vector<std::string> Events(const std::string& body) {
  std::vector<std::string> out;
  for (size_t at = body.find("data: "); at != std::string::npos; at = body.find("data: ", at + 1)) {
    out.push_back(body.substr(at + 6, body.find("\n\n", at) - at - 6));
  }
  return out;
}

TEST_F(VtServe, HealthModelsAndMetricsAnswer) {
  auto server = Serve({"--ctx", "256"});  // llama.cpp's name for --max-model-len
  ASSERT_TRUE(server);
  EXPECT_EQ(server->Get("/health").status, 200);
  Json models = Parse(server->Get("/v1/models"));
  ASSERT_EQ(models["data"].size(), 1u) << models.dump();
  EXPECT_EQ(models["data"][0]["id"], "tiny");
  EXPECT_EQ(models["data"][0]["max_model_len"], 256);
  HttpReply metrics = server->Get("/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("vllm:num_requests_waiting{model_name=\"tiny\"} 0"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("# TYPE vllm:e2e_request_latency_seconds histogram"),
            std::string::npos);
  // Histograms carry the model's label too, before `le` (prometheus_client's order).
  EXPECT_NE(metrics.body.find(
                "vllm:e2e_request_latency_seconds_bucket{model_name=\"tiny\",le=\"+Inf\"} 0"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("vllm:time_to_first_token_seconds_count{model_name=\"tiny\"} 0"),
            std::string::npos);
}

TEST_F(VtServe, AGreedyCompletionIsWhatVtRunGenerates) {
  auto server = Serve();
  ASSERT_TRUE(server);
  HttpReply r = server->Post(
      "/v1/completions",
      R"({"model": "tiny", "prompt": "Hello", "max_tokens": 12, "temperature": 0, "ignore_eos": true})");
  ASSERT_EQ(r.status, 200) << r.body;
  Json j = Parse(r);
  auto run = vt::testing::Sh(std::string(VT_RUN_BIN) + " -m " + *dir_ +
                             "/m.gguf -p Hello -n 12 --ignore-eos --json -t 1");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(j["choices"][0]["text"], Json::parse(run.out)["text"]);
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["model"], "tiny");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(j["usage"]["prompt_tokens"], 6);  // <s> and 5 bytes
  EXPECT_EQ(j["usage"]["completion_tokens"], 12);
  EXPECT_EQ(j["usage"]["total_tokens"], 18);
}

// A port another server listens on is refused (exit 1, naming the port and why): two servers
// sharing it split the requests between them (an outside tester's find).
TEST_F(VtServe, APortInUseIsRefused) {
  auto first = Serve();
  ASSERT_TRUE(first);
  const std::string port = std::to_string(first->port());
  auto second = vt::testing::Sh("timeout 5 " + std::string(VT_SERVE_BIN) + " -m " + *dir_ +
                                "/m.gguf -t 1 --no-warmup --port " + port);
  EXPECT_EQ(second.code, 1) << second.err;
  EXPECT_NE(second.err.find("cannot listen on 127.0.0.1:" + port + ": Address already in use"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(first->Get("/health").status, 200);
}

TEST_F(VtServe, WarmsUpBeforeListeningUnlessToldNot) {
  auto warm = Serve();
  ASSERT_TRUE(warm);
  const std::string log = warm->Log();
  const size_t warmed = log.find("vt-serve: warmed up in "),
               listening = log.find("vt-serve: listening on");
  ASSERT_NE(warmed, std::string::npos) << log;
  EXPECT_LT(warmed, listening) << log;
  // The warm-up is not a request: nothing of /metrics counts it.
  std::string metrics = warm->Get("/metrics").body;
  EXPECT_NE(metrics.find("vllm:prompt_tokens_total{model_name=\"tiny\"} 0"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("vllm:iteration_tokens_total_count{model_name=\"tiny\"} 0"),
            std::string::npos)
      << metrics;
  auto cold = Serve({"--no-warmup"});
  ASSERT_TRUE(cold);
  EXPECT_EQ(cold->Log().find("warmed up"), std::string::npos) << cold->Log();
}

TEST_F(VtServe, StreamedChunksJoinToTheSameTextAndEndWithUsageAndDone) {
  auto server = Serve();
  ASSERT_TRUE(server);
  const std::string ask =
      R"("model": "tiny", "prompt": "Hello", "max_tokens": 12, "temperature": 0, "ignore_eos": true)";
  Json whole = Parse(server->Post("/v1/completions", "{" + ask + "}"));
  HttpReply r =
      server->Post("/v1/completions",
                   "{" + ask + R"(, "stream": true, "stream_options": {"include_usage": true}})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Header("Content-Type"), "text/event-stream");
  std::vector<std::string> events = Events(r.body);
  ASSERT_GE(events.size(), 3u) << r.body;
  EXPECT_EQ(events.back(), "[DONE]");
  std::string text, finish;
  for (size_t i = 0; i + 2 < events.size(); ++i) {
    Json chunk = Json::parse(events[i]);
    text += chunk["choices"][0]["text"].get<std::string>();
    if (!chunk["choices"][0]["finish_reason"].is_null())
      finish = chunk["choices"][0]["finish_reason"];
  }
  EXPECT_EQ(text, whole["choices"][0]["text"]);
  EXPECT_EQ(finish, "length");
  Json usage = Json::parse(events[events.size() - 2]);
  EXPECT_TRUE(usage["choices"].empty()) << "the usage chunk: " << usage.dump();
  EXPECT_EQ(usage["usage"]["completion_tokens"], 12) << "the usage chunk: " << usage.dump();
}

TEST_F(VtServe, ChatRendersTheTemplateAndJoinsTextParts) {
  auto server = Serve({"--chat-template", *dir_ + "/chat.jinja"});
  ASSERT_TRUE(server);
  HttpReply chat = server->Post("/v1/chat/completions",
                                R"({"model": "tiny", "max_completion_tokens": 8, "temperature": 0,
    "ignore_eos": true, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi "}, {"type": "text", "text": "there"}]}]})");
  ASSERT_EQ(chat.status, 200) << chat.body;
  HttpReply plain =
      server->Post("/v1/completions", R"({"model": "tiny", "prompt": "[user]hi there[assistant]",
    "max_tokens": 8, "temperature": 0, "ignore_eos": true})");
  Json c = Parse(chat), p = Parse(plain);
  EXPECT_EQ(c["object"], "chat.completion");
  EXPECT_EQ(c["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(c["choices"][0]["message"]["content"], p["choices"][0]["text"]);
  EXPECT_EQ(c["usage"]["prompt_tokens"], p["usage"]["prompt_tokens"]);
}

TEST_F(VtServe, BadRequestsGetOpenAiErrorsWithTheirStatusAndField) {
  auto server = Serve({"--max-model-len", "64", "--max-body-bytes", "2048"});
  ASSERT_TRUE(server);
  struct Case {
    const char* path;
    std::string body;
    int status;
    const char* param;  // "" when no field is at fault
  };
  const Case cases[] = {
      {"/v1/completions", "{\"prompt\": ", 400, ""},
      {"/v1/completions", R"({"prompt": "x", "temperature": "hot"})", 400, "temperature"},
      {"/v1/completions", R"({"prompt": "x", "temperature": -1})", 400, "temperature"},
      {"/v1/completions", R"({"prompt": "x", "n": 0})", 400, "n"},
      {"/v1/completions", R"({"prompt": "x", "n": 129})", 400, "n"},
      {"/v1/completions", R"({"prompt": "x", "best_of": 3})", 400, "best_of"},
      {"/v1/completions", R"({"prompt": "x", "max_tokens": 100})", 400, "max_tokens"},
      {"/v1/completions", R"({"prompt": [1, "a"]})", 400, "prompt"},
      {"/v1/completions", R"({"model": "other", "prompt": "x"})", 404, "model"},
      {"/v1/chat/completions", R"({"messages": [{"role": "user", "content": "hi"}]})", 400,
       "messages"},
      {"/v1/completions", "{\"prompt\": \"" + std::string(4096, 'x') + "\"}", 413, ""},
  };
  for (const Case& c : cases) {
    HttpReply r = server->Post(c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.body.substr(0, 80) << " -> " << r.body;
    Json e = Parse(r);
    ASSERT_TRUE(e.contains("error")) << r.body;
    EXPECT_FALSE(e["error"]["message"].get<std::string>().empty());
    EXPECT_EQ(e["error"]["param"].is_null() ? "" : e["error"]["param"].get<std::string>(), c.param)
        << r.body;
  }
}

// A model whose own template does not parse still serves completions; the operator is told at
// startup, naming the key and the line, and each chat request is a 400 on messages.
TEST_F(VtServe, AModelsOwnBrokenTemplateIsNamedAtStartupAndCompletionsStillServe) {
  vt::GgufWriter w = vt::MakeFixture(vt::FixtureSpec{});
  w.Set("tokenizer.chat_template", vt::GgufValue::String("{% for m in messages %}[{{ m.role }}]"));
  const std::string path = *dir_ + "/broken-template.gguf";
  ASSERT_TRUE(w.Write(path).ok());
  std::string error;
  auto server = ServeProcess::Start(VT_SERVE_BIN,
                                    {"-m", path, "--served-model-name", "tiny", "-t", "1"}, &error);
  ASSERT_TRUE(server) << error;
  EXPECT_EQ(server->Post("/v1/completions", R"({"prompt": "hi", "max_tokens": 2})").status, 200);
  HttpReply chat =
      server->Post("/v1/chat/completions", R"({"messages": [{"role": "user", "content": "hi"}]})");
  EXPECT_EQ(chat.status, 400);
  EXPECT_EQ(Parse(chat)["error"]["param"], "messages") << chat.body;
  EXPECT_NE(server->Log().find("warning: the model's chat template (tokenizer.chat_template) does "
                               "not parse: template:1:"),
            std::string::npos)
      << server->Log();
  // A template key that is not a string: warned too, not taken silently as none.
  w.Set("tokenizer.chat_template", vt::GgufValue::Uint(vt::GgufType::kU32, 7));
  ASSERT_TRUE(w.Write(path).ok());
  auto numbered = ServeProcess::Start(
      VT_SERVE_BIN, {"-m", path, "--served-model-name", "tiny", "-t", "1"}, &error);
  ASSERT_TRUE(numbered) << error;
  EXPECT_NE(numbered->Log().find("warning: the model's tokenizer.chat_template is not a string"),
            std::string::npos)
      << numbered->Log();
}

// What an outside tester's numbers got told: a whole number written as a float is an integer
// (its range is what is wrong, or nothing is), a number past double is named as such, and a
// prompt too long by itself is the prompt's fault even beside a max_tokens.
TEST_F(VtServe, NumbersAndLengthsAreBlamedPrecisely) {
  auto server = Serve({"--max-model-len", "64"});
  ASSERT_TRUE(server);
  auto message = [&](const std::string& body) {
    Json e = Parse(server->Post("/v1/completions", body));
    return e.contains("error")
               ? e["error"]["message"].get<std::string>() + " @" + e["error"]["param"].dump()
               : e.dump().substr(0, 40);
  };
  EXPECT_EQ(message(R"({"prompt": "x", "max_tokens": 1e20})"),
            "max_tokens must be between 0 and 1073741824 @\"max_tokens\"");
  EXPECT_EQ(message(R"({"prompt": "x", "max_tokens": 2.5})"),
            "max_tokens must be an integer @\"max_tokens\"");
  EXPECT_EQ(
      Parse(server->Post("/v1/completions",
                         R"({"prompt": "x", "max_tokens": 2.0})"))["usage"]["completion_tokens"],
      2);
  EXPECT_EQ(message(R"({"prompt": "x", "temperature": 1e309})"),
            "malformed JSON in the request body: number overflow parsing '1e309' @null");
  std::string over = message("{\"prompt\": \"" + std::string(80, 'x') + "\", \"max_tokens\": 1}");
  EXPECT_NE(over.find("maximum context length is 64 tokens"), std::string::npos) << over;
  EXPECT_NE(over.find("@\"prompt\""), std::string::npos) << over;
}

TEST_F(VtServe, AnApiKeyGuardsEveryV1Route) {
  auto server = Serve({"--api-key", "sesame"});
  ASSERT_TRUE(server);
  EXPECT_EQ(server->Get("/v1/models").status, 401);
  EXPECT_EQ(server->Get("/v1/models", {{"Authorization", "Bearer wrong"}}).status, 401);
  EXPECT_EQ(server->Get("/v1/models", {{"Authorization", "Bearer sesame"}}).status, 200);
  EXPECT_EQ(server->Get("/health").status, 200);
}

TEST_F(VtServe, TokenizeAndDetokenizeRoundTrip) {
  auto server = Serve();
  ASSERT_TRUE(server);
  Json t = Parse(server->Post("/tokenize", R"({"prompt": "Hello"})"));
  ASSERT_EQ(t["count"], 6) << t.dump();
  Json d = Parse(server->Post("/detokenize", Json{{"tokens", t["tokens"]}}.dump()));
  EXPECT_EQ(d["prompt"], "Hello");
}

// The first choice's text, or the whole body when the answer is not a completion (or what
// went wrong, and when, where there was none).
// Continuous batching changes no token: 16 greedy requests at once (prompt chunks of at most
// 64 tokens mixed with decodes) get the text each gets alone.
TEST_F(VtServe, SixteenConcurrentGreedyRequestsGetTheTextEachGetsAlone) {
  auto server =
      Serve({"--max-num-seqs", "16", "--max-num-batched-tokens", "64", "--max-model-len", "256"});
  ASSERT_TRUE(server);
  std::vector<std::string> bodies;
  for (int i = 0; i < 16; ++i) {
    std::string prompt =
        "Request " + std::to_string(i) + std::string(static_cast<size_t>(i * 7), '.') + " says";
    bodies.push_back(
        Json{{"prompt", prompt}, {"max_tokens", 48}, {"temperature", 0}, {"ignore_eos", true}}
            .dump());
  }
  std::vector<std::string> alone, together(16);
  for (const std::string& body : bodies)
    alone.push_back(TextOf(server->Post("/v1/completions", body)));
  std::vector<std::thread> clients;
  for (int i = 0; i < 16; ++i) {
    clients.emplace_back(
        [&, i] { together[i] = TextOf(server->Post("/v1/completions", bodies[i])); });
  }
  for (std::thread& c : clients) c.join();
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(together[i], alone[i]) << "request " << i << " changed when batched";
  if (HasFailure()) std::cerr << "vt-serve's log:\n" << server->Log();
  std::string metrics = server->Get("/metrics").body;
  double steps = Metric(metrics, "vt:batch_sequences_count{model_name=\"tiny\"}"),
         single = Metric(metrics, "vt:batch_sequences_bucket{model_name=\"tiny\",le=\"1\"}");
  EXPECT_GT(steps - single, 0) << "no step ran two sequences together: " << metrics;
}

// One request runs, one waits, the next is refused with 503; the running one's client hangs up
// and the worker moves on to the waiting one at once.
TEST_F(VtServe, AFullQueueIs503AndAClientThatHangsUpIsCancelled) {
  auto server =
      Serve({"--max-num-seqs", "1", "--max-queued-requests", "1", "--max-model-len", "16384"});
  ASSERT_TRUE(server);
  int fd = server->OpenStream(
      "/v1/completions",
      R"({"prompt": "Hi", "max_tokens": 16000, "ignore_eos": true, "stream": true})");
  ASSERT_GE(fd, 0);
  ASSERT_NE(vt::testing::ReadUntil(fd, "data: ").find("data: "), std::string::npos);
  HttpReply waited;
  std::thread second(
      [&] { waited = server->Post("/v1/completions", R"({"prompt": "Hi", "max_tokens": 4})"); });
  std::string metrics;
  // Both gauges, polled together: on a loaded machine the second request can be counted waiting
  // before the engine's first step has counted the first one running (a full test run saw it).
  auto both = [&] {
    return metrics.find("vllm:num_requests_waiting{model_name=\"tiny\"} 1") != std::string::npos &&
           metrics.find("vllm:num_requests_running{model_name=\"tiny\"} 1") != std::string::npos;
  };
  for (int i = 0; i < 300 && !both(); ++i) {
    metrics = server->Get("/metrics").body;
    if (!both()) usleep(10000);
  }
  // EXPECT, not ASSERT: the thread above must be joined before the test ends.
  EXPECT_NE(metrics.find("vllm:num_requests_waiting{model_name=\"tiny\"} 1"), std::string::npos)
      << "the second request never showed as waiting: " << metrics;
  EXPECT_NE(metrics.find("vllm:num_requests_running{model_name=\"tiny\"} 1"), std::string::npos)
      << metrics;
  HttpReply refused = server->Post("/v1/completions", R"({"prompt": "Hi", "max_tokens": 4})");
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.Header("Retry-After"), "1");
  close(fd);
  second.join();
  EXPECT_EQ(waited.status, 200) << waited.body;
  metrics = server->Get("/metrics").body;
  EXPECT_NE(metrics.find("finished_reason=\"abort\"} 1"), std::string::npos) << metrics;
  const std::string generated = "vllm:generation_tokens_total{model_name=\"tiny\"} ";
  size_t at = metrics.find(generated);
  ASSERT_NE(at, std::string::npos) << metrics;
  long tokens = std::atol(metrics.c_str() + at + generated.size());
  EXPECT_LT(tokens, 8000) << "the abandoned stream was not cancelled: " << tokens
                          << " tokens generated";
  EXPECT_NE(metrics.find("finished_reason=\"length\"} 1"), std::string::npos) << metrics;
}

// vt-bench's server mode, as `vllm bench serve`: every request streamed, counted by the server
// too, and the settings it ran with.
TEST_F(VtServe, VtBenchAgainstItMeasuresEveryRequest) {
  auto server = Serve({"--max-num-seqs", "4"});
  ASSERT_TRUE(server);
  std::string url = "http://127.0.0.1:" + std::to_string(server->port());
  auto r = vt::testing::Sh(
      std::string(VT_BENCH_BIN) + " -m " + *dir_ + "/m.gguf --base-url " + url +
      " --served-model-name tiny --dataset-name random --num-prompts 8 --random-input-len 16"
      " --random-output-len 8 --max-concurrency 4 --request-rate 1000 -o json");
  ASSERT_EQ(r.code, 0) << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["completed"], 8);
  EXPECT_EQ(j["total_input_tokens"], 8 * 16);
  EXPECT_EQ(j["total_output_tokens"], 8 * 8);
  EXPECT_GT(j["mean_ttft_ms"].get<double>(), 0);
  EXPECT_GT(j["mean_itl_ms"].get<double>(), 0);
  EXPECT_EQ(j["settings"][4]["resolved"], url + "/v1/completions") << j["settings"].dump();
  EXPECT_EQ(j["settings"][5]["resolved"], "4");
  std::string metrics = server->Get("/metrics").body;
  EXPECT_NE(metrics.find("finished_reason=\"length\"} 8"), std::string::npos) << metrics;
}

// A template file that does not parse stops the server before it listens, naming the file.
TEST_F(VtServe, AChatTemplateThatDoesNotParseIsRefusedAtStartup) {
  std::ofstream(*dir_ + "/broken.jinja") << "{% for m in messages %}{{ m.content }}";
  // (timeout: a server that started would serve until killed)
  auto r = vt::testing::Sh("timeout 5 " + std::string(VT_SERVE_BIN) + " -m " + *dir_ +
                           "/m.gguf --port 0 --chat-template " + *dir_ + "/broken.jinja");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--chat-template " + *dir_ + "/broken.jinja: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("listening"), std::string::npos) << r.err;
}

TEST_F(VtServe, VtBenchRefusesServerFlagsThatWouldDoNothingAndNamesAnUnreachableServer) {
  std::string bench = std::string(VT_BENCH_BIN) + " -m " + *dir_ + "/m.gguf ";
  const std::pair<std::string, std::string> refused[] = {
      {"--dataset-name random --max-concurrency 4", "need --base-url"},
      {"--base-url http://127.0.0.1:9 -t 2", "do nothing with --base-url"},
      {"--base-url http://127.0.0.1:9 --endpoint /v1/chat/completions", "token-id prompts"},
      {"--base-url https://example.com", "expected http://HOST[:PORT]"},
  };
  for (const auto& [flags, message] : refused) {
    auto r = vt::testing::Sh(bench + flags);
    EXPECT_EQ(r.code, 2) << flags << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << flags << ": " << r.err;
  }
  auto down = vt::testing::Sh(
      bench +
      "--base-url http://127.0.0.1:9 --num-prompts 1 --random-input-len 4 --random-output-len 2");
  EXPECT_EQ(down.code, 1) << down.err;
  EXPECT_NE(down.err.find("http://127.0.0.1:9/v1/completions"), std::string::npos) << down.err;
}

// SIGTERM stops listening, lets the request in flight finish whole, logs its line, exits 0. Its
// 2,000 tokens take a second or more, so the drain has to wait for them (300 were done before a
// stop that did not wait could cut them, on a busy machine).
TEST_F(VtServe, SigtermDrainsTheRequestInFlightThenExitsZero) {
  // 4,000 tokens: the drain lasts a second or more (the last thousands attend to a long
  // context), longer than the new connection below needs.
  auto server = Serve({"--max-model-len", "4096"});
  ASSERT_TRUE(server);
  int fd = server->OpenStream(
      "/v1/completions", R"({"prompt": "Hi", "max_tokens": 4000, "ignore_eos": true, "stream": true,
    "stream_options": {"include_usage": true}})");
  ASSERT_GE(fd, 0);
  std::string got = vt::testing::ReadUntil(fd, "data: ");
  ASSERT_NE(got.find("data: "), std::string::npos);
  std::thread stop(
      [&] { EXPECT_EQ(server->Terminate(), 0) << "vt-serve did not exit 0 after the drain"; });
  // The drain has begun once /health stops answering 200.
  for (int i = 0; i < 500 && server->Get("/health").status == 200; ++i) usleep(10000);
  // A new connection during the drain is read and told so (503), not closed unanswered: it
  // sends its request 300 ms after connecting, so the server has surely looked at it before
  // any byte came (a request sent with the connect was read before the check, whatever it did).
  int late = server->SendRaw("");
  ASSERT_GE(late, 0) << "a new connection during the drain: refused (the server is gone)";
  usleep(300000);
  const std::string get = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const bool sent =
      send(late, get.data(), get.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(get.size());
  const std::string answer = sent ? vt::testing::ReadUntil(late, "\r\n\r\n") : "";
  close(late);
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << "a new connection during the drain: " << answer;
  got += vt::testing::ReadUntil(fd, "data: [DONE]");
  close(fd);
  stop.join();
  EXPECT_NE(got.find("\"completion_tokens\":4000"), std::string::npos)
      << "the request was not drained whole: "
      << got.substr(got.size() > 400 ? got.size() - 400 : 0);
  std::string log = server->Log();
  EXPECT_NE(log.find("prompt=3 completion=4000 ttft="), std::string::npos) << log;
  EXPECT_NE(log.find("finish=length"), std::string::npos) << log;
}

// Hostile and malformed requests, 1,000 of them: each gets its 4xx with an error object, or
// (cut off, garbage) just a closed connection, and the server keeps answering.
TEST_F(VtServe, AThousandHostileRequestsGetTheirFourHundredsAndTheServerStaysUp) {
  auto server = Serve({"--max-model-len", "128"});
  ASSERT_TRUE(server);
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  const std::vector<std::pair<std::string, int>> bodies = {
      {"{", 400},
      {"[]", 400},
      {"null", 400},
      {"{\"prompt\": \"\xff\xfe\"}", 400},
      {R"({"prompt": "x", "max_tokens": -5})", 400},
      {R"({"prompt": "x", "max_tokens": 1e300})", 400},
      {R"({"prompt": "x", "max_tokens": 99999999999999999999999})", 400},
      {R"({"prompt": "x", "temperature": 1e999})", 400},
      {R"({"prompt": "x", "top_p": 0})", 400},
      {R"({"prompt": "x", "stop": [1]})", 400},
      {R"({"prompt": {}})", 400},
      {R"({"prompt": [99999999]})", 400},
      {R"({"prompt": "x", "stream_options": {"include_usage": true}})", 400},
      {"{\"prompt\": " + deep + "}", 400},
      {R"({"prompt": "x", "model": 7})", 400},
      {R"({"prompt": "x", "model": "m"})", 404},
  };
  int checked = 0;
  for (int i = 0; checked < 985; ++i) {
    const auto& [body, status] = bodies[static_cast<size_t>(i) % bodies.size()];
    HttpReply r = server->Post(i % 2 ? "/v1/completions" : "/v1/chat/completions", body);
    int want = i % 2 ? status : 400;  // on chat, "prompt" is an unknown field first
    ASSERT_EQ(r.status, want) << body.substr(0, 80) << " -> " << r.body.substr(0, 200);
    ASSERT_TRUE(Parse(r).contains("error")) << r.body.substr(0, 200);
    ++checked;
  }
  for (int i = 0; i < 5; ++i) {  // 10 MB bodies, over the 1 MiB default
    HttpReply r =
        server->Post("/v1/completions", "{\"prompt\": \"" + std::string(10 << 20, 'x') + "\"}");
    EXPECT_EQ(r.status, 413) << r.body.substr(0, 200);
  }
  const std::string cuts[] = {
      "POST /v1/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"prompt\"", "POST /v1/comp",
      "GARBAGE\r\n\r\n", "\x16\x03\x01\x02\x00", "GET / HTTP/1.1\r\nHost"};
  for (int i = 0; i < 10; ++i) {  // half-sent requests and garbage, then the client hangs up
    int fd = server->SendRaw(cuts[i % 5]);
    ASSERT_GE(fd, 0);
    close(fd);
  }
  EXPECT_EQ(server->Get("/health").status, 200);
  HttpReply ok = server->Post("/v1/completions", R"({"prompt": "Hi", "max_tokens": 3})");
  EXPECT_EQ(ok.status, 200) << ok.body;
}

}  // namespace
