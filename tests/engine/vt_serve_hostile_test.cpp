// What one client can do to vt-serve and to the other clients (#61): bytes that are not UTF-8,
// JSON nested past any stack, text the vocabulary cannot spell, connections held open or fed a
// byte at a time, clients that hang up while queued. A real vt-serve process on 127.0.0.1.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "http_client.h"
#include "tool_support.h"

namespace {

using Json = nlohmann::json;
using vt::testing::HttpReply;
using vt::testing::ServeProcess;

class VtServeHostile : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    signal(SIGPIPE, SIG_IGN);  // a server that resets a connection fails a write, not this process
    dir_ = new std::string(
        (std::filesystem::temp_directory_path() / ("vt-serve-hostile-" + std::to_string(getpid())))
            .string());
    std::filesystem::create_directories(*dir_);
    const std::string fixture =
        std::string(VT_FIXTURE_BIN) + " --layers 2 --dim 64 --heads 4 --kv-heads 2 -o " + *dir_;
    auto bytes = vt::testing::Sh(fixture + "/bytes.gguf");
    ASSERT_EQ(bytes.code, 0) << bytes.err;
    auto text =
        vt::testing::Sh(fixture + "/text.gguf --text-vocab");  // whole-text pieces: no byte tokens
    ASSERT_EQ(text.code, 0) << text.err;
    std::ofstream(*dir_ + "/chat.jinja")
        << "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}";
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  std::unique_ptr<ServeProcess> Serve(const std::string& model,
                                      std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"-m", *dir_ + "/" + model, "--served-model-name", "tiny", "-t",
                                     "1"};
    args.insert(args.end(), more.begin(), more.end());
    std::string error;
    auto server = ServeProcess::Start(VT_SERVE_BIN, args, &error);
    EXPECT_TRUE(server) << error;
    return server;
  }
  static std::string* dir_;
};
std::string* VtServeHostile::dir_ = nullptr;

// A raw request with Connection: close, and everything the server sent before closing (at most
// 30 s: a server that never answers gives what it sent by then).
std::string Exchange(const ServeProcess& server, const std::string& method, const std::string& path,
                     const std::string& body = "") {
  std::string request =
      method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!body.empty())
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  int fd = server.SendRaw(request + "\r\n" + body);
  if (fd < 0) return "";
  std::string got = vt::testing::ReadUntil(fd, "\x01 the connection's end");
  close(fd);
  return got;
}

int StatusOf(const std::string& response) {
  return response.rfind("HTTP/1.1 ", 0) == 0 ? std::atoi(response.c_str() + 9) : 0;
}

Json BodyOf(const std::string& response) {
  size_t at = response.find("\r\n\r\n");
  return Json::parse(at == std::string::npos ? "" : response.substr(at + 4), nullptr, false);
}

// The number after `name ` in the server's /metrics, or -1.
double Metric(const ServeProcess& server, const std::string& name) {
  std::string text = Exchange(server, "GET", "/metrics");
  size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::atof(text.c_str() + at + name.size() + 2);
}

// Polls `name` until it is `want` (up to `seconds`); the last value read.
double AwaitMetric(const ServeProcess& server, const std::string& name, double want,
                   int seconds = 30) {
  double v = -1;
  for (int i = 0; i < seconds * 10 && (v = Metric(server, name)) != want; ++i) usleep(100000);
  return v;
}

// The status of each connection's answer, all read together for at most `seconds` (0: none came).
std::vector<int> StatusLines(const std::vector<int>& fds, int seconds) {
  std::vector<std::string> got(fds.size());
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (size_t done = 0; done < fds.size() && std::chrono::steady_clock::now() < end;) {
    done = 0;
    for (size_t i = 0; i < fds.size(); ++i) {
      pollfd p{fds[i], POLLIN, 0};
      char buf[256];
      ssize_t n = got[i].find("\r\n") == std::string::npos && poll(&p, 1, 0) > 0
                      ? read(fds[i], buf, sizeof buf)
                      : 0;
      if (n > 0) got[i].append(buf, static_cast<size_t>(n));
      done += got[i].find("\r\n") != std::string::npos;
    }
    usleep(10000);
  }
  std::vector<int> status;
  for (const std::string& g : got) status.push_back(StatusOf(g));
  return status;
}

const std::string kWaiting = "vllm:num_requests_waiting{model_name=\"tiny\"}";

// Raw connections closed when the test ends, however it ends (an ASSERT returns early).
struct Connections {
  std::vector<int> fds;
  ~Connections() {
    for (int fd : fds) close(fd);
  }
  int Add(int fd) { return fds.push_back(fd), fd; }
};

