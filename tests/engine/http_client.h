// A real vt-serve process on 127.0.0.1 and a real HTTP client for it (the tests' one include
// of cpp-httplib).
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace vt::testing {

struct HttpReply {
  int status = 0;  // 0: no answer
  std::string body;
  std::string error;   // httplib's name for what went wrong when there is no answer ("Read")
  double seconds = 0;  // from the request's start to its answer or error
  std::multimap<std::string, std::string> headers;
  std::string Header(const std::string& name) const;
};

class ServeProcess {
 public:
  // Starts `bin args... --port 0` and waits (up to 60 s) for its "listening on" line; null and
  // `error` (with its output) when it exits or never listens.
  static std::unique_ptr<ServeProcess> Start(const std::string& bin,
                                             const std::vector<std::string>& args,
                                             std::string* error);
  ~ServeProcess();  // SIGTERM, then reaped (SIGKILL after 10 s)
  // SIGTERM, then waits (up to `wait_s`) for the exit: its status as waitpid gives it, or -1
  // (and SIGKILL).
  int Terminate(int wait_s = 60);
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  int port() const { return port_; }
  HttpReply Get(const std::string& path,
                const std::map<std::string, std::string>& headers = {}) const;
  HttpReply Post(const std::string& path, const std::string& body,
                 const std::map<std::string, std::string>& headers = {}) const;
  // A raw connection that has sent `body` to `path`: the caller reads what it wants, then closes.
  int OpenStream(const std::string& path, const std::string& body) const;
  // A raw connection that has sent exactly `bytes` (a request cut anywhere, or garbage).
  int SendRaw(const std::string& bytes) const;
  std::string Log() const;  // what the server printed

 private:
  ServeProcess(pid_t pid, int port, std::string log)
      : pid_(pid), port_(port), log_(std::move(log)) {}
  pid_t pid_;
  int port_;
  std::string log_;
};

// A completion's text (choices[0].text), or what explains its absence (the body, the error).
std::string TextOf(const HttpReply& r);
// The number after `name` in Prometheus text ("name 12"), or -1.
double Metric(const std::string& text, const std::string& name);

// Reads from `fd` until `needle` has arrived (or `wait_s` seconds pass); everything read.
std::string ReadUntil(int fd, const std::string& needle, int wait_s = 30);

}  // namespace vt::testing
