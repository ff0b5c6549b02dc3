#include "client_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace vtserve {
namespace {

constexpr auto kStopCheck = std::chrono::milliseconds(50);  // how soon a waiting connection sees a stop

}  // namespace

// Closing with a request's bytes unread makes the kernel send a reset, and a client still
// sending (a body past the limit) then loses the answer it was sent. So a connection closed
// after an error stops writing, reads what the client still sends (2 s, 64 MiB at most), then
// closes: nginx's lingering close.
ClientSocket::~ClientSocket() {
  if (closing_) {
    ::shutdown(fd_, SHUT_WR);
    const Clock::time_point give_up = Clock::now() + std::chrono::seconds(2);
    for (size_t drained = 0; drained < (size_t{64} << 20) && WaitFor(POLLIN, give_up) != 0;) {
      ssize_t n = ::recv(fd_, buffer_, sizeof buffer_, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;
      drained += n > 0 ? static_cast<size_t>(n) : 0;
    }
  }
  ::shutdown(fd_, SHUT_RDWR);
  ::close(fd_);
}

int ClientSocket::WaitFor(short events, Clock::time_point deadline) {
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) left = 0;
    pollfd p{fd_, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return p.revents;
    if (n == 0 || errno != EINTR) return 0;
  }
}

bool ClientSocket::AwaitRequest(const std::function<bool()>& stop) {
  const Clock::time_point give_up = Clock::now() + timeouts_.keep_alive;
  while (begin_ == end_) {
    if (stop()) return false;
    Clock::time_point now = Clock::now();
    if (now >= give_up) return false;
    if (WaitFor(POLLIN, std::min(give_up, now + kStopCheck)) != 0) break;
  }
  deadline_ = Clock::now() + timeouts_.request_read;
  request_bytes_ = 0;
  return true;
}

bool ClientSocket::Readable() { return begin_ < end_ || WaitFor(POLLIN, deadline_) != 0; }

ssize_t ClientSocket::Read(char* out, size_t size) {
  while (begin_ == end_) {
    if (WaitFor(POLLIN, deadline_) == 0) return -1;  // the request's time is up
    ssize_t n = ::recv(fd_, buffer_, sizeof buffer_, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return -1;  // the peer closed, or the socket failed
    begin_ = 0;
    end_ = static_cast<size_t>(n);
  }
  size_t n = std::min(size, end_ - begin_);
  if (request_bytes_ + n > max_request_bytes_) {
    over_budget_ = true;
    return -1;
  }
  std::memcpy(out, buffer_ + begin_, n);
  begin_ += n;
  request_bytes_ += n;
  return static_cast<ssize_t>(n);
}

bool ClientSocket::Writable() {
  if (PeerGone()) return false;
  return (WaitFor(POLLOUT, Clock::now() + timeouts_.write) & POLLOUT) != 0;
}

ssize_t ClientSocket::Write(const char* data, size_t size) {
  if ((WaitFor(POLLOUT, Clock::now() + timeouts_.write) & POLLOUT) == 0) return -1;
  ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : n;
}

bool ClientSocket::PeerGone() {
  if (begin_ < end_) return false;  // it sent more (a pipelined request): it is there
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLHUP | POLLERR | POLLRDHUP)) return true;
  char byte;
  return (p.revents & POLLIN) && ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

void ClientSocket::Address(bool peer, std::string* ip, int* port) const {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  int rc = peer ? ::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len)
                : ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  char text[INET6_ADDRSTRLEN] = "";
  *port = 0;
  if (rc == 0 && addr.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    *port = ntohs(a->sin_port);
  } else if (rc == 0 && addr.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    *port = ntohs(a->sin6_port);
  }
  *ip = text;
}

}  // namespace vtserve
