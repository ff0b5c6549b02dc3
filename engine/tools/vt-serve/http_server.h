// The HTTP side of vt-serve: routes, the API key, body limits and SSE, over cpp-httplib (this
// pair of files is the only place that includes it). Each connection is served on a thread of
// its own through a ClientSocket, so every read and write has a deadline and a client that hung
// up is seen while its request waits.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "client_socket.h"
#include "serve_engine.h"


namespace vtserve {

class ConnectionServer;  // httplib's server with our connection loop (http_server.cpp)

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8000;                    // 0: any free port
  std::string api_key;                // empty: no key asked
  size_t max_body_bytes = 1 << 20;
  int max_connections = 1024;         // served at once, a thread each; more wait for one
  int backlog = 2048;                 // connections waiting to be accepted (uvicorn's)
  ClientSocket::Timeouts timeouts;
};

class HttpServer {
 public:
  HttpServer(ServeEngine& engine, HttpOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the socket; the port bound (the chosen one for --port 0), or kUnavailable.
  vt::StatusOr<int> Bind();
  // Serves until Stop() or Drain() (from another thread); false when it could not.
  bool Serve();
  void Stop();
  // Answers 503 to anything new, waits until every response in flight is written whole, then
  // stops.
  void Drain();

 private:
  void Routes();
  ServeEngine& engine_;
  HttpOptions options_;
  std::unique_ptr<ConnectionServer> server_;
  int listen_fd_ = -1;  // the socket httplib listens on, listened on again with our backlog
  std::atomic<bool> draining_{false};
  std::atomic<int> in_flight_{0};
};

}  // namespace vtserve
