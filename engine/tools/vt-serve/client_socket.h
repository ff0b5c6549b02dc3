// One client's connection, read and written with deadlines: a request must arrive whole within
// its read timeout from its first byte (a client that sends a header line every 2 s holds no
// thread for long), each write must make progress within the write timeout, and a client that
// hung up is seen without writing to it (a queued request whose client left gives up its place).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

namespace vtserve {

class ClientSocket {
 public:
  using Clock = std::chrono::steady_clock;
  struct Timeouts {
    std::chrono::milliseconds keep_alive{5000};    // to start the next request
    std::chrono::milliseconds request_read{10000};  // a request's first byte to its last
    std::chrono::milliseconds write{10000};         // each write's progress
  };
  // Takes `fd` (an accepted socket); the destructor shuts it down and closes it. A request may
  // be `max_request_bytes` long, header and body (a chunked body has no length to check first).
  ClientSocket(int fd, Timeouts timeouts, size_t max_request_bytes)
      : fd_(fd), timeouts_(timeouts), max_request_bytes_(max_request_bytes) {}
  ~ClientSocket();
  ClientSocket(const ClientSocket&) = delete;
  ClientSocket& operator=(const ClientSocket&) = delete;

  // Waits up to the keep-alive timeout for a request's first byte, checking `stop` as it waits;
  // true when one came, and the request's read deadline starts then.
  bool AwaitRequest(const std::function<bool()>& stop);
  // Up to `size` bytes of the request, or -1 once its deadline passed or the peer closed.
  ssize_t Read(char* out, size_t size);
  bool Readable();  // bytes buffered or arriving before the deadline
  // Writes some of `data`, or -1 when the socket takes nothing within the write timeout.
  ssize_t Write(const char* data, size_t size);
  bool Writable();  // the peer is there and the socket takes bytes within the write timeout
  // The client hung up (or shut down its side): EOF or an error, seen without blocking.
  bool PeerGone();
  void Address(bool peer, std::string* ip, int* port) const;
  int fd() const { return fd_; }
  bool over_budget() const { return over_budget_; }  // this request read past max_request_bytes
  // After this response the connection closes (a request that could not be parsed leaves its
  // bytes behind; reading them as the next request is how requests get smuggled).
  void CloseAfterResponse() { closing_ = true; }
  bool closing() const { return closing_; }

 private:
  int WaitFor(short events, Clock::time_point deadline);  // poll's revents, 0 at the deadline
  int fd_;
  Timeouts timeouts_;
  size_t max_request_bytes_, request_bytes_ = 0;
  bool over_budget_ = false, closing_ = false;
  Clock::time_point deadline_ = Clock::now();
  char buffer_[4096];
  size_t begin_ = 0, end_ = 0;  // buffer_[begin_, end_) is read but not yet taken
};

}  // namespace vtserve
