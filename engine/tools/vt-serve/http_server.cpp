#include "http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#include "api_response.h"
#include "client_text.h"
#include "embeddings_api.h"
#include "generation.h"
#include "responses_api.h"
#include "connection_threads.h"

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

// The connection a handler's request came on: its thread serves that one connection.
thread_local ClientSocket* current_client = nullptr;

// httplib's Stream over a ClientSocket: httplib parses and writes, the socket keeps time.
class SocketStream : public httplib::Stream {
 public:
  explicit SocketStream(ClientSocket& socket) : socket_(socket) {}
  bool is_readable() const override { return socket_.Readable(); }
  bool is_writable() const override { return socket_.Writable(); }
  ssize_t read(char* ptr, size_t size) override { return socket_.Read(ptr, size); }
  ssize_t write(const char* ptr, size_t size) override { return socket_.Write(ptr, size); }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { socket_.Address(true, &ip, &port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { socket_.Address(false, &ip, &port); }
  socket_t socket() const override { return socket_.fd(); }

 private:
  ClientSocket& socket_;
};

// httplib's task queue over threads made as connections need them.
class ThreadsQueue : public httplib::TaskQueue {
 public:
  explicit ThreadsQueue(size_t max) : threads_(max, 8, std::chrono::seconds(10)) {}
  void enqueue(std::function<void()> fn) override { threads_.Run(std::move(fn)); }
  void shutdown() override { threads_.Shutdown(); }
  ConnectionThreads& threads() { return threads_; }

 private:
  ConnectionThreads threads_;
};

}  // namespace

// httplib's server with our own loop over each connection's requests (httplib calls this
// virtual for every accepted socket): deadlines on reads, and an idle connection let go at once
// when the server stops or drains, instead of after its keep-alive wait.
class ConnectionServer : public httplib::Server {
 public:
  ConnectionServer(ClientSocket::Timeouts timeouts, size_t max_request_bytes, const std::atomic<bool>& draining)
      : timeouts_(timeouts), max_request_bytes_(max_request_bytes), draining_(draining) {}
  // The threads serving connections while Serve runs (httplib owns the queue they are in).
  void set_threads(ConnectionThreads* threads) { threads_ = threads; }

 private:
  // A connection waiting for its next request gives its thread up when the server stops or
  // drains, or when connections are waiting for a thread (an idle one costs a thread that a
  // request, or /health, needs).
  // A new connection waits for its first request even while draining, to answer it 503.
  bool Idle(bool first) const {
    ConnectionThreads* threads = threads_;
    return svr_sock_ == INVALID_SOCKET || (draining_ && !first) || (threads && threads->saturated());
  }
  bool process_and_close_socket(socket_t sock) override {
    ClientSocket client(sock, timeouts_, max_request_bytes_);
    SocketStream stream(client);
    bool ok = false;
    for (size_t left = keep_alive_max_count_; left > 0 && client.AwaitRequest([this, &left] { return Idle(left == keep_alive_max_count_); });
         --left) {
      bool closed = false;
      current_client = &client;
      ok = process_request(stream, left == 1 || draining_, closed, nullptr);
      current_client = nullptr;
      if (!ok || closed || client.closing()) break;
    }
    return ok;
  }
  ClientSocket::Timeouts timeouts_;
  size_t max_request_bytes_;
  const std::atomic<bool>& draining_;
  std::atomic<ConnectionThreads*> threads_{nullptr};
};

namespace {

// What a JSON answer holds of a client's bytes is valid UTF-8 (nlohmann throws on anything else).
std::string Dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// The connection ends after this response (what is left of the request would be read as the
// next one): said in the response too, not answered with httplib's Keep-Alive header.
void CloseAfter(httplib::Response& res) {
  if (current_client) current_client->CloseAfterResponse();
  res.set_header("Connection", "close");
}

void SendError(httplib::Response& res, const ApiError& e) {
  LogLine("refused " + std::to_string(e.status) + (e.param.empty() ? "" : " " + Printable(e.param)) + ": " + Printable(e.message));
  res.status = e.status;
  if (e.status == 503) res.set_header("Retry-After", "1");
  res.set_content(Dump(e.ToJson()), "application/json");
}

// The request's line in the log, once it has ended (`finish` empty: the client went away);
// one per choice, numbered when there are several.
void LogRequest(const Generation& g) {
  for (size_t i = 0; i < g.parts().size(); ++i) {
    Job& job = *g.parts()[i].job;
    const std::string& finish = g.finish(i);
    double ttft = job.SecondsToFirstToken();
    LogLine(g.head().id + (g.parts().size() > 1 ? "-" + std::to_string(g.parts()[i].index) : "") + " prompt=" +
            std::to_string(job.prompt.size()) + " completion=" + std::to_string(job.completion_tokens()) +
            " ttft=" + (ttft >= 0 ? Seconds(ttft) : "-") + " e2e=" +
            Seconds(std::chrono::duration<double>(Job::Clock::now() - job.arrived).count()) + " finish=" +
            (finish.empty() ? "disconnected" : finish));
  }
}

// A streaming request's events, written as they come. A client that goes away cancels its
// jobs: the worker stops at their next token (or the queue lets them go).
class Streamer {
 public:
  // `in_flight` counts the responses still being written, for the drain.
  // `translate`: the events as another API writes them (the Responses API's), or null.
  Streamer(std::unique_ptr<Generation> generation, std::atomic<int>& in_flight,
           std::function<std::string(const std::string&)> translate = nullptr)
      : generation_(std::move(generation)), in_flight_(in_flight), translate_(std::move(translate)) {
    ++in_flight_;
  }
  ~Streamer() { --in_flight_; }
  Streamer(const Streamer&) = delete;
  Streamer& operator=(const Streamer&) = delete;

