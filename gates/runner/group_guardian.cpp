#include "runner/group_guardian.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <utility>

namespace pg {
namespace {

std::atomic<int> g_kept_fd{-1};

// Async-signal-safe only: this runs in a fork of a multi-threaded process.
[[noreturn]] void Guard(pid_t pgid, int watch_fd, int kept_fd) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaction(sig, &ignore, nullptr);
  // Only the pipe (and the kept lock) stay open: a guardian holding another guardian's write
  // end would hide proofgate's death from it.
  dup2(watch_fd, 0);
  if (kept_fd > 0) {
    close_range(1, static_cast<unsigned>(kept_fd) - 1, 0);
    close_range(static_cast<unsigned>(kept_fd) + 1, ~0U, 0);
  } else {
    close_range(1, ~0U, 0);
  }
  char byte = 0;
  ssize_t n;
  do {
    n = read(0, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1) _exit(0);
  kill(-pgid, SIGKILL);
  // Killed processes are gone within milliseconds; zombies nobody reaps cannot write, so the
  // wait is bounded (5 s) rather than exact.
  timespec tick{0, 2'000'000};
  for (int i = 0; i < 2500 && kill(-pgid, 0) == 0; ++i) nanosleep(&tick, nullptr);
  _exit(0);
}

}  // namespace

void KeepOpenInGuardians(int fd) { g_kept_fd = fd; }

GroupGuardian GroupGuardian::Watch(pid_t pgid) {
  GroupGuardian g;
  // A socket, not a pipe: releasing a guardian someone killed must not raise SIGPIPE here.
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return g;
  int kept = g_kept_fd.load();
  pid_t pid = fork();
  if (pid == 0) Guard(pgid, fds[0], kept);
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return g;
  }
  g.pid_ = pid;
  g.release_fd_ = fds[1];
  return g;
}

GroupGuardian::GroupGuardian(GroupGuardian&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), release_fd_(std::exchange(other.release_fd_, -1)) {}

GroupGuardian& GroupGuardian::operator=(GroupGuardian&& other) noexcept {
  std::swap(pid_, other.pid_);
  std::swap(release_fd_, other.release_fd_);
  return *this;
}

void GroupGuardian::Release() {
  if (release_fd_ >= 0) {
    char byte = 1;
    while (send(release_fd_, &byte, 1, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
    close(release_fd_);
    release_fd_ = -1;
  }
  if (pid_ > 0) {
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
}

}  // namespace pg
