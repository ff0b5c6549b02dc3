// Runs legs as processes: up to `jobs` at once, a leg only after its needs passed, legs that
// share a lock never together, an exclusive leg alone. Timeouts and interrupts kill whole
// process groups (SIGTERM, then SIGKILL after the grace period: gates/runner/supervisor.h).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/contention/quiet_wait.h"
#include "gates/contention/sampler.h"
#include "gates/runner/leg_result.h"
#include "gates/runner/supervisor.h"

namespace pg {

struct SchedulerOptions {
  int jobs = 1;
  double kill_grace_s = kDefaultKillGraceS;
  std::string root;     // absolute; legs' cwd is relative to it
  std::string log_dir;  // absolute, existing; one <leg>.log each
  int cancel_fd = -1;   // when readable, every leg is stopped (Ctrl-C)
  std::string tree_hash;
  // When set, every leg gets load evidence and failed timing legs follow `rules`.
  Sampler* sampler = nullptr;
  ContentionRules rules;
  bool retry_contended = true;
  std::function<void(const std::string&)> on_notice;  // "waiting for quiet: ..."
  // Called on every state change: "running", then the outcome (or "cached").
  std::function<void(const LegResult&, std::string_view state)> on_change;
  // Legs with nothing to check (gates/runner/leg_files.h), and why: skipped, and no failed need.
  std::map<std::string, std::string> no_files;
  // Where legs are started; null: real processes (RealLauncher). Tests pass a fake.
  ProcessLauncher* launcher = nullptr;
  // Legs an earlier pass of the same run ended (the fixers): reported as they ended, not run
  // or announced again; a leg that needs one sees its outcome.
  std::map<std::string, LegResult> earlier;
  double started_offset_s = 0;  // how far into the run this pass starts
  // Called as each leg is about to start, before its process exists (the fixer pass
  // snapshots the tree here: what changed until the next fixer starts is this one's).
  std::function<void(const Leg&)> before_start;
};

class Scheduler {
 public:
  // `legs` must list needs before the legs that need them (SelectLegs does). Legs named in
  // `cached` are reported as passes without running.
  Scheduler(SchedulerOptions options, std::vector<const Leg*> legs, std::set<std::string> cached);

  std::vector<LegResult> Run();
  bool interrupted() const { return cancelled_; }

 private:
  enum class State { kPending, kRunning, kDone };
  struct Slot {
    const Leg* leg = nullptr;
    LegResult result;
    State state = State::kPending;
    int child = -1;  // the supervisor's id of the running attempt
    Clock::time_point start;
    bool rerun = false;    // a contended timing leg waiting to run again, alone
    std::string token;     // PROOFGATE_LEG_TOKEN of the running attempt
    bool earlier = false;  // ended in an earlier pass (SchedulerOptions::earlier)
  };

  void StartReady();
  bool CanStart(const Slot& slot) const;
  std::optional<std::string> FailedNeed(const Slot& slot) const;
  bool NeedsDone(const Slot& slot) const;
  void Start(Slot& slot);
  void Wait();
  void Reap(Slot& slot, const SupervisedExit& exit);
  bool RetryContended(Slot& slot, Outcome outcome, const std::string& note);
  void StartRerun(Slot& slot);
  void Cancel();
  void Finish(Slot& slot, Outcome outcome, std::string note);
  void Notify(const Slot& slot, std::string_view state);
  void Deliver();  // the changes held while the pass started legs, in their order
  Slot* Find(const std::string& name);
  Slot* FindChild(int child);
  const Slot* Find(const std::string& name) const;
  int Running() const;
  bool ExclusiveRunning() const;
  double Since(Clock::time_point t) const;

  SchedulerOptions options_;
  Supervisor supervisor_;
  std::vector<Slot> slots_;
  // A pass that reaped legs holds their changes until it has started the next ones: what
  // on_change does (progress lines, the legs stream) then runs beside them, not between.
  bool holding_ = false;
  std::vector<std::pair<size_t, std::string>> held_;  // slot index, state
  Clock::time_point run_start_;
  bool cancelled_ = false;
};

// The last `max_lines` lines (at most `max_bytes`) of a log file.
std::string ReadTail(const std::string& path, size_t max_bytes = 4096, int max_lines = 30);

}  // namespace pg
