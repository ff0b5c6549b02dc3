#include "gates/runner/adoption.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "gates/contention/snapshot.h"
#include "gates/core/integer_text.h"
#include "gates/runner/process.h"
#include "gates/runner/raw_proc.h"

namespace pg {
namespace {

constexpr int kRounds = 20;  // a process tree deeper than this has outlived enough sweeps

// This process's children from /proc/self/task/*/children (an orphan is re-parented to any
// live thread of the subreaper): a few short reads, where scanning /proc costs a millisecond
// per leg. nullopt where the kernel lacks those files (CONFIG_PROC_CHILDREN).
std::optional<std::vector<pid_t>> ChildrenFromTasks(const ProcSource& proc) {
  std::vector<pid_t> out;
  bool any = false;
  for (const std::string& tid : proc.List("/proc/self/task")) {
    auto text = proc.Read("/proc/self/task/" + tid + "/children");
    if (!text) continue;
    any = true;
    std::istringstream in(*text);
    for (long pid; in >> pid;) out.push_back(static_cast<pid_t>(pid));
  }
  if (!any) return std::nullopt;
  return out;
}

std::vector<pid_t> ChildrenFromScan(const ProcSource& proc) {
  pid_t self = getpid();
  std::vector<pid_t> out;
  for (const std::string& name : proc.List("/proc")) {
    if (name.empty() || !isdigit(static_cast<unsigned char>(name[0]))) continue;
    auto text = proc.Read("/proc/" + name + "/stat");
    auto st = text ? ParsePidStat(*text) : std::nullopt;
    if (st && st->ppid == self) out.push_back(static_cast<pid_t>(ParseInteger(name).value_or(0)));
  }
  return out;
}

std::vector<pid_t> Children(const ProcSource& proc) {
  std::optional<std::vector<pid_t>> children = ChildrenFromTasks(proc);
  return children ? *std::move(children) : ChildrenFromScan(proc);
}

// Those of `children` that carry `token`. A supervised child (another leg's root, the
// guardian) was started by proofgate, never adopted: its environment is not read.
std::vector<pid_t> AdoptedFrom(const ProcSource& proc, const std::vector<pid_t>& children,
                               const std::string& token) {
  std::vector<pid_t> out;
  for (pid_t pid : children) {
    if (!IsSupervisedChild(pid) && LegTokenOf(proc, pid) == token) out.push_back(pid);
  }
  return out;
}

// SIGKILL cannot be caught, so the wait is short; a process stuck in the kernel (D state) is
// left to init after a second rather than hanging the run.
void ReapWithin(pid_t pid, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (waitpid(pid, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(
        2));  // proofgate: no-mutate (a poll period: any short one reaps alike)
  }
}

}  // namespace

int SweepLeftovers(pid_t pgid, const std::string& token) {
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + std::chrono::seconds(3);
  if (token.empty()) return 0;
  std::string entry = std::string(kLegTokenVariable) + "=" + token;
  entry.push_back('\0');  // the whole entry: token 4242.1 is not 4242.10
  int killed = 0;
  for (int n; (n = KillEnvironmentHolders(entry.data(), entry.size())) > 0 && Clock::now() < end;) {
    killed += n;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // What was killed becomes this process's to reap once the dying runner hands it over: the
  // stray reap after the sweep takes it then, so wait for the group to be dead.
  const pid_t groups[1] = {pgid};
  while (LiveMemberIn(groups, 1) && Clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return killed;
}

bool BecomeSubreaper() { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

int SweepAdopted(const ProcSource& proc, const std::string& token) {
  if (token.empty()) return 0;
  int killed = 0;
  std::vector<pid_t> children = Children(proc);
  for (int round = 0; round < kRounds; ++round, children = Children(proc)) {
    std::vector<pid_t> found = AdoptedFrom(proc, children, token);
    if (found.empty()) break;
    for (pid_t pid : found) {
      if (getpgid(pid) == pid) kill(-pid, SIGKILL);  // the group it leads (setsid, setpgid)
      kill(pid, SIGKILL);
      ++killed;
    }
    for (pid_t pid : found) ReapWithin(pid, std::chrono::milliseconds(1000));
  }
  // Zombies handed to this process (a runner killed its tests and died before reaping them)
  // name no token: reaped as strays, which never takes a supervised child's exit. The last
  // listing is the one that found nothing more to kill.
  ReapStrayChildren(children);
  return killed;
}

}  // namespace pg
