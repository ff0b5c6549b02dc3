#include "runner/adoption.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "contention/snapshot.h"

namespace pg {
namespace {

constexpr int kRounds = 20;  // a process tree deeper than this has outlived enough sweeps

std::vector<pid_t> AdoptedFrom(const ProcSource& proc, const std::string& token) {
  pid_t self = getpid();
  std::vector<pid_t> out;
  for (const std::string& name : proc.List("/proc")) {
    if (name.empty() || !isdigit(static_cast<unsigned char>(name[0]))) continue;
    auto text = proc.Read("/proc/" + name + "/stat");
    auto st = text ? ParsePidStat(*text) : std::nullopt;
    if (!st || st->ppid != self) continue;
    pid_t pid = static_cast<pid_t>(std::atol(name.c_str()));
    if (LegTokenOf(proc, pid) == token) out.push_back(pid);
  }
  return out;
}

// SIGKILL cannot be caught, so the wait is short; a process stuck in the kernel (D state) is
// left to init after a second rather than hanging the run.
void ReapWithin(pid_t pid, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (waitpid(pid, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

bool BecomeSubreaper() { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

int SweepAdopted(const ProcSource& proc, const std::string& token) {
  if (token.empty()) return 0;
  int killed = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<pid_t> found = AdoptedFrom(proc, token);
    if (found.empty()) break;
    for (pid_t pid : found) {
      if (getpgid(pid) == pid) kill(-pid, SIGKILL);  // the group it leads (setsid, setpgid)
      kill(pid, SIGKILL);
      ++killed;
    }
    for (pid_t pid : found) ReapWithin(pid, std::chrono::milliseconds(1000));
  }
  return killed;
}

}  // namespace pg
