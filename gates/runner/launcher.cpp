#include "gates/runner/launcher.h"

#include <poll.h>
#include <signal.h>

#include <algorithm>

#include "gates/contention/snapshot.h"
#include "gates/runner/adoption.h"

namespace pg {
namespace {

class RealProcess final : public Process {
 public:
  RealProcess(Child child, std::string token)
      : child_(std::move(child)), token_(std::move(token)) {}
  pid_t pid() const override { return child_.pid(); }
  int pidfd() const { return child_.pidfd(); }
  bool TryReap(ExitInfo* out) override { return child_.TryReap(out); }
  void SignalGroup(int sig) override { child_.SignalGroup(sig); }
  void CleanUp() override {
    // Whatever the child left behind in its group; when there was something (a runner that
    // outlived the shell starting it), what it started elsewhere too.
    if (child_.SignalGroup(SIGKILL)) SweepLeftovers(child_.pid(), token_);
    SweepAdopted(RealProcSource(), token_);  // and what left the group (setsid daemons)
  }

 private:
  Child child_;
  std::string token_;
};

class RealLauncherImpl final : public ProcessLauncher {
 public:
  RealLauncherImpl() { BecomeSubreaper(); }
  const Clock& clock() const override { return SteadyClock(); }

  StatusOr<std::unique_ptr<Process>> Start(const SpawnSpec& spec,
                                           const std::string& token) override {
    SpawnSpec with_token = spec;
    with_token.env.emplace_back(kLegTokenVariable, token);
    PG_ASSIGN_OR_RETURN(Child child, Child::Spawn(with_token));
    return std::unique_ptr<Process>(new RealProcess(std::move(child), token));
  }

  bool Wait(const std::vector<Process*>& running, Clock::time_point until, int cancel_fd) override {
    std::vector<pollfd> fds;
    for (Process* p : running) fds.push_back({static_cast<RealProcess*>(p)->pidfd(), POLLIN, 0});
    if (cancel_fd >= 0) fds.push_back({cancel_fd, POLLIN, 0});
    long long ms = 60'000;  // a bound, not a tick: the caller loops until its own deadline
    if (until != Clock::time_point::max()) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(until - SteadyClock().Now());
      ms = std::clamp<long long>(left.count() + 1, 0, ms);
    }
    int ready = poll(fds.data(), fds.size(), static_cast<int>(ms));
    return ready > 0 && cancel_fd >= 0 && (fds.back().revents & POLLIN);
  }
};

}  // namespace

ProcessLauncher& RealLauncher() {
  static RealLauncherImpl launcher;
  return launcher;
}

}  // namespace pg
