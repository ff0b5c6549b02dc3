#include "gates/runner/scheduler.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gates/contention/snapshot.h"

namespace pg {
namespace {

// A leg's log, opened once: the header written, then the descriptor handed to the leg as its
// output (close-on-exec here, so no other leg inherits it), appending as every writer of the
// log does. A fresh log is cut to its header rather than opened with O_TRUNC: ext4 treats a
// truncation to zero as a file about to be replaced and allocates its delayed blocks first
// (40-100 us an open here, the largest cost of a leg's start; to the header's length: 3-8,
// and none when the old log was no longer than the header). A FIFO at the path would block the
// run, Ctrl-C included: opened without blocking, then refused (a device such as /dev/null is
// fine). error() says why the log cannot be written, naming it: the leg is not started.
class LogFile {
 public:
  LogFile(const std::string& path, bool append, const std::string& header)
      : fd_(open(path.c_str(),
                 O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK | (append ? O_APPEND : 0), 0644)) {
    std::string why = Prepare(append, header);
    if (why.empty()) return;
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    error_ = "cannot write its log " + path + ": " + why;
  }
  ~LogFile() {
    if (fd_ >= 0) close(fd_);
  }
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;
  int fd() const { return fd_; }
  const std::string& error() const { return error_; }

 private:
  // The header written and an old log cut to it; "" when the log is ready, else why not.
  std::string Prepare(bool append, const std::string& header) {
    struct stat st {};
    if (fd_ < 0 && errno == ENXIO) return "not a regular file";  // a FIFO no one reads
    if (fd_ < 0 || fstat(fd_, &st) != 0) return std::strerror(errno);
    if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))
      return "not a regular file";  // /dev/null will do
    for (size_t done = 0; done < header.size();) {
      ssize_t n = write(fd_, header.data() + done, header.size() - done);
      if (n <= 0) return n < 0 ? std::strerror(errno) : "nothing written";
      done += static_cast<size_t>(n);
    }
    bool longer = !append && st.st_size > static_cast<off_t>(header.size());
    if (longer && ftruncate(fd_, static_cast<off_t>(header.size())) != 0)
      return std::strerror(errno);
    if (fcntl(fd_, F_SETFL, O_APPEND) != 0) return std::strerror(errno);  // and blocking again
    return "";
  }

  int fd_;
  std::string error_;
};

}  // namespace

Scheduler::Scheduler(SchedulerOptions options, std::vector<const Leg*> legs,
                     std::set<std::string> cached)
    : options_(std::move(options)),
      supervisor_(options_.launcher ? *options_.launcher : RealLauncher(), options_.kill_grace_s) {
  options_.jobs = std::max(1, options_.jobs);
  for (const Leg* leg : legs) {
    Slot slot;
    slot.leg = leg;
    LegResult& r = slot.result;
    r.name = leg->name;
    r.argv = leg->argv;
    r.cwd = leg->cwd.empty() ? options_.root : options_.root + "/" + leg->cwd;
    r.log_path = options_.log_dir + "/" + leg->name + ".log";
    r.tree_hash = options_.tree_hash;
    r.timing = leg->timing;
    if (cached.count(leg->name)) {
      slot.state = State::kDone;
      r.outcome = Outcome::kPass;
      r.cached = true;
      r.log_path.clear();
      r.note = "cached: same tree, leg, toolchain and inputs passed before";
    }
    if (auto none = options_.no_files.find(leg->name); none != options_.no_files.end()) {
      slot.state = State::kDone;
      r.outcome = Outcome::kSkipped;
      r.no_files = true;
      r.log_path.clear();
      r.note = none->second;
    }
    if (auto done = options_.earlier.find(leg->name); done != options_.earlier.end()) {
      slot.state = State::kDone;
      slot.result = done->second;
      slot.earlier = true;
    }
    slots_.push_back(std::move(slot));
  }
}

std::vector<LegResult> Scheduler::Run() {
  run_start_ = supervisor_.clock().Now();
  for (const Slot& slot : slots_) {
    if (slot.earlier) continue;
    if (slot.result.cached) Notify(slot, "cached");
    if (slot.result.no_files) Notify(slot, "skipped");
  }
  while (true) {
    StartReady();
    Deliver();
    if (Running() == 0) break;  // StartReady starts or skips whatever can move
    holding_ = true;
    Wait();
  }
  std::vector<LegResult> results;
  for (Slot& slot : slots_) results.push_back(std::move(slot.result));
  return results;
}