TEST_F(VtServeHostile, APathThatIsNotUtf8IsA404AndTheServerStaysUp) {
  for (bool key : {false, true}) {
    auto server = Serve("bytes.gguf", key ? std::vector<std::string>{"--api-key", "sesame"}
                                          : std::vector<std::string>{});
    ASSERT_TRUE(server);
    for (const char* path : {"/%ff", "/x%c3%28", "/v2/%ff%fe"}) {
      for (const char* method : {"GET", "POST"}) {
        std::string r = Exchange(*server, method, path, std::string(method) == "POST" ? "{}" : "");
        ASSERT_EQ(StatusOf(r), 404) << method << " " << path << " -> " << r;
        Json e = BodyOf(r);
        ASSERT_TRUE(e.contains("error")) << r;
        EXPECT_NE(e["error"]["message"].get<std::string>().find("\xEF\xBF\xBD"), std::string::npos)
            << r;
      }
    }
    EXPECT_EQ(StatusOf(Exchange(*server, "GET", "/health")), 200) << server->Log();
    EXPECT_NE(server->Log().find("no route GET /\\xff"), std::string::npos) << server->Log();
  }
}

TEST_F(VtServeHostile, JsonNestedPastTheLimitIsA400WhereverItIs) {
  auto server = Serve("bytes.gguf", {"--chat-template", *dir_ + "/chat.jinja"});
  ASSERT_TRUE(server);
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  const std::string deeper = std::string(100000, '[') + std::string(100000, ']');
  const std::pair<std::string, std::string> cases[] = {
      {"/v1/chat/completions",
       R"({"messages": [{"role": "user", "content": "hi", "x": )" + deep + "}]}"},
      {"/v1/chat/completions", R"({"messages": [{"role": "user", "content": )" + deeper + "}]}"},
      {"/v1/completions", R"({"prompt": )" + deep + "}"},
      {"/v1/completions", R"({"prompt": "x", "stop": )" + deep + "}"},
      {"/tokenize", R"({"prompt": )" + deep + "}"},
      {"/detokenize", R"({"tokens": )" + deeper + "}"},
  };
  for (const auto& [path, body] : cases) {
    HttpReply r = server->Post(path, body);
    ASSERT_EQ(r.status, 400) << path << " " << body.substr(0, 60) << " -> " << r.error << " "
                             << r.body.substr(0, 200);
    EXPECT_NE(r.body.find("nests deeper than 128 levels"), std::string::npos)
        << r.body.substr(0, 200);
  }
  EXPECT_EQ(server->Get("/health").status, 200);
  HttpReply ok =
      server->Post("/v1/chat/completions",
                   R"({"messages": [{"role": "user", "content": [[]]}], "max_tokens": 2})");
  EXPECT_EQ(ok.status, 400) << "a shallow wrong shape is still judged on its shape: " << ok.body;
}

TEST_F(VtServeHostile, TextTheVocabularyCannotSpellIsA400AndOtherStreamsGoOn) {
  auto server =
      Serve("text.gguf", {"--chat-template", *dir_ + "/chat.jinja", "--max-model-len", "512"});
  ASSERT_TRUE(server);
  const std::string stream =
      R"({"prompt": "Hello there", "max_tokens": 300, "ignore_eos": true, "stream": true})";
  int a = server->OpenStream("/v1/completions", stream),
      b = server->OpenStream("/v1/completions", stream);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  ASSERT_NE(vt::testing::ReadUntil(a, "data: ").find("data: "), std::string::npos);
  struct Case {
    const char* path;
    const char* body;
    const char* param;
  };
  const Case cases[] = {
      {"/v1/completions", R"({"prompt": "a\nb", "max_tokens": 4})", "prompt"},
      {"/tokenize", R"({"prompt": "a\nb"})", "prompt"},
      {"/v1/chat/completions",
       R"({"messages": [{"role": "user", "content": "a\nb"}], "max_tokens": 4})", "messages"}};
  for (const Case& c : cases) {
    HttpReply r = server->Post(c.path, c.body);
    ASSERT_EQ(r.status, 400) << c.body << " -> " << r.body;
    Json e = Json::parse(r.body, nullptr, false);
    EXPECT_EQ(e["error"]["param"], c.param) << r.body;
    EXPECT_NE(e["error"]["message"].get<std::string>().find("\\x0a"), std::string::npos) << r.body;
  }
  for (int fd : {a, b}) {
    std::string rest = vt::testing::ReadUntil(fd, "data: [DONE]");
    close(fd);
    EXPECT_NE(rest.find("\"finish_reason\":\"length\""), std::string::npos)
        << rest.substr(rest.size() > 300 ? rest.size() - 300 : 0);
    EXPECT_EQ(rest.find("error"), std::string::npos)
        << rest.substr(rest.find("error") - std::min<size_t>(rest.find("error"), 200));
  }
}

