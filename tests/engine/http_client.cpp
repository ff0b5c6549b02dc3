#include "http_client.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace vt::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

HttpReply From(const httplib::Result& r, std::chrono::steady_clock::time_point start) {
  HttpReply out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r) {
    out.error = httplib::to_string(r.error());
    return out;
  }
  out.status = r->status;
  out.body = r->body;
  for (const auto& [k, v] : r->headers) out.headers.emplace(k, v);
  return out;
}

httplib::Headers HeadersOf(const std::map<std::string, std::string>& h) {
  return httplib::Headers(h.begin(), h.end());
}

}  // namespace

std::string HttpReply::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::unique_ptr<ServeProcess> ServeProcess::Start(const std::string& bin,
                                                  const std::vector<std::string>& args,
                                                  std::string* error) {
  static int serial = 0;
  std::string log =
      (std::filesystem::temp_directory_path() /
       ("vt-serve-" + std::to_string(getpid()) + "-" + std::to_string(serial++) + ".log"))
          .string();
  std::vector<std::string> argv = {bin};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--port", "0"});
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a test binary that dies (a crash) takes its server along
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    execv(c[0], c.data());
    _exit(127);
  }
  const std::string marker = "listening on http://127.0.0.1:";
  for (int i = 0; i < 600; ++i) {
    std::string text = ReadAll(log);
    size_t at = text.find(marker);
    if (at != std::string::npos && text.find('\n', at) != std::string::npos) {
      return std::unique_ptr<ServeProcess>(
          new ServeProcess(pid, std::atoi(text.c_str() + at + marker.size()), log));
    }
    if (waitpid(pid, nullptr, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  *error = "vt-serve did not start listening: " + ReadAll(log);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return nullptr;
}

// A test that stopped early may leave a long request running: the drain would wait for it, so
// teardown waits 10 s at most before it kills.
ServeProcess::~ServeProcess() {
  if (pid_ > 0) Terminate(10);
  std::filesystem::remove(log_);
}

int ServeProcess::Terminate(int wait_s) {
  kill(pid_, SIGTERM);
  int status = -1;
  for (int i = 0; i < wait_s * 10; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return -1;
}

std::string ServeProcess::Log() const { return ReadAll(log_); }

HttpReply ServeProcess::Get(const std::string& path,
                            const std::map<std::string, std::string>& headers) const {
  auto start = std::chrono::steady_clock::now();
  httplib::Client cli("127.0.0.1", port_);
  cli.set_read_timeout(120, 0);
  return From(cli.Get(path.c_str(), HeadersOf(headers)), start);
}

HttpReply ServeProcess::Post(const std::string& path, const std::string& body,
                             const std::map<std::string, std::string>& headers) const {
  auto start = std::chrono::steady_clock::now();
  httplib::Client cli("127.0.0.1", port_);
  cli.set_read_timeout(120, 0);
  return From(cli.Post(path.c_str(), HeadersOf(headers), body, "application/json"), start);
}

int ServeProcess::OpenStream(const std::string& path, const std::string& body) const {
  return SendRaw(
      "POST " + path +
      " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body);
}

int ServeProcess::SendRaw(const std::string& request) const {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string ReadUntil(int fd, const std::string& needle, int wait_s) {
  std::string got;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(wait_s);
  while (got.find(needle) == std::string::npos && std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  return got;
}

std::string TextOf(const HttpReply& r) {
  if (r.status == 0) return "no answer: " + r.error + " after " + std::to_string(r.seconds) + " s";
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
    return r.body;
  const nlohmann::json& choice = j["choices"][0];
  return choice.contains("text") && choice["text"].is_string() ? choice["text"].get<std::string>()
                                                               : r.body;
}

double Metric(const std::string& text, const std::string& name) {
  size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::atof(text.c_str() + at + name.size() + 2);
}

}  // namespace vt::testing
