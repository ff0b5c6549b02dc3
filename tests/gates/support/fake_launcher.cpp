#include "tests/gates/support/fake_launcher.h"

#include <signal.h>

#include <algorithm>

namespace pg::testing {

namespace {

// Fake seconds as a time point, rounded up so that a clock set to it has reached it.
Clock::time_point Point(double s) {
  return Clock::time_point{} + std::chrono::ceil<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

class FakeProcess final : public Process {
 public:
  FakeProcess(FakeLauncher& launcher, size_t index) : launcher_(launcher), index_(index) {}
  pid_t pid() const override { return static_cast<pid_t>(100000 + index_); }
  Clock::time_point end() const { return Point(launcher_.EndOf(start())); }

  bool TryReap(ExitInfo* out) override {
    FakeStart& s = start();
    if (s.ended >= 0 || launcher_.clock_.Now() < end()) return false;
    s.ended = launcher_.EndOf(s);
    const FakeProgram& p = launcher_.programs_[s.program];
    int killed_by = 0;
    if (s.ended < s.started + p.runs_s) {  // a signal ended it before it was done
      killed_by = SIGTERM;
      for (const auto& [sig, t] : s.signals) {
        if (sig == SIGKILL && t <= s.ended) killed_by = SIGKILL;
      }
    }
    out->signal = killed_by;
    out->exit_code = killed_by ? -1 : ExitCodeOf(p);
    return true;
  }
  void SignalGroup(int sig) override {
    start().signals.emplace_back(sig, launcher_.clock_.At(launcher_.clock_.Now()));
  }
  void CleanUp() override { start().cleaned_up = true; }

 private:
  FakeStart& start() const { return launcher_.starts_[index_]; }
  int ExitCodeOf(const FakeProgram& p) const {
    if (p.exit_codes.empty()) return p.exit_code;
    size_t nth = 0;
    for (size_t i = 0; i < index_; ++i) nth += launcher_.starts_[i].program == start().program;
    return p.exit_codes[std::min(nth, p.exit_codes.size() - 1)];
  }
  FakeLauncher& launcher_;
  size_t index_;
};

double FakeLauncher::EndOf(const FakeStart& s) const {
  auto it = programs_.find(s.program);
  FakeProgram p = it == programs_.end() ? FakeProgram{} : it->second;
  double end = s.started + p.runs_s;
  for (const auto& [sig, t] : s.signals) {
    if (sig == SIGKILL) end = std::min(end, t);
    if (sig == SIGTERM && p.exits_on_term_after_s)
      end = std::min(end, t + *p.exits_on_term_after_s);
  }
  return end;
}

StatusOr<std::unique_ptr<Process>> FakeLauncher::Start(const SpawnSpec& spec,
                                                       const std::string& token) {
  std::string program = spec.argv.empty() ? "" : spec.argv.back();
  if (program == "cannot-start") return Status::Io("cannot start \"" + spec.argv[0] + "\"");
  tokens.push_back(token);
  starts_.push_back(FakeStart{program, spec, clock_.At(clock_.Now()), -1, {}, false});
  return std::unique_ptr<Process>(new FakeProcess(*this, starts_.size() - 1));
}

bool FakeLauncher::Wait(const std::vector<Process*>& running, Clock::time_point until,
                        int cancel_fd) {
  Clock::time_point next = until;
  for (Process* p : running) next = std::min(next, static_cast<FakeProcess*>(p)->end());
  bool cancel = cancel_fd >= 0 && cancel_at_ && Point(*cancel_at_) <= next;
  if (cancel) next = Point(*cancel_at_);
  if (next == Clock::time_point::max()) {
    stuck = true;  // a real run would hang here: say so, and end the wait as a cancel would
    return true;
  }
  clock_.Set(std::max(next, clock_.Now()));
  return cancel;
}

const FakeStart* FakeLauncher::Find(const std::string& program) const {
  for (const FakeStart& s : starts_) {
    if (s.program == program) return &s;
  }
  return nullptr;
}

}  // namespace pg::testing
