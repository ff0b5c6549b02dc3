// proofgate as the child subreaper of what legs start: a process that leaves its leg's tree (a
// daemon's double fork, `setsid`) is re-parented to proofgate instead of init, so it can be
// counted as the leg's own (gates/contention/snapshot.h) and, when the leg ends, killed and reaped.
#pragma once

#include <string>

#include "gates/contention/proc_source.h"

namespace pg {

// Makes this process the child subreaper (Linux prctl); false where the kernel refuses.
bool BecomeSubreaper();

// Kills every child of this process whose environment carries the leg token `token` (SIGKILL,
// with its process group when it leads one) and reaps it, again until none is left: what a
// killed process started is adopted in turn. Returns how many were killed.
int SweepAdopted(const ProcSource& proc, const std::string& token);

// For a group that still had members when its leader was reaped (a runner outliving the shell
// that started it): kills every process whose environment carries `token` wherever it is (a
// dying runner may not yet have handed its tests, in sessions of their own, to this process),
// until a scan finds none, then waits for `pgid` to be dead, so that what it killed is this
// process's for the stray reap that follows (SweepAdopted). At most 3 s. Returns how many it
// killed.
int SweepLeftovers(pid_t pgid, const std::string& token);

}  // namespace pg