  bool Next(httplib::DataSink& sink) {
    if (!sink.is_writable()) return Abandon();
    bool done = false;
    std::string events;
    try {  // a bug of ours ends this stream, never the server (httplib catches only in routing)
      events = generation_->Events(std::chrono::milliseconds(100), &done);
      if (translate_ && !events.empty()) events = translate_(events);
    } catch (const std::exception& e) {
      LogLine(std::string("internal error while streaming: ") + e.what());
      return Abandon();
    }
    if (!events.empty() && !sink.write(events.data(), events.size())) return Abandon();
    if (!done) return true;
    finished_ = true;  // the whole answer is written
    sink.done();
    return true;
  }
  // The end of the response: a client that went away before the end cancels the jobs (one that
  // hung up after the last event, before httplib's closing chunk, was answered whole).
  void Released(bool success) {
    if (!success && !finished_) generation_->Cancel();
    LogRequest(*generation_);
  }

 private:
  bool Abandon() {
    generation_->Cancel();
    return false;
  }

  std::unique_ptr<Generation> generation_;
  std::atomic<int>& in_flight_;
  std::function<std::string(const std::string&)> translate_;
  bool finished_ = false;
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

// A request answered whole: the handler waits for its end, so a failure is a 500 and not a 200
// with an error body; a client that hangs up meanwhile cancels it (queued or running).
void Answer(Generation& g, httplib::Response& res) {
  const bool whole = g.Collect([] { return current_client && current_client->PeerGone(); });
  if (!whole) {
    // Not a success, and nothing more on this connection (a half-closed client can still
    // read this; nginx's 499, "client closed request").
    current_client->CloseAfterResponse();
    res.status = 499;
    res.set_content(Dump(ApiError{499, "the client closed the connection", "", "ClientClosedRequest"}.ToJson()), "application/json");
    return LogRequest(g);
  }
  auto answer = g.Whole();
  if (auto* e = std::get_if<ApiError>(&answer)) SendError(res, *e);
  else res.set_content(Dump(std::get<Json>(answer)), "application/json");
  LogRequest(g);
}

void Generate(ServeEngine& engine, Endpoint endpoint, std::atomic<int>& in_flight, const std::atomic<bool>& draining,
              const httplib::Request& req, httplib::Response& res) {
  Counted handling(in_flight);
  if (draining) return SendError(res, ApiError{503, "the server is shutting down", "", "ServiceUnavailableError"});
  ParsedRequest parsed = ParseRequest(endpoint, req.body, engine.options().served_name);
  if (!parsed.request) return SendError(res, parsed.error);
  const ServeRequest& r = *parsed.request;
  auto started = Generation::Start(engine, r, NewHead(endpoint, r.model), [] { return current_client && current_client->PeerGone(); });
  if (auto* e = std::get_if<ApiError>(&started)) return SendError(res, *e);
  std::unique_ptr<Generation> g = std::move(std::get<std::unique_ptr<Generation>>(started));
  if (!r.stream) return Answer(*g, res);
  auto streamer = std::make_shared<Streamer>(std::move(g), in_flight);
  auto next = [streamer](size_t, httplib::DataSink& sink) { return streamer->Next(sink); };
  auto released = [streamer](bool success) { streamer->Released(success); };
  // HTTP/1.0 has no chunked encoding: its stream is the body up to the connection's close.
  if (req.version == "HTTP/1.0") return res.set_content_provider("text/event-stream", next, released);
  res.set_chunked_content_provider("text/event-stream", next, released);
}

// A Responses API field for the chat field a refusal names.
std::string ResponsesParam(const std::string& chat) {
  if (chat.rfind("messages", 0) == 0) return "input" + chat.substr(8);
  if (chat == "max_tokens") return "max_output_tokens";
  if (chat.rfind("response_format", 0) == 0) return "text.format";
  return chat;
}

// POST /v1/responses: the request as a chat one, its answer as a response (responses_api.h).
void Responses(ServeEngine& engine, std::atomic<int>& in_flight, const std::atomic<bool>& draining, const httplib::Request& req,
               httplib::Response& res) {
  Counted handling(in_flight);
  if (draining) return SendError(res, ApiError{503, "the server is shutting down", "", "ServiceUnavailableError"});
  auto chat = ResponsesToChat(req.body);
  if (auto* e = std::get_if<ApiError>(&chat)) return SendError(res, *e);
  ParsedRequest parsed = ParseRequest(Endpoint::kChat, std::get<std::string>(chat), engine.options().served_name);
  if (!parsed.request) return parsed.error.param = ResponsesParam(parsed.error.param), SendError(res, parsed.error);
  const Json request = Json::parse(req.body);
  auto started = Generation::Start(engine, *parsed.request, NewHead(Endpoint::kChat, parsed.request->model));
  if (auto* e = std::get_if<ApiError>(&started)) return e->param = ResponsesParam(e->param), SendError(res, *e);
  std::unique_ptr<Generation> g = std::move(std::get<std::unique_ptr<Generation>>(started));
  if (!parsed.request->stream) {
    if (!g->Collect([] { return current_client && current_client->PeerGone(); })) return g->Cancel(), LogRequest(*g);
    auto answer = g->Whole();
    if (auto* e = std::get_if<ApiError>(&answer)) SendError(res, *e);
    else res.set_content(Dump(ResponseFromChat(std::get<Json>(answer), request)), "application/json");
    return LogRequest(*g);
  }
  auto translator = std::make_shared<ResponseStream>(request);
  auto streamer = std::make_shared<Streamer>(std::move(g), in_flight, [translator](const std::string& e) { return translator->Translate(e); });
  res.set_chunked_content_provider("text/event-stream", [streamer](size_t, httplib::DataSink& sink) { return streamer->Next(sink); },
                                   [streamer](bool success) { streamer->Released(success); });
}

// POST /v1/embeddings: each input's vector, computed by the engine thread between steps.
void Embeddings(ServeEngine& engine, std::atomic<int>& in_flight, const std::atomic<bool>& draining, const httplib::Request& req,
                httplib::Response& res) {
  Counted handling(in_flight);
  if (draining) return SendError(res, ApiError{503, "the server is shutting down", "", "ServiceUnavailableError"});
  ApiError error;
  auto r = ParseEmbeddings(req.body, engine.options().served_name, &error);
  if (!r) return SendError(res, error);
  std::vector<std::vector<float>> vectors;
  int64_t tokens = 0;
  for (const ServeRequest::Prompt& input : r->inputs) {
    int64_t n = 0;
    auto v = engine.Embed(input, &n);
    if (auto* e = std::get_if<ApiError>(&v)) return SendError(res, *e);
    vectors.push_back(std::move(std::get<std::vector<float>>(v)));
    tokens += n;
  }
  LogLine("embeddings inputs=" + std::to_string(vectors.size()) + " prompt=" + std::to_string(tokens) + " pooling=" + engine.pooling());
  res.set_content(Dump(EmbeddingsResponse(*r, vectors, tokens)), "application/json");
}

// A request framed two ways (Content-Lengths that differ, one that is not a number, one beside
// Transfer-Encoding): where the next request starts would be a guess, so it is refused.
std::string FramingError(const httplib::Request& req) {
  const size_t n = req.get_header_value_count("Content-Length");
  const std::string first = req.get_header_value("Content-Length");
  for (size_t i = 0; i < n; ++i) {
    std::string v = req.get_header_value("Content-Length", i);
    if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return "Content-Length \"" + v + "\" is not a number";
    if (v != first) return "two different Content-Length headers";
  }
  if (n > 0 && req.has_header("Transfer-Encoding")) return "both Content-Length and Transfer-Encoding";
  return "";
}

// A Content-Length (digits only: FramingError saw to it) above `limit`, however many digits.
bool Exceeds(const std::string& digits, size_t limit) {
  const std::string n = digits.substr(std::min(digits.find_first_not_of('0'), digits.size()));
  return n.size() > 19 || (!n.empty() && std::stoull(n) > limit);
}

// What httplib answers itself (no route, a body over the limit, a request it could not parse)
// gets OpenAI's error object; after any but a 404 the connection closes, since what is left of
// the request would be read as the next one.
// The method a route answers, for a 405 on any other (OpenAI's and vLLM's servers say so rather
// than "no route").
const char* MethodOf(const std::string& path) {
  static const std::pair<const char*, const char*> kRoutes[] = {
      {"/v1/completions", "POST"}, {"/v1/chat/completions", "POST"}, {"/v1/responses", "POST"}, {"/v1/embeddings", "POST"}, {"/tokenize", "POST"}, {"/detokenize", "POST"},
      {"/v1/models", "GET"},       {"/health", "GET"},               {"/metrics", "GET"}};
  for (const auto& [route, method] : kRoutes) {
    if (path == route) return method;
  }
  return path.size() > 11 && path.rfind("/v1/models/", 0) == 0 ? "GET" : nullptr;
}

void AnswerHttpError(const httplib::Request& req, httplib::Response& res) {
  if (!res.body.empty()) return;
  const char* allowed = res.status == 404 ? MethodOf(req.path) : nullptr;
  if (allowed && req.method != allowed && !(req.method == "HEAD" && std::string(allowed) == "GET")) {
    res.set_header("Allow", allowed);
    return SendError(res, ApiError{405, "method " + req.method + " is not allowed on " + req.path + " (" + allowed + " is)", "",
                                   "MethodNotAllowedError"});
  }
  const bool over = current_client && current_client->over_budget();
  if (res.status != 404) CloseAfter(res);
  if (over) res.status = 413;  // a chunked body past the limit: no length told it in advance
  std::string message = res.status == 413 ? "the request body is larger than --max-body-bytes"
                        : res.status == 404 ? "no route " + req.method + " " + req.path
                                            : "the request could not be read";
  if (res.status == 413 && !over && req.get_header_value("Content-Type") == "application/x-www-form-urlencoded") {
    message = "a form-encoded body is limited to 8192 bytes: send the request as application/json";
  }
  SendError(res, ApiError{res.status, message, "", res.status == 404 ? "NotFoundError" : "invalid_request_error"});
}

void Tokenize(const ServeEngine& engine, bool detokenize, const httplib::Request& req, httplib::Response& res) {
  ApiError error;
  auto body = ParseTokenizeBody(req.body, detokenize, engine.options().served_name, &error);
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
    std::string lost;
    std::vector<int32_t> ids = t.Encode(body->prompt, body->add_special_tokens, /*parse_special=*/true, &lost);
    if (!lost.empty()) return SendError(res, UnencodableError(lost, "prompt"));
    out = {{"count", ids.size()}, {"max_model_len", engine.options().max_model_len}, {"tokens", ids}};
  }
  res.set_content(Dump(out), "application/json");
}

}  // namespace

HttpServer::HttpServer(ServeEngine& engine, HttpOptions options)
    : engine_(engine),
      options_(std::move(options)),
      // A request is its body and up to 64 KiB of request line and headers.
      server_(std::make_unique<ConnectionServer>(options_.timeouts, options_.max_body_bytes + (64 << 10), draining_)) {
  Routes();
}

HttpServer::~HttpServer() = default;

void HttpServer::Routes() {
  ConnectionServer& s = *server_;
  size_t threads = static_cast<size_t>(std::max(options_.max_connections, 2));
  s.new_task_queue = [this, threads] {
    auto* queue = new ThreadsQueue(threads);
    server_->set_threads(&queue->threads());
    return queue;
  };
  s.set_payload_max_length(options_.max_body_bytes);
  // httplib listens with a backlog of 5, fixed in Debian's compiled library: 16 clients
  // connecting at once overflowed it and lost handshakes. Bind() listens again with ours.
  // SO_REUSEADDR alone: a restart binds past TIME_WAIT, but a second server on a port in use
  // fails (httplib's default adds SO_REUSEPORT, and two vt-serves shared a port, requests
  // split between them).
  s.set_socket_options([this](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_fd_ = sock;
  });
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (draining_ && req.path != "/metrics") {  // shutting down: nothing new starts
      SendError(res, ApiError{503, "the server is shutting down", "", "ServiceUnavailableError"});
      return httplib::Server::HandlerResponse::Handled;
    }
    if (std::string framing = FramingError(req); !framing.empty()) {
      CloseAfter(res);
      SendError(res, ApiError{400, "the request's framing is ambiguous: " + framing, ""});
      return httplib::Server::HandlerResponse::Handled;
    }
    // A body announced past the limit is answered now, before httplib would read (and drop)
    // all of it: a client that waits for an answer before sending got one only at the read
    // timeout (an outside tester's find). Its unread body ends the connection.
    if (req.has_header("Content-Length") && Exceeds(req.get_header_value("Content-Length"), options_.max_body_bytes)) {
      CloseAfter(res);
      SendError(res, ApiError{413, "the request body is larger than --max-body-bytes", "", "invalid_request_error"});
      return httplib::Server::HandlerResponse::Handled;
    }
    if (options_.api_key.empty() || req.path.rfind("/v1/", 0) != 0) return httplib::Server::HandlerResponse::Unhandled;
    if (req.get_header_value("Authorization") == "Bearer " + options_.api_key) return httplib::Server::HandlerResponse::Unhandled;
    SendError(res, ApiError{401, "a wrong or missing API key (Authorization: Bearer ...)", "", "AuthenticationError"});
    return httplib::Server::HandlerResponse::Handled;
  });
  s.set_error_handler(AnswerHttpError);
  // A handler that throws (a bug of ours) answers 500 with the error object, logged.
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr thrown) {
    std::string what = "unknown";
    try {
      std::rethrow_exception(thrown);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    SendError(res, ApiError{500, "internal error: " + what, "", "InternalServerError"});
  });
  s.Get("/health", [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  auto model = [this] {
    return Json{{"id", engine_.options().served_name}, {"object", "model"}, {"created", NewHead(Endpoint::kCompletions, "").created},
                {"owned_by", "vt"}, {"max_model_len", engine_.options().max_model_len}};
  };
  s.Get("/v1/models", [model](const httplib::Request&, httplib::Response& res) {
    res.set_content(Dump(Json{{"object", "list"}, {"data", Json::array({model()})}}), "application/json");
  });
  // One model by its id (OpenAI's models.retrieve); ids may hold slashes ("org/name").
  s.Get(R"(/v1/models/(.+))", [this, model](const httplib::Request& req, httplib::Response& res) {
    if (req.matches[1] != engine_.options().served_name) {
      return SendError(res, ApiError{404, "The model `" + std::string(req.matches[1]) + "` does not exist.", "model", "NotFoundError"});
    }
    res.set_content(Dump(model()), "application/json");
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(engine_.MetricsText(), "text/plain; version=0.0.4");
  });
  s.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) { Generate(engine_, Endpoint::kCompletions, in_flight_, draining_, req, res); });
  s.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) { Generate(engine_, Endpoint::kChat, in_flight_, draining_, req, res); });
  s.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) { Embeddings(engine_, in_flight_, draining_, req, res); });
  s.Post("/v1/responses", [this](const httplib::Request& req, httplib::Response& res) { Responses(engine_, in_flight_, draining_, req, res); });
  s.Post("/tokenize", [this](const httplib::Request& req, httplib::Response& res) { Tokenize(engine_, false, req, res); });
  s.Post("/detokenize", [this](const httplib::Request& req, httplib::Response& res) { Tokenize(engine_, true, req, res); });
}

vt::StatusOr<int> HttpServer::Bind() {
  int port = options_.port == 0 ? server_->bind_to_any_port(options_.host)
                                : (server_->bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port < 0) {
    const int error = errno;  // bind's, where the socket was made
    return vt::Status(vt::StatusCode::kUnavailable, "cannot listen on " + options_.host + ":" + std::to_string(options_.port) +
                                                        (error != 0 ? std::string(": ") + std::strerror(error) : std::string()));
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
