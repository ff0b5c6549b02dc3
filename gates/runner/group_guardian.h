// Kills a child's process group when proofgate dies without ending it (SIGKILL, a crash).
// Process groups outlive their parent: a killed run's ninja and compilers would keep writing
// objects built from a mutant after the next run restored the source (LESSONS.md #17). Each
// guardian is a forked copy of proofgate that only waits on a pipe whose write end proofgate
// alone holds; end-of-file without a release byte means proofgate is gone, so it kills the
// group and waits for it to empty before exiting.
#pragma once

#include <sys/types.h>

namespace pg {

class GroupGuardian {
 public:
  GroupGuardian() = default;
  // Forks the guardian before the child exists (a fork takes milliseconds; a proofgate killed
  // in between would leave an unguarded group); inert when fork or socketpair fails.
  static GroupGuardian Start();
  // The group to kill should proofgate die: the child's pid, sent as soon as it exists.
  void Watch(pid_t pgid);

  GroupGuardian(GroupGuardian&& other) noexcept;
  GroupGuardian& operator=(GroupGuardian&& other) noexcept;
  GroupGuardian(const GroupGuardian&) = delete;
  GroupGuardian& operator=(const GroupGuardian&) = delete;
  ~GroupGuardian() { Release(); }

  // The group's end is proofgate's business again: the guardian exits without killing.
  void Release();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int release_fd_ = -1;
};

// An fd every guardian started from now on keeps open until its group is gone (-1: none):
// mutate's run lock, so the next run cannot recover sources while a killed run's build still
// writes.
void KeepOpenInGuardians(int fd);

}  // namespace pg
