// The one supervisor of child processes: every leg, mutant step and captured command is
// started, timed and stopped here. A child past its time limit, or every child on StopAll,
// gets SIGTERM to its process group and SIGKILL `kill_grace_s` later if it is still there;
// after each exit what it left running is killed (Process::CleanUp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/runner/launcher.h"

namespace pg {

struct SupervisedExit {
  int id = -1;  // as Start returned it
  pid_t pid = -1;
  ExitInfo info;
  bool timed_out = false;  // its time limit passed and its group was stopped
  bool stopped = false;    // StopAll reached it before it exited
  double wall_s = 0;
};

class Supervisor {
 public:
  Supervisor(ProcessLauncher& launcher, double kill_grace_s);
  // Nothing outlives the supervisor: a child still running is killed with its group, reaped
  // and cleaned up.
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  const Clock& clock() const { return launcher_.clock(); }
  ProcessLauncher& launcher() const { return launcher_; }
  // Starts `spec` with a time limit (<= 0: none); the id names it in what Wait returns.
  StatusOr<int> Start(const SpawnSpec& spec, double timeout_s);
  pid_t pid(int id) const;
  // The PROOFGATE_LEG_TOKEN the child runs with, unique within this proofgate process.
  const std::string& token(int id) const;
  int running() const { return static_cast<int>(entries_.size()); }

  // Blocks until at least one child has ended and returns those that did (reaped and cleaned
  // up), carrying out time limits and grace periods meanwhile. Returns early, with
  // *cancel_seen set, when `cancel_fd` (>= 0) is readable. With no child running: at once.
  std::vector<SupervisedExit> Wait(int cancel_fd, bool* cancel_seen);
  // SIGTERM to every running child's group now; Wait sends SIGKILL after the grace.
  void StopAll();

 private:
  struct Entry {
    int id = -1;
    std::string token;
    std::unique_ptr<Process> process;
    Clock::time_point start, deadline, kill_at;
    bool term_sent = false;
    bool timed_out = false;
    bool stopped = false;
  };

  const Entry& Find(int id) const;
  void Term(Entry& entry, Clock::time_point now);
  void CheckDeadlines();
  Clock::time_point NextDeadline() const;
  std::vector<SupervisedExit> ReapEnded();

  ProcessLauncher& launcher_;
  Clock::duration grace_;
  std::vector<Entry> entries_;
  int next_id_ = 0;
};

}  // namespace pg
