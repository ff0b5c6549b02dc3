// /proc walks for the group guardian (gates/runner/group_guardian.h), which runs in a fork of a
// multi-threaded proofgate: raw system calls and stack buffers only, no malloc, no locks.
#pragma once

#include <sys/types.h>

namespace pg {

// Whether a process other than a zombie is in one of `groups`. Zombies cannot write, and
// nobody may reap them (a subreaper that never waits, a container's init), so they do not
// count. True when /proc cannot be read: the caller's deadline ends its wait.
bool LiveMemberIn(const pid_t* groups, int count);

// SIGKILLs every process whose environment holds an entry starting with the `len` bytes at
// `entry` ("PROOFGATE_LEG_TOKEN=4242." for a prefix; end them with the NUL for a whole entry),
// with its process group when it leads one. Returns how many it found, the first `max` of
// their pids in `killed`; processes of other users and the dying (unreadable environ) are
// skipped.
int KillEnvironmentHolders(const char* entry, size_t len, pid_t* killed = nullptr, int max = 0);

}  // namespace pg