// 40 streams against 2 running slots and a queue of 30: each connection is served, so 32 are
// admitted, 8 get their 503 at once, and /health answers under all of them.
TEST_F(VtServeHostile, EveryConnectionReachesAdmissionAndHealthAnswersUnderThem) {
  auto server = Serve("bytes.gguf", {"--max-num-seqs", "2", "--max-queued-requests", "30",
                                     "--max-model-len", "16384"});
  ASSERT_TRUE(server);
  Connections open;
  for (int i = 0; i < 40; ++i) {
    ASSERT_GE(open.Add(server->OpenStream(
                  "/v1/completions",
                  R"({"prompt": "Hi", "max_tokens": 16000, "ignore_eos": true, "stream": true})")),
              0);
  }
  int admitted = 0, refused = 0;
  for (int status : StatusLines(open.fds, 10)) {
    admitted += status == 200;
    refused += status == 503;
  }
  EXPECT_EQ(admitted, 32);
  ASSERT_EQ(refused, 8) << "a connection that got no thread never reached admission";
  EXPECT_EQ(StatusOf(Exchange(*server, "GET", "/health")), 200);
  EXPECT_EQ(Metric(*server, kWaiting), 30);
  for (int fd : open.fds) close(fd);
  open.fds.clear();
  EXPECT_EQ(AwaitMetric(*server, kWaiting, 0), 0) << "the hung-up streams kept their places";
}

// A client that sends a header line a second never finishes its request: it is closed once the
// request read timeout passes, and it held no one else's thread meanwhile.
TEST_F(VtServeHostile, AClientThatSendsItsRequestSlowlyIsClosed) {
  auto server = Serve("bytes.gguf", {"--request-read-timeout", "1"});
  ASSERT_TRUE(server);
  std::vector<int> fds;
  for (int i = 0; i < 5; ++i) fds.push_back(server->SendRaw("POST /v1/completions HTTP/1.1\r\n"));
  std::vector<bool> closed(fds.size(), false);
  for (int step = 0; step < 20 && std::count(closed.begin(), closed.end(), false) > 0; ++step) {
    usleep(500000);
    for (size_t i = 0; i < fds.size(); ++i) {
      if (closed[i]) continue;
      pollfd p{fds[i], POLLIN, 0};
      char byte;
      closed[i] = (poll(&p, 1, 0) > 0 && recv(fds[i], &byte, 1, MSG_DONTWAIT) <= 0) ||
                  send(fds[i], "X-Slow: 1\r\n", 11, MSG_NOSIGNAL) < 0;
    }
  }
  EXPECT_EQ(std::count(closed.begin(), closed.end(), true), 5)
      << "slow clients still held their connections after 10 s";
  for (int fd : fds) close(fd);
  EXPECT_EQ(StatusOf(Exchange(*server, "GET", "/health")), 200);
}

// A chunked body has no length to refuse in advance: it is counted as it is read, and past
// --max-body-bytes (and 64 KiB of headers) it is a 413, not a body held whole in memory.
TEST_F(VtServeHostile, AChunkedBodyPastTheLimitIsA413) {
  auto server = Serve("bytes.gguf", {"--max-body-bytes", "4096"});
  ASSERT_TRUE(server);
  // A first chunk with the JSON's start, `n` chunks of 1 KiB, the JSON's end, the last chunk.
  auto tokenize = [&](int n) {
    std::string body = "c\r\n{\"prompt\": \"\r\n";
    for (int i = 0; i < n; ++i) body += "400\r\n" + std::string(1024, 'a') + "\r\n";
    body += "2\r\n\"}\r\n0\r\n\r\n";
    int fd = server->SendRaw(
        "POST /tokenize HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
        body);
    std::string got = fd < 0 ? "" : vt::testing::ReadUntil(fd, "\x01 the connection's end");
    if (fd >= 0) close(fd);
    return got;
  };
  // 16 MiB: more than the socket buffers take, so the client is still sending when the answer
  // comes; it gets the answer (the server reads on before it closes), not a reset.
  std::string small = tokenize(2), large = tokenize(16 << 10);
  EXPECT_EQ(StatusOf(small), 200) << small.substr(0, 300);
  EXPECT_EQ(StatusOf(large), 413) << large.substr(0, 300);
  EXPECT_EQ(StatusOf(Exchange(*server, "GET", "/health")), 200);
}

