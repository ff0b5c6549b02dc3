#include "runner/group_guardian.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

namespace pg {
namespace {

std::atomic<int> g_kept_fd{-1};

// Whether a process other than a zombie is in group `pgid`, read from /proc with raw system
// calls and stack buffers (no malloc after fork). Zombies cannot write, and nobody may reap
// them (a subreaper that never waits, a container's init), so they do not count.
bool LiveMemberIn(pid_t pgid) {
  int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return kill(-pgid, 0) == 0;
  alignas(8) char entries[8192];
  bool live = false;
  for (ssize_t n; !live && (n = getdents64(dir, entries, sizeof entries)) > 0;) {
    for (ssize_t at = 0; at < n && !live;) {
      const auto* d = reinterpret_cast<const dirent64*>(entries + at);
      at += d->d_reclen;
      if (d->d_name[0] < '1' || d->d_name[0] > '9') continue;
      char path[64] = "/proc/";
      size_t len = 6;
      for (const char* c = d->d_name; *c && len < 40; ++c) path[len++] = *c;
      memcpy(path + len, "/stat", 6);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      char stat[512];
      ssize_t got = read(fd, stat, sizeof stat - 1);
      close(fd);
      if (got <= 0) continue;
      stat[got] = 0;
      // "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses, so after the last ')'.
      const char* p = strrchr(stat, ')');
      if (!p || p[1] != ' ' || !p[2]) continue;
      char state = p[2];
      p += 3;
      long fields[2] = {0, 0};
      for (long& f : fields) {
        while (*p == ' ') ++p;
        for (; *p >= '0' && *p <= '9'; ++p) f = f * 10 + (*p - '0');
      }
      live = fields[1] == pgid && state != 'Z' && state != 'X';
    }
  }
  close(dir);
  return live;
}

// Async-signal-safe only: this runs in a fork of a multi-threaded process.
[[noreturn]] void Guard(int watch_fd, int kept_fd) {
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
  // First the group to watch (sent once the child exists), then a release byte or EOF.
  pid_t pgid = 0;
  size_t got = 0;
  while (got < sizeof pgid) {
    ssize_t n = read(0, reinterpret_cast<char*>(&pgid) + got, sizeof pgid - got);
    if (n == 0 || (n < 0 && errno != EINTR)) _exit(0);  // released before any child existed
    if (n > 0) got += static_cast<size_t>(n);
  }
  char byte = 0;
  ssize_t n;
  do {
    n = read(0, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1 || pgid <= 0) _exit(0);
  kill(-pgid, SIGKILL);
  // Killed processes are gone within milliseconds; one stuck in the kernel (D state) is left
  // after 5 s rather than holding the lock for ever.
  timespec tick{0, 2'000'000};
  for (int i = 0; i < 2500 && kill(-pgid, 0) == 0 && LiveMemberIn(pgid); ++i) nanosleep(&tick, nullptr);
  _exit(0);
}

}  // namespace

void KeepOpenInGuardians(int fd) { g_kept_fd = fd; }

GroupGuardian GroupGuardian::Start() {
  GroupGuardian g;
  // A socket, not a pipe: releasing a guardian someone killed must not raise SIGPIPE here.
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return g;
  int kept = g_kept_fd.load();
  pid_t pid = fork();
  if (pid == 0) Guard(fds[0], kept);
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

void GroupGuardian::Watch(pid_t pgid) {
  if (release_fd_ < 0) return;
  while (send(release_fd_, &pgid, sizeof pgid, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
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
