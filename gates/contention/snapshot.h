// One reading of the machine: CPU counters, load signals, and the CPU of tracked process trees.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gates/contention/proc_source.h"

namespace pg {

// Jiffies of one CPU line of /proc/stat.
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t Busy() const { return user + nice + system + irq + softirq; }
  uint64_t Total() const { return Busy() + idle + iowait + steal; }
};

struct PidStat {
  pid_t ppid = 0;
  uint64_t self_ticks = 0;      // utime + stime: all threads of the process
  uint64_t children_ticks = 0;  // cutime + cstime: the children it has reaped
};

struct Snapshot {
  std::map<int, CpuTimes> cpus;  // allowed CPUs present in /proc/stat, by index
  std::optional<double> loadavg1;
  std::optional<double> psi_cpu, psi_io, psi_memory;  // "some" avg10, percent
  std::optional<double> throttled_s;                  // cgroup v2 cpu.stat throttled_usec
  std::optional<uint64_t> runner_ticks;               // the runner's own utime + stime
  std::map<pid_t, uint64_t> trees;  // per tracked root: CPU ticks of its live tree
};

// Parsers: each returns nullopt (or an empty map) on text it cannot read, never throws.
std::map<int, CpuTimes> ParseProcStat(const std::string& text, const std::set<int>& allowed);
std::optional<double> ParseLoadavg1(const std::string& text);
std::optional<double> ParsePsiSomeAvg10(const std::string& text);
std::optional<double> ParseThrottledSeconds(const std::string& text);
std::optional<PidStat> ParsePidStat(const std::string& text);

// Every leg attempt's environment carries PROOFGATE_LEG_TOKEN=<token>; what it starts inherits
// it, so a process proofgate adopted (it is the child subreaper) says which leg it came from.
inline constexpr char kLegTokenVariable[] = "PROOFGATE_LEG_TOKEN";
// Tokens begin with the pid of the proofgate that made them ("<pid>.<n>"): the guardian of a
// killed run ends every process whose token starts so (gates/runner/group_guardian.h).
inline std::string LegTokenPrefix(pid_t owner) { return std::to_string(owner) + "."; }

// The PROOFGATE_LEG_TOKEN value in `pid`'s initial environment; empty when it has none or the
// environment cannot be read (another user's process, a zombie).
std::string LegTokenOf(const ProcSource& proc, pid_t pid);

// CPU ticks of `root` and every live descendant (zombies included): each one's own time plus
// the time of the children it reaped, so a reaped process is counted exactly once. A process
// re-parented to this one (the subreaper) counts under the root whose token (`tokens`: root →
// token) its environment carries.
std::map<pid_t, uint64_t> TreeTicks(const ProcSource& proc, const std::vector<pid_t>& roots,
                                    const std::map<pid_t, std::string>& tokens = {});

// Where this process's cgroup cpu.stat may be (v2, hybrid, v1 cpu controller), best first.
std::vector<std::string> CgroupCpuStatPaths(const ProcSource& proc);

// `cgroup_paths`: CgroupCpuStatPaths found once by a caller that reads often (the sampler: a
// process's cgroup does not move under it); null, found now.
Snapshot TakeSnapshot(const ProcSource& proc, const std::vector<pid_t>& roots,
                      const std::set<int>& allowed_cpus,
                      const std::map<pid_t, std::string>& tokens = {},
                      const std::vector<std::string>* cgroup_paths = nullptr);

// The CPUs this process may run on.
std::set<int> AllowedCpus();

}  // namespace pg