void Scheduler::StartReady() {
  for (Slot& slot : slots_) {
    if (slot.state != State::kPending) continue;
    if (cancelled_) {
      Finish(slot, Outcome::kSkipped, "interrupted before it started");
      continue;
    }
    if (auto need = FailedNeed(slot)) {
      Finish(slot, Outcome::kSkipped, "need \"" + *need + "\" did not pass");
      continue;
    }
    if (!NeedsDone(slot)) continue;
    if (ExclusiveRunning()) return;
    if (slot.rerun) {
      Deliver();  // the wait for quiet can take minutes: say what happened first
      if (Running() == 0) StartRerun(slot);
      if (slot.state != State::kDone) return;  // nothing else starts while it waits or runs
      continue;
    }
    if (slot.leg->exclusive) {
      if (Running() == 0) Start(slot);
      return;  // drain the others so the exclusive leg gets the machine
    }
    if (Running() >= options_.jobs) return;
    if (CanStart(slot)) Start(slot);
  }
}

bool Scheduler::CanStart(const Slot& slot) const {
  for (const Slot& other : slots_) {
    if (other.state != State::kRunning) continue;
    for (const std::string& lock : slot.leg->locks) {
      const auto& held = other.leg->locks;
      if (std::find(held.begin(), held.end(), lock) != held.end()) return false;
    }
  }
  return true;
}

std::optional<std::string> Scheduler::FailedNeed(const Slot& slot) const {
  for (const std::string& need : slot.leg->needs) {
    const Slot* n = Find(need);
    if (n && n->state == State::kDone && n->result.outcome != Outcome::kPass && !n->result.no_files)
      return need;
  }
  return std::nullopt;
}

bool Scheduler::NeedsDone(const Slot& slot) const {
  for (const std::string& need : slot.leg->needs) {
    const Slot* n = Find(need);
    if (n && n->state != State::kDone) return false;
  }
  return true;
}

void Scheduler::Start(Slot& slot) {
  LegResult& r = slot.result;
  if (options_.before_start) options_.before_start(*slot.leg);
  // A rerun appends: the first attempt's output stays in the same log.
  std::string header = "# proofgate leg " + r.name +
                       (slot.rerun ? " (rerun, alone, machine quiet)" : "") + " in " + r.cwd +
                       "\n$";
  for (const std::string& arg : r.argv) header += " " + arg;
  LogFile log(r.log_path, slot.rerun, header + "\n");
  if (!log.error().empty()) {
    Finish(slot, Outcome::kError, log.error());
    return;
  }
  std::vector<std::pair<std::string, std::string>> env = slot.leg->env;
  env.emplace_back("PROOFGATE_LEG", r.name);
  env.emplace_back("PROOFGATE_ROOT", options_.root);
  slot.start = supervisor_.clock().Now();
  r.started_s = options_.started_offset_s + Since(run_start_);
  std::error_code ec;
  if (!std::filesystem::is_directory(r.cwd, ec)) {
    Finish(slot, Outcome::kError, "cwd " + r.cwd + " is not a directory");
    return;
  }
  auto child = supervisor_.Start(SpawnSpec{r.argv, r.cwd, env, r.log_path, "", log.fd()},
                                 slot.leg->timeout_s);
  if (!child.ok()) {
    Finish(slot, Outcome::kError, child.status().message());
    return;
  }
  slot.child = *child;
  slot.token = supervisor_.token(slot.child);
  if (options_.sampler) options_.sampler->Track(supervisor_.pid(slot.child), slot.token);
  slot.state = State::kRunning;
  Notify(slot, "running");
}

void Scheduler::Wait() {
  bool cancel = false;
  std::vector<SupervisedExit> ended =
      supervisor_.Wait(cancelled_ ? -1 : options_.cancel_fd, &cancel);
  for (const SupervisedExit& exit : ended) {
    if (Slot* slot = FindChild(exit.id)) Reap(*slot, exit);
  }
  if (cancel) Cancel();
}

// The supervisor has reaped the attempt and killed what it left running (Process::CleanUp).
void Scheduler::Reap(Slot& slot, const SupervisedExit& exit) {
  const ExitInfo& info = exit.info;
  LegResult& r = slot.result;
  if (options_.sampler) r.load = options_.sampler->Untrack(exit.pid, info.cpu_s);
  r.wall_s = exit.wall_s;
  r.cpu_s = info.cpu_s;
  r.signal = info.signal;
  r.exit_code.reset();
  if (info.signal == 0) r.exit_code = info.exit_code;
  r.output_tail = ReadTail(r.log_path);
  slot.child = -1;
  Outcome outcome = Outcome::kPass;
  std::ostringstream note;
  if (exit.timed_out) {
    outcome = Outcome::kTimeout;
    note << "timed out after " << slot.leg->timeout_s << " s; process group killed";
  } else if (cancelled_) {
    outcome = Outcome::kError;
    note << "interrupted; process group killed";
  } else if (info.signal != 0 || info.exit_code != 0) {
    outcome = Outcome::kFail;
    note << (info.signal ? "killed by signal " + std::to_string(info.signal)
                         : "exit status " + std::to_string(info.exit_code));
  }
  if (RetryContended(slot, outcome, note.str())) return;
  std::string text = note.str();
  if (slot.rerun)
    text = outcome == Outcome::kPass ? "contended first attempt" : text + "; quiet rerun";
  Finish(slot, outcome, text);
}

