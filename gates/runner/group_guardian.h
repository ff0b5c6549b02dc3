// Kills the process groups of proofgate's children when proofgate dies without ending them
// (SIGKILL, a crash). Process groups outlive their parent: a killed run's ninja and compilers
// would keep writing objects built from a mutant after the next run restored the source
// (LESSONS.md #17). The guardian is a forked copy of proofgate that only reads a socket whose
// other end proofgate alone holds: each child's group is sent to it when the child exists and
// withdrawn when it ends; end-of-file without a goodbye means proofgate is gone, so it kills
// every group it still watches and waits for them to empty before exiting.
//
// One guardian serves the whole run (a fork per child cost ~0.8 ms each, the largest part of
// proofgate's per-leg overhead). It is forked when the first child starts, before that child
// exists: a proofgate killed in between would otherwise leave an unguarded group.
#pragma once

#include <sys/types.h>

#include <memory>

namespace pg {

class GuardianProcess;  // group_guardian.cpp: the forked guardian and its socket

// One child's registration with the run's guardian.
class GroupGuardian {
 public:
  GroupGuardian() = default;
  // Attaches to the current guardian, forking it first if there is none (inert when fork or
  // socketpair fails: the child runs unguarded rather than not at all).
  static GroupGuardian Start();
  // The group to kill should proofgate die: the child's pid, sent as soon as it exists.
  void Watch(pid_t pgid);

  GroupGuardian(GroupGuardian&& other) noexcept;
  GroupGuardian& operator=(GroupGuardian&& other) noexcept;
  GroupGuardian(const GroupGuardian&) = delete;
  GroupGuardian& operator=(const GroupGuardian&) = delete;
  ~GroupGuardian() { Release(); }

  // The group's end is proofgate's business again: the guardian forgets it.
  void Release();
  pid_t pid() const;  // the guardian's pid; -1 when inert

 private:
  std::shared_ptr<GuardianProcess> process_;
  pid_t watched_ = 0;
};

// An fd every guardian forked from now on keeps open until its groups are gone (-1: none):
// mutate's run lock, so the next run cannot recover sources while a killed run's build still
// writes. Retires the current guardian: it ends once the children it watches have ended, and
// the next child forks a guardian holding `fd`.
void KeepOpenInGuardians(int fd);

}  // namespace pg