// A Content-Length past the limit is refused as it is: a 413 at once, though the body never
// comes. The server's read timeout (60 s) is far past what the client waits (10 s), so a server
// that read the body first (httplib drops a body past the limit by reading all of it) answers
// nothing in time.
TEST_F(VtServeHostile, ALengthPastTheLimitIsA413WithoutItsBody) {
  auto server = Serve("bytes.gguf", {"--max-body-bytes", "4096", "--request-read-timeout", "60"});
  ASSERT_TRUE(server);
  int fd = server->SendRaw(
      "POST /tokenize HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 1000000000\r\n\r\n{\"prompt\": ");
  ASSERT_GE(fd, 0);
  std::string got = vt::testing::ReadUntil(fd, "\x01 the connection's end", 10);
  close(fd);
  EXPECT_EQ(StatusOf(got), 413) << got.substr(0, 300);
  EXPECT_NE(got.find("Connection: close\r\n"), std::string::npos)
      << "the connection ends: the answer says so\n"
      << got.substr(0, 300);
}

// A request httplib cannot parse is answered 400 and its connection closed: the bytes after it
// are never read as a request of their own (request smuggling). So is one framed two ways.
TEST_F(VtServeHostile, ARequestThatCannotBeParsedClosesItsConnection) {
  auto server = Serve("bytes.gguf");
  ASSERT_TRUE(server);
  const std::string health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string cases[] = {
      "G\xffT / HTTP/1.1\r\nHost: x\r\n\r\n" + health,
      "BAD\r\n" + health,
      "POST /tokenize HTTP/1.1\r\nHost: x\r\nContent-Length: 15\r\nContent-Length: "
      "48\r\n\r\n{\"prompt\": \"x\"}" +
          health,
      "POST /tokenize HTTP/1.1\r\nHost: x\r\nContent-Length: 15x\r\n\r\n{\"prompt\": \"x\"}" +
          health,
  };
  for (const std::string& raw : cases) {
    int fd = server->SendRaw(raw);
    ASSERT_GE(fd, 0);
    std::string got = vt::testing::ReadUntil(fd, "\x01 the connection's end");
    close(fd);
    EXPECT_EQ(StatusOf(got), 400) << got.substr(0, 200);
    EXPECT_EQ(got.find("HTTP/1.1", 1), std::string::npos)
        << "the rest was read as another request: " << got.substr(0, 400);
  }
}

// A client that half-closes (or closes) while its answer is computed gets no success: 499 where
// it can still read, and the request is cancelled, as one that hung up.
TEST_F(VtServeHostile, AClientThatHangsUpBeforeItsAnswerGetsNoSuccess) {
  auto server = Serve("bytes.gguf", {"--max-model-len", "16384"});
  ASSERT_TRUE(server);
  int fd = server->OpenStream("/v1/completions",
                              R"({"prompt": "Hi", "max_tokens": 16000, "ignore_eos": true})");
  ASSERT_GE(fd, 0);
  ASSERT_EQ(AwaitMetric(*server, "vllm:num_requests_running{model_name=\"tiny\"}", 1), 1);
  shutdown(fd, SHUT_WR);
  std::string got = vt::testing::ReadUntil(fd, "\x01 the connection's end");
  close(fd);
  EXPECT_EQ(StatusOf(got), 499) << got.substr(0, 300);
  EXPECT_NE(server->Log().find("finish=disconnected"), std::string::npos) << server->Log();
}

// Idle connections give their threads up when every thread is taken: /health is answered though
// 12 idle clients hold the 8 connections' worth of threads and would hold them 60 s.
TEST_F(VtServeHostile, IdleConnectionsYieldTheirThreadsWhenAllAreTaken) {
  auto server = Serve("bytes.gguf", {"--max-connections", "8", "--timeout-keep-alive", "60"});
  ASSERT_TRUE(server);
  Connections idle;
  for (int i = 0; i < 12; ++i) ASSERT_GE(idle.Add(server->SendRaw("")), 0);
  usleep(200000);
  EXPECT_EQ(StatusOf(Exchange(*server, "GET", "/health")), 200)
      << "idle connections kept every thread";
}