namespace {
std::string Percent(std::optional<double> share) {
  return std::to_string(static_cast<int>(std::lround(share.value_or(0) * 100))) + "%";
}
}  // namespace

// A timing leg that failed while the machine was busy with foreign work proves nothing:
// it is rerun alone when quiet (or reported contended). Returns true when it took the slot.
bool Scheduler::RetryContended(Slot& slot, Outcome outcome, const std::string& note) {
  LegResult& r = slot.result;
  bool failed = outcome == Outcome::kFail || outcome == Outcome::kTimeout;
  if (!options_.sampler || !slot.leg->timing || !failed || cancelled_) return false;
  if (!IsContended(r.load, options_.rules)) return false;
  std::string load =
      "foreign " + Percent(r.load.foreign_mean) + ", steal " + Percent(r.load.steal_mean);
  if (slot.rerun || !options_.retry_contended) {
    std::string why =
        slot.rerun ? "the rerun was contended too" : "not rerun (--no-retry-contended)";
    Finish(slot, Outcome::kContended, note + " under foreign load (" + load + "); " + why);
    return true;
  }
  r.attempts.push_back(Attempt{outcome, r.started_s, r.exit_code, r.signal, r.wall_s, r.cpu_s,
                               note + " under foreign load (" + load + ")", r.output_tail, r.load});
  slot.rerun = true;
  slot.state = State::kPending;
  r.note = note + " under foreign load (" + load + "); rerun alone when quiet";
  Notify(slot, "contended");
  return true;
}

void Scheduler::StartRerun(Slot& slot) {
  // The wait passes on the launcher's clock: fake time with a fake launcher.
  ProcessLauncher& launcher = supervisor_.launcher();
  const Clock& clock = launcher.clock();
  Clock::time_point began = clock.Now();
  QuietTimer timer{[&] { return clock.Since(began); },
                   [&](double s) {
                     return launcher.Wait({}, clock.Now() + Clock::Seconds(s), options_.cancel_fd);
                   }};
  QuietResult quiet = WaitForQuiet(*options_.sampler, options_.rules, timer, options_.on_notice);
  std::string waited = std::to_string(static_cast<int>(quiet.waited_s)) + " s";
  if (quiet.cancelled) {
    cancelled_ = true;
    Finish(slot, Outcome::kContended, "interrupted while waiting for quiet");
  } else if (!quiet.quiet) {
    Finish(slot, Outcome::kContended,
           "never quiet: waited " + waited + ", foreign " + Percent(quiet.last_foreign) +
               "; first attempt failed under load");
  } else {
    Start(slot);
  }
}

void Scheduler::Cancel() {
  cancelled_ = true;
  supervisor_.StopAll();
}

void Scheduler::Finish(Slot& slot, Outcome outcome, std::string note) {
  slot.state = State::kDone;
  slot.result.outcome = outcome;
  slot.result.note = std::move(note);
  if (outcome == Outcome::kSkipped) slot.result.log_path.clear();
  Notify(slot, OutcomeName(outcome));
}

void Scheduler::Notify(const Slot& slot, std::string_view state) {
  if (!options_.on_change) return;
  if (holding_) {
    held_.emplace_back(static_cast<size_t>(&slot - slots_.data()), std::string(state));
  } else {
    options_.on_change(slot.result, state);
  }
}

void Scheduler::Deliver() {
  holding_ = false;
  std::vector<std::pair<size_t, std::string>> held;
  held.swap(held_);
  for (const auto& [index, state] : held) options_.on_change(slots_[index].result, state);
}

Scheduler::Slot* Scheduler::Find(const std::string& name) {
  for (Slot& slot : slots_) {
    if (slot.leg->name == name) return &slot;
  }
  return nullptr;
}

Scheduler::Slot* Scheduler::FindChild(int child) {
  for (Slot& slot : slots_) {
    if (slot.state == State::kRunning && slot.child == child) return &slot;
  }
  return nullptr;
}

const Scheduler::Slot* Scheduler::Find(const std::string& name) const {
  return const_cast<Scheduler*>(this)->Find(name);
}

int Scheduler::Running() const {
  return static_cast<int>(std::count_if(slots_.begin(), slots_.end(),
                                        [](const Slot& s) { return s.state == State::kRunning; }));
}

bool Scheduler::ExclusiveRunning() const {
  return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) {
    return s.state == State::kRunning && (s.leg->exclusive || s.rerun);
  });
}

double Scheduler::Since(Clock::time_point t) const { return supervisor_.clock().Since(t); }

std::string ReadTail(const std::string& path, size_t max_bytes, int max_lines) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return "";
  std::streamoff size = in.tellg();
  std::streamoff from = std::max<std::streamoff>(0, size - static_cast<std::streamoff>(max_bytes));
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t cut = text.size();
  for (int lines = 0; cut > 0; --cut) {
    if (text[cut - 1] == '\n' && cut != text.size() && ++lines >= max_lines) break;
  }
  return text.substr(cut);
}

}  // namespace pg
