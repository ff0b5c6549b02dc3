// A clock and a process launcher for tests, as ninja's FakeCommandRunner: children are
// scripts of what they do in time (run this long, exit so, answer SIGTERM or not), and
// waiting moves the fake clock straight to the next thing that happens. Nothing sleeps.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gates/runner/launcher.h"

namespace pg::testing {

class FakeClock final : public Clock {
 public:
  time_point Now() const override { return now_; }
  void Set(time_point t) { now_ = t; }
  // Seconds since the clock's start, as tests state times.
  double At(time_point t) const { return std::chrono::duration<double>(t - time_point{}).count(); }

 private:
  time_point now_{};
};

// What a fake child does. Keyed by the last argv element (a leg's shell script).
struct FakeProgram {
  double runs_s = 0;  // exits by itself this long after it started
  int exit_code = 0;
  std::optional<double> exits_on_term_after_s = 0;  // nullopt: ignores SIGTERM
  std::vector<int> exit_codes =
      {};  // when set: the n-th start exits with the n-th (the last repeats)
};

struct FakeStart {
  std::string program;  // the last argv element
  SpawnSpec spec;
  double started = 0, ended = -1;               // fake seconds; -1 while running
  std::vector<std::pair<int, double>> signals;  // signal, fake second it was sent
  bool cleaned_up = false;
};

class FakeLauncher final : public ProcessLauncher {
 public:
  const Clock& clock() const override { return clock_; }
  FakeClock& fake_clock() { return clock_; }
  void Script(const std::string& program, FakeProgram what) { programs_[program] = what; }
  // The cancel fd reads as readable from fake second `t` on.
  void CancelAt(double t) { cancel_at_ = t; }

  StatusOr<std::unique_ptr<Process>> Start(const SpawnSpec& spec,
                                           const std::string& token) override;
  bool Wait(const std::vector<Process*>& running, Clock::time_point until, int cancel_fd) override;

  const std::vector<FakeStart>& starts() const { return starts_; }
  const FakeStart* Find(const std::string& program) const;
  std::vector<std::string> tokens;  // as Start was given them
  bool stuck = false;               // a Wait with nothing that could ever happen

 private:
  friend class FakeProcess;
  double EndOf(const FakeStart& s) const;  // when it exits, given the signals so far

  FakeClock clock_;
  std::map<std::string, FakeProgram> programs_;
  std::vector<FakeStart> starts_;
  std::optional<double> cancel_at_;
};

}  // namespace pg::testing
