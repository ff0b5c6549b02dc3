#include "gates/runner/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>

#include "gates/runner/program_path.h"

extern char** environ;

namespace pg {
namespace {

// The inherited environment with `set`'s variables replacing or joining it (a later pair of
// `set` wins over an earlier one). One pass, no sorting: a spawn per leg builds this.
std::vector<std::string> MergedEnvironment(
    const std::vector<std::pair<std::string, std::string>>& set) {
  auto overridden = [&](std::string_view entry) {
    size_t eq = entry.find('=');
    std::string_view key = entry.substr(0, eq);
    return std::any_of(set.begin(), set.end(), [&](const auto& kv) { return kv.first == key; });
  };
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    if (entry.find('=') != std::string_view::npos && !overridden(entry)) out.emplace_back(entry);
  }
  for (size_t i = 0; i < set.size(); ++i) {
    bool later = std::any_of(set.begin() + static_cast<long>(i) + 1, set.end(),
                             [&](const auto& kv) { return kv.first == set[i].first; });
    if (!later) out.push_back(set[i].first + "=" + set[i].second);
  }
  return out;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Children start with default signal dispositions and an empty mask whatever proofgate
// itself has installed, in a new process group so one kill reaches all they start.
void InitAttributes(posix_spawnattr_t* attr) {
  posix_spawnattr_init(attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(attr, &none);
  posix_spawnattr_setsigdefault(attr, &all);
  posix_spawnattr_setpgroup(attr, 0);
  posix_spawnattr_setflags(attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

// The children Child owns, by pid: a stray's reaping (ReapStrayChildren) must never take one
// of their exits. Spawning and registering, reaping and withdrawing, are each done under the
// lock: between a reap and its withdrawal the pid could be reused by a new child.
// Never destroyed: the run's guardian is retired by a static's destructor at exit, which
// withdraws it here after this file's statics would have been destroyed.
std::mutex& RegistryMutex() {
  static auto* m = new std::mutex;
  return *m;
}

std::set<pid_t>& Supervised() {
  static auto* pids = new std::set<pid_t>;
  return *pids;
}

}  // namespace

std::unique_lock<std::mutex> LockChildRegistry() {
  return std::unique_lock<std::mutex>(RegistryMutex());
}
void RegisterChild(pid_t pid) { Supervised().insert(pid); }
void WithdrawChild(pid_t pid) { Supervised().erase(pid); }
bool IsSupervisedChild(pid_t pid) {
  std::unique_lock<std::mutex> lock = LockChildRegistry();
  return Supervised().count(pid) > 0;
}

namespace {

// glibc 2.36's <sys/pidfd.h> lacks C linkage for C++, so call the kernel directly.
int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

double Seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

// posix_spawnp, with the PATH search done once per program (gates/runner/program_path.h). A file
// found before that no longer starts (gone, no longer executable, a folder now) is searched
// for again as posix_spawnp searches, which goes on to the next match on PATH.
int SpawnOnPath(pid_t* pid, const std::string& name, const posix_spawn_file_actions_t* actions,
                const posix_spawnattr_t* attr, char* const argv[], char* const envp[]) {
  std::string file = ResolvedProgram(name);
  if (!file.empty()) {
    int rc = posix_spawn(pid, file.c_str(), actions, attr, argv, envp);
    if (rc == 0) return rc;
    ForgetResolvedProgram(name);
  }
  return posix_spawnp(pid, name.c_str(), actions, attr, argv, envp);
}

}  // namespace

StatusOr<Child> Child::Spawn(const SpawnSpec& spec) {
  if (spec.argv.empty()) return Status::Internal("spawn: empty argv");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (spec.log_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, spec.log_fd, 1);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, spec.log_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  }
  if (spec.err_path.empty()) {
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 2, spec.err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  }
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
  posix_spawnattr_t attr;
  InitAttributes(&attr);

  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> env = MergedEnvironment(spec.env);
  std::vector<char*> cargv = CStrings(argv);
  std::vector<char*> cenv = CStrings(env);
  pid_t pid = -1;
  GroupGuardian guardian = GroupGuardian::Start();
  int rc = 0;
  {
    std::unique_lock<std::mutex> lock = LockChildRegistry();
    rc = SpawnOnPath(&pid, spec.argv[0], &actions, &attr, cargv.data(), cenv.data());
    if (rc == 0) RegisterChild(pid);
  }
  if (rc == 0) guardian.Watch(pid);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return Status::Io("cannot start \"" + spec.argv[0] + "\" in " + spec.cwd + ": " +
                      std::strerror(rc));
  }
  int fd = PidfdOpen(pid);
  if (fd < 0) {
    int err = errno;
    kill(-pid, SIGKILL);
    std::unique_lock<std::mutex> lock = LockChildRegistry();
    waitpid(pid, nullptr, 0);
    WithdrawChild(
        pid);  // proofgate: no-mutate (pidfd_open fails after a spawn only on a kernel before 5.3)
    return Status::Io(std::string("pidfd_open: ") + std::strerror(err));
  }
  return Child(pid, fd, std::move(guardian));
}

Child::Child(Child&& other) noexcept
    : pid_(other.pid_), pidfd_(other.pidfd_), guardian_(std::move(other.guardian_)) {
  other.pid_ = -1;
  other.pidfd_ = -1;
}

Child& Child::operator=(Child&& other) noexcept {
  std::swap(pid_, other.pid_);
  std::swap(pidfd_, other.pidfd_);
  std::swap(guardian_, other.guardian_);
  return *this;
}

Child::~Child() {
  if (pidfd_ >= 0) close(pidfd_);
}

bool Child::TryReap(ExitInfo* out) {
  int status = 0;
  rusage usage{};
  {
    std::unique_lock<std::mutex> lock = LockChildRegistry();
    if (wait4(pid_, &status, WNOHANG, &usage) != pid_) return false;
    WithdrawChild(pid_);
  }
  out->cpu_s = Seconds(usage.ru_utime) + Seconds(usage.ru_stime);
  if (WIFEXITED(status)) {
    out->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out->signal = WTERMSIG(status);
  }
  return true;
}

bool Child::SignalGroup(int sig) const { return pid_ > 0 && kill(-pid_, sig) == 0; }

int ReapStrayChildren(const std::vector<pid_t>& children) {
  std::unique_lock<std::mutex> lock = LockChildRegistry();
  int reaped = 0;
  for (pid_t pid : children) {
    if (!Supervised().count(pid) && waitpid(pid, nullptr, WNOHANG) == pid) ++reaped;
  }
  return reaped;
}

}  // namespace pg
