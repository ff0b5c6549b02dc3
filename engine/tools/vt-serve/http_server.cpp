#include "http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "api_response.h"

namespace vtserve {
namespace {

using Json = nlohmann::json;

// One line per request on stderr, written whole.
void LogLine(const std::string& line) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::cerr << "vt-serve: " << line << "\n";
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fs", s);
  return buf;
}

void SendError(httplib::Response& res, const ApiError& e) {
  LogLine("refused " + std::to_string(e.status) + (e.param.empty() ? "" : " " + e.param) + ": " + e.message);
  res.status = e.status;
  if (e.status == 503) res.set_header("Retry-After", "1");
  res.set_content(e.ToJson().dump(), "application/json");
}

// A job's text as SSE chunks, or gathered into one JSON answer, written as it comes. A client
// that goes away cancels the job: the worker stops at its next token.
class Streamer {
 public:
  // `in_flight` counts the responses still being written, for the drain.
  Streamer(std::shared_ptr<Job> job, ResponseHead head, bool stream, bool include_usage, std::atomic<int>& in_flight)
      : job_(std::move(job)), head_(std::move(head)), stream_(stream), include_usage_(include_usage), in_flight_(in_flight) {
    ++in_flight_;
  }
  ~Streamer() { --in_flight_; }
  Streamer(const Streamer&) = delete;
  Streamer& operator=(const Streamer&) = delete;

  bool Next(httplib::DataSink& sink) {
    if (!sink.is_writable()) return Abandon();
    Job::Update u = job_->Take(std::chrono::milliseconds(100));
    text_ += u.text;
    if (stream_ && !u.text.empty() && !Write(sink, SseEvent(Chunk(head_, u.text, "", first_)))) return Abandon();
    if (!u.text.empty()) first_ = false;
    if (!u.done) return true;
    if (!Write(sink, Last(u))) return Abandon();
    finish_ = u.finish_reason;  // the whole answer is written
    sink.done();
    return true;
  }
  // The end of the response: a client that went away before the end cancels the job (one that
  // hung up after the last event, before httplib's closing chunk, was answered whole); the
  // request's line.
  void Released(bool success) {
    if (!success && finish_.empty()) job_->Cancel();
    auto now = Job::Clock::now();
    double ttft = job_->SecondsToFirstToken();
    LogLine(head_.id + " prompt=" + std::to_string(job_->prompt.size()) + " completion=" +
            std::to_string(job_->completion_tokens()) + " ttft=" + (ttft >= 0 ? Seconds(ttft) : "-") +
            " e2e=" + Seconds(std::chrono::duration<double>(now - job_->arrived).count()) + " finish=" +
            (finish_.empty() ? "disconnected" : finish_));  // its whole answer was written
  }

 private:
  bool Abandon() {
    job_->Cancel();
    return false;
  }
  static bool Write(httplib::DataSink& sink, const std::string& s) { return sink.write(s.data(), s.size()); }

  // The end: an engine failure as an error object (the status line is already sent), else the
  // finish reason (and usage) as the protocol wants it.
  std::string Last(const Job::Update& u) const {
    Usage usage{static_cast<int64_t>(job_->prompt.size()), job_->completion_tokens()};
    if (!u.error.empty()) {
      std::string body = ApiError{500, u.error, "", "InternalServerError"}.ToJson().dump();
      return stream_ ? "data: " + body + "\n\ndata: [DONE]\n\n" : body;
    }
    if (!stream_) return FullResponse(head_, text_, u.finish_reason, usage).dump(-1, ' ', false, Json::error_handler_t::replace);
    std::string out = SseEvent(Chunk(head_, "", u.finish_reason, first_));
    if (include_usage_) out += SseEvent(UsageChunk(head_, usage));
    return out + "data: [DONE]\n\n";
  }

  std::shared_ptr<Job> job_;
  ResponseHead head_;
  bool stream_, include_usage_;
  std::atomic<int>& in_flight_;
  bool first_ = true;
  std::string text_, finish_;
};

// Counted from the handler's first line, so a drain that began meanwhile is seen here or
// waits for this request (both sides use sequentially consistent atomics).
class Counted {
 public:
  explicit Counted(std::atomic<int>& n) : n_(n) { ++n_; }
  ~Counted() { --n_; }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

