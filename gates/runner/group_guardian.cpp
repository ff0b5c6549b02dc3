#include "gates/runner/group_guardian.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

#include "gates/contention/snapshot.h"
#include "gates/runner/process.h"
#include "gates/runner/raw_proc.h"

namespace pg {
namespace {

constexpr int kMaxWatched = 4096;

// One record per send on a SOCK_SEQPACKET socket: boundaries kept, no framing to parse.
enum : int32_t { kWatch = 1, kUnwatch = 2, kGoodbye = 3 };
struct Message {
  int32_t op;
  int32_t pgid;
};

// Killed processes are gone within milliseconds; one stuck in the kernel (D state) is left
// after 5 s rather than holding mutate's lock for ever. The groups first (their runners stop
// starting tests), then what carries the run's tokens outside them (a runner's tests in
// sessions of their own), until a scan finds none left.
void KillAndWait(const pid_t* groups, int count, const char* token_entry) {
  for (int i = 0; i < count; ++i) kill(-groups[i], SIGKILL);
  timespec tick{0, 2'000'000};
  int i = 0;
  // The bound is 5 s in 2 ms ticks: a tick more or less gives up alike.
  for (; i < 2500 && count > 0 && LiveMemberIn(groups, count); ++i)
    nanosleep(&tick, nullptr);  // proofgate: no-mutate
  for (; i < 2500 && KillEnvironmentHolders(token_entry, strlen(token_entry)) > 0; ++i)
    nanosleep(&tick, nullptr);  // proofgate: no-mutate
}

// Async-signal-safe only: this runs in a fork of a multi-threaded process, so the table of
// watched groups is static storage (no malloc after fork).
[[noreturn]] void Guard(int watch_fd, int kept_fd, const char* token_entry) {
  // Not named proofgate (and out of its process group: GuardianProcess::Fork): a kill of the
  // run's group (a cancelled CI job) or `pkill -x proofgate` must not end it with the run.
  prctl(PR_SET_NAME, "proofgate-guard", 0, 0, 0);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) sigaction(sig, &ignore, nullptr);
  // Only the socket (and the kept lock) stay open: a guardian holding another guardian's
  // socket would hide proofgate's death from it.
  dup2(watch_fd, 0);
  if (kept_fd > 0) {
    close_range(1, static_cast<unsigned>(kept_fd) - 1, 0);
    close_range(static_cast<unsigned>(kept_fd) + 1, ~0U, 0);
  } else {
    close_range(1, ~0U, 0);
  }
  static pid_t watched[kMaxWatched];
  int count = 0;
  for (;;) {
    Message m{};
    ssize_t n = recv(0, &m, sizeof m, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: proofgate is gone
    if (n != sizeof m) continue;
    if (m.op == kGoodbye) _exit(0);
    if (m.op == kWatch && m.pgid > 0 && count < kMaxWatched) watched[count++] = m.pgid;
    if (m.op != kUnwatch) continue;
    for (int i = 0; i < count; ++i) {
      if (watched[i] == m.pgid) {
        watched[i] = watched[--count];
        break;
      }
    }
  }
  KillAndWait(watched, count, token_entry);
  _exit(0);
}

}  // namespace

// The forked guardian, seen from proofgate: its pid and proofgate's end of the socket.
class GuardianProcess {
 public:
  // nullptr when socketpair or fork fails.
  static std::shared_ptr<GuardianProcess> Fork(int kept_fd) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) return nullptr;
    // "PROOFGATE_LEG_TOKEN=<pid>.": every token this process makes starts so. Built before
    // the fork, which may not allocate.
    std::string token_entry = std::string(kLegTokenVariable) + "=" + LegTokenPrefix(getpid());
    pid_t pid = -1;
    {
      std::unique_lock<std::mutex> lock = LockChildRegistry();
      pid = fork();
      if (pid == 0) Guard(fds[0], kept_fd, token_entry.c_str());
      if (pid > 0) {
        // A group of its own, set here rather than by the guardian: a kill of proofgate's
        // group right after this returns (a leg has started) must already miss it.
        setpgid(pid, pid);
        RegisterChild(pid);
      }
    }
    close(fds[0]);
    if (pid < 0) {
      close(fds[1]);
      return nullptr;
    }
    return std::make_shared<GuardianProcess>(pid, fds[1]);
  }
  GuardianProcess(pid_t pid, int fd) : pid_(pid), fd_(fd), owner_(getpid()) {}
  GuardianProcess(const GuardianProcess&) = delete;
  GuardianProcess& operator=(const GuardianProcess&) = delete;
  // Goodbye, then reap: the kept lock is closed once this returns. A fork of proofgate that
  // exits without exec runs this destructor too, and must not end its parent's guardian.
  ~GuardianProcess() {
    if (getpid() != owner_) return;
    Send(kGoodbye, 0);
    close(fd_);
    for (;;) {
      std::unique_lock<std::mutex> lock = LockChildRegistry();
      pid_t r = waitpid(pid_, nullptr, WNOHANG);
      if (r == pid_ || (r < 0 && errno != EINTR)) {
        WithdrawChild(pid_);
        break;
      }
      lock.unlock();
      usleep(500);
    }
  }
  // MSG_NOSIGNAL: a guardian someone killed must not raise SIGPIPE here.
  void Send(int32_t op, pid_t pgid) const {
    Message m{op, static_cast<int32_t>(pgid)};
    while (send(fd_, &m, sizeof m, MSG_NOSIGNAL) < 0 && errno == EINTR) {
    }
  }
  pid_t pid() const { return pid_; }
  std::atomic<int> attached{0};  // handles using it; a full guardian is retired

 private:
  pid_t pid_;
  int fd_;
  pid_t owner_;
};

namespace {

std::mutex g_mutex;
std::shared_ptr<GuardianProcess> g_current;  // guarded by g_mutex
int g_kept_fd = -1;                          // guarded by g_mutex

}  // namespace

void KeepOpenInGuardians(int fd) {
  std::shared_ptr<GuardianProcess> retired;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_kept_fd = fd;
    retired = std::move(g_current);
  }
  // Released outside the lock: its goodbye waits for the guardian to exit.
}

GroupGuardian GroupGuardian::Start() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_current && g_current->attached.load() >= kMaxWatched) g_current.reset();
  if (!g_current) g_current = GuardianProcess::Fork(g_kept_fd);
  GroupGuardian g;
  g.process_ = g_current;
  if (g.process_) g.process_->attached.fetch_add(1);
  return g;
}

GroupGuardian::GroupGuardian(GroupGuardian&& other) noexcept
    : process_(std::move(other.process_)), watched_(std::exchange(other.watched_, 0)) {}

GroupGuardian& GroupGuardian::operator=(GroupGuardian&& other) noexcept {
  std::swap(process_, other.process_);
  std::swap(watched_, other.watched_);
  return *this;
}

void GroupGuardian::Watch(pid_t pgid) {
  if (!process_ || pgid <= 0) return;
  process_->Send(kWatch, pgid);
  watched_ = pgid;
}

void GroupGuardian::Release() {
  if (!process_) return;
  if (watched_ > 0) process_->Send(kUnwatch, watched_);
  watched_ = 0;
  process_->attached.fetch_sub(1);
  process_.reset();
}

pid_t GroupGuardian::pid() const { return process_ ? process_->pid() : -1; }

}  // namespace pg