TEST_F(VtServeHostile, AnHttp10StreamIsNotChunked) {
  auto server = Serve("bytes.gguf");
  ASSERT_TRUE(server);
  const std::string body = R"({"prompt": "Hi", "max_tokens": 4, "stream": true})";
  int fd = server->SendRaw(
      "POST /v1/completions HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body);
  ASSERT_GE(fd, 0);
  std::string got = vt::testing::ReadUntil(fd, "\x01 the connection's end");
  close(fd);
  EXPECT_EQ(got.find("Transfer-Encoding: chunked"), std::string::npos) << got;
  EXPECT_NE(got.find("\r\n\r\ndata: {"), std::string::npos) << got;
  EXPECT_NE(got.find("data: [DONE]"), std::string::npos) << got;
}

TEST_F(VtServeHostile, TokenizeAnswersOnlyForTheServedModel) {
  auto server = Serve("bytes.gguf");
  ASSERT_TRUE(server);
  EXPECT_EQ(server->Post("/tokenize", R"({"model": "other", "prompt": "x"})").status, 404);
  EXPECT_EQ(server->Post("/detokenize", R"({"model": "other", "tokens": [65]})").status, 404);
  EXPECT_EQ(server->Post("/tokenize", R"({"model": "tiny", "prompt": "x"})").status, 200);
}

TEST_F(VtServeHostile, NoQueueStillRunsARequestWhenASlotIsFree) {
  auto server = Serve("bytes.gguf", {"--max-queued-requests", "0"});
  ASSERT_TRUE(server);
  HttpReply r = server->Post("/v1/completions", R"({"prompt": "Hi", "max_tokens": 3})");
  EXPECT_EQ(r.status, 200) << r.body;
}

// One request runs; two wait (one streaming, one not) and their clients hang up: they leave the
// queue at once, and the next request waits in their place instead of getting a 503. The
// running one is answered whole (a stream nobody reads would end at its write timeout) and long
// (60,000 tokens), so it holds the one slot throughout.
TEST_F(VtServeHostile, AWaitingRequestWhoseClientHungUpGivesUpItsPlace) {
  auto server = Serve("bytes.gguf", {"--max-num-seqs", "1", "--max-queued-requests", "2",
                                     "--max-model-len", "65536"});
  ASSERT_TRUE(server);
  Connections open;
  int running = open.Add(server->OpenStream(
      "/v1/completions", R"({"prompt": "Hi", "max_tokens": 60000, "ignore_eos": true})"));
  ASSERT_EQ(AwaitMetric(*server, "vllm:num_requests_running{model_name=\"tiny\"}", 1), 1);
  int whole = server->OpenStream("/v1/completions",
                                 R"({"prompt": "Hi", "max_tokens": 4})");  // closed below
  int streamed =
      server->OpenStream("/v1/completions", R"({"prompt": "Hi", "max_tokens": 4, "stream": true})");
  EXPECT_EQ(AwaitMetric(*server, kWaiting, 2), 2);
  close(whole);
  close(streamed);
  ASSERT_EQ(AwaitMetric(*server, kWaiting, 0, 2), 0) << "the hung-up requests kept their places";
  EXPECT_EQ(
      Metric(*server, "vllm:request_success_total{model_name=\"tiny\",finished_reason=\"abort\"}"),
      2)
      << "the hung-up waiting requests were not counted as aborted";
  HttpReply next, after;
  std::thread a(
      [&] { next = server->Post("/v1/completions", R"({"prompt": "Hi", "max_tokens": 4})"); });
  std::thread b(
      [&] { after = server->Post("/v1/completions", R"({"prompt": "Hi", "max_tokens": 4})"); });
  EXPECT_EQ(AwaitMetric(*server, kWaiting, 2), 2);
  close(running);
  open.fds.clear();
  a.join();
  b.join();
  EXPECT_EQ(next.status, 200) << next.body;
  EXPECT_EQ(after.status, 200) << after.body;
}

// An idle keep-alive connection does not hold the drain: SIGTERM exits at once, not after the
// connection's keep-alive wait (120 s here, past the 10 s Terminate waits).
TEST_F(VtServeHostile, SigtermClosesIdleKeepAliveConnectionsAtOnce) {
  auto server = Serve("bytes.gguf", {"--timeout-keep-alive", "120"});
  ASSERT_TRUE(server);
  int fd = server->SendRaw("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_EQ(StatusOf(vt::testing::ReadUntil(fd, "\r\n\r\n")), 200);
  EXPECT_EQ(server->Terminate(10), 0) << server->Log();
  close(fd);
}

}  // namespace