 private:
  std::atomic<int>& n_;
};

void Generate(ServeEngine& engine, Endpoint endpoint, std::atomic<int>& in_flight, const std::atomic<bool>& draining,
              const httplib::Request& req, httplib::Response& res) {
  Counted handling(in_flight);
  if (draining) return SendError(res, ApiError{503, "the server is shutting down", "", "ServiceUnavailableError"});
  ParsedRequest parsed = ParseRequest(endpoint, req.body, engine.options().served_name);
  if (!parsed.request) return SendError(res, parsed.error);
  auto submitted = engine.Submit(*parsed.request);
  if (auto* e = std::get_if<ApiError>(&submitted)) return SendError(res, *e);
  const ServeRequest& r = *parsed.request;
  auto streamer = std::make_shared<Streamer>(std::get<std::shared_ptr<Job>>(submitted), NewHead(endpoint, r.model),
                                             r.stream, r.include_usage, in_flight);
  res.set_chunked_content_provider(
      r.stream ? "text/event-stream" : "application/json",
      [streamer](size_t, httplib::DataSink& sink) { return streamer->Next(sink); },
      [streamer](bool success) { streamer->Released(success); });
}

void Tokenize(const ServeEngine& engine, bool detokenize, const httplib::Request& req, httplib::Response& res) {
  ApiError error;
  auto body = ParseTokenizeBody(req.body, detokenize, &error);
  if (!body) return SendError(res, error);
  const vt::Tokenizer& t = engine.tokenizer();
  Json out;
  if (detokenize) {
    for (int32_t id : body->tokens) {
      if (static_cast<size_t>(id) >= t.size()) return SendError(res, ApiError{400, "token id " + std::to_string(id) + " is outside the vocabulary", "tokens"});
    }
    vt::StreamDecoder decoder(t);
    std::string text;
    for (int32_t id : body->tokens) text += decoder.Push(id);
    out = {{"prompt", text + decoder.Flush()}};
  } else {
    std::vector<int32_t> ids = t.Encode(body->prompt, body->add_special_tokens, /*parse_special=*/true);
    out = {{"count", ids.size()}, {"max_model_len", engine.options().max_model_len}, {"tokens", ids}};
  }
  res.set_content(out.dump(-1, ' ', false, Json::error_handler_t::replace), "application/json");
}

}  // namespace

HttpServer::HttpServer(ServeEngine& engine, HttpOptions options)
    : engine_(engine), options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  Routes();
}

HttpServer::~HttpServer() = default;

void HttpServer::Routes() {
  httplib::Server& s = *server_;
  int threads = std::max(options_.threads, 2);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_payload_max_length(options_.max_body_bytes);
  // httplib listens with a backlog of 5, fixed in Debian's compiled library: 16 clients
  // connecting at once overflowed it and lost handshakes. Bind() listens again with ours.
  s.set_socket_options([this](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_fd_ = sock;
  });
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (draining_ && req.path != "/metrics") {  // shutting down: nothing new starts
      SendError(res, ApiError{503, "the server is shutting down", "", "ServiceUnavailableError"});
      return httplib::Server::HandlerResponse::Handled;
    }
    if (options_.api_key.empty() || req.path.rfind("/v1/", 0) != 0) return httplib::Server::HandlerResponse::Unhandled;
    if (req.get_header_value("Authorization") == "Bearer " + options_.api_key) return httplib::Server::HandlerResponse::Unhandled;
    SendError(res, ApiError{401, "a wrong or missing API key (Authorization: Bearer ...)", "", "AuthenticationError"});
    return httplib::Server::HandlerResponse::Handled;
  });
  // What httplib answers itself (no route, a body over the limit) gets OpenAI's error object.
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message = res.status == 413 ? "the request body is larger than --max-body-bytes"
                          : res.status == 404 ? "no route " + req.method + " " + req.path
                                              : "the request could not be read";
    SendError(res, ApiError{res.status, message, "", res.status == 404 ? "NotFoundError" : "invalid_request_error"});
  });
  s.Get("/health", [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  s.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    Json model = {{"id", engine_.options().served_name}, {"object", "model"}, {"created", NewHead(Endpoint::kCompletions, "").created},
                  {"owned_by", "vt"}, {"max_model_len", engine_.options().max_model_len}};
    res.set_content(Json{{"object", "list"}, {"data", Json::array({model})}}.dump(), "application/json");
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(engine_.MetricsText(), "text/plain; version=0.0.4");
  });
  s.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) { Generate(engine_, Endpoint::kCompletions, in_flight_, draining_, req, res); });
  s.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) { Generate(engine_, Endpoint::kChat, in_flight_, draining_, req, res); });
  s.Post("/tokenize", [this](const httplib::Request& req, httplib::Response& res) { Tokenize(engine_, false, req, res); });
  s.Post("/detokenize", [this](const httplib::Request& req, httplib::Response& res) { Tokenize(engine_, true, req, res); });
}

vt::StatusOr<int> HttpServer::Bind() {
  int port = options_.port == 0 ? server_->bind_to_any_port(options_.host)
                                : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0) {
    return vt::Status(vt::StatusCode::kUnavailable, "cannot listen on " + options_.host + ":" + std::to_string(options_.port));
  }
  if (listen_fd_ < 0 || ::listen(listen_fd_, options_.backlog) != 0) {
    return vt::Status(vt::StatusCode::kUnavailable, "cannot set a listen backlog of " + std::to_string(options_.backlog) +
                                                        " on " + options_.host + ":" + std::to_string(port));
  }
  return port;
}

bool HttpServer::Serve() { return server_->listen_after_bind(); }

void HttpServer::Stop() { server_->stop(); }

// httplib's stop() ends chunked responses where they are, so the drain first refuses new
// requests, waits for every response in flight to be written whole, then stops.
void HttpServer::Drain() {
  draining_ = true;
  while (in_flight_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  server_->stop();
}

}  // namespace vtserve
