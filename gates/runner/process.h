// One supervised child process: its own process group, output to a log file, a pidfd to
// wait on, and a group-wide kill so nothing it started outlives it.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gates/core/status.h"
#include "gates/runner/group_guardian.h"

namespace pg {

struct SpawnSpec {
  std::vector<std::string> argv;
  std::string cwd;                                       // absolute
  std::vector<std::pair<std::string, std::string>> env;  // set over the inherited environment
  std::string log_path;                                  // stdout and stderr, appended
  std::string err_path;                                  // when set, stderr appended here instead
  int log_fd = -1;  // when set, log_path already open here: given as stdout (and stderr)
};

struct ExitInfo {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  double cpu_s = 0;  // user + system of the child and the descendants it reaped
};

class Child {
 public:
  // kIo when the program cannot be started (not found, not executable, bad cwd).
  static StatusOr<Child> Spawn(const SpawnSpec& spec);

  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  pid_t pid() const { return pid_; }
  pid_t guardian_pid() const { return guardian_.pid(); }  // -1 when unguarded
  int pidfd() const { return pidfd_; }                    // readable once the child has exited

  // Reaps the child if it has exited; true when `out` was filled.
  bool TryReap(ExitInfo* out);
  // Signals every process still in the child's group (the child itself may be gone); false
  // when the group has no member left.
  bool SignalGroup(int sig) const;

 private:
  Child(pid_t pid, int pidfd, GroupGuardian guardian)
      : pid_(pid), pidfd_(pidfd), guardian_(std::move(guardian)) {}
  pid_t pid_ = -1;
  int pidfd_ = -1;
  GroupGuardian guardian_;  // kills the group should proofgate die before this Child ends
};

// The registry of children this process reaps itself (each Child, the guardian), whose exits
// ReapStrayChildren never takes. Start a child and register it under one lock, and reap and
// withdraw it under one: in between, its pid could be freed and reused by another child.
std::unique_lock<std::mutex> LockChildRegistry();
void RegisterChild(pid_t pid);  // with the registry locked
void WithdrawChild(pid_t pid);  // with the registry locked
// True when `pid` is a child a Child or the guardian owns (locks the registry itself): never
// one adopted from a leg.
bool IsSupervisedChild(pid_t pid);

// Reaps those of `children` (this process's) that have exited and that no Child owns:
// processes re-parented to it (the child subreaper) that no one else reaped. Returns how many.
int ReapStrayChildren(const std::vector<pid_t>& children);

}  // namespace pg
