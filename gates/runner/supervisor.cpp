#include "gates/runner/supervisor.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "gates/contention/snapshot.h"

namespace pg {
namespace {

// Tokens name one attempt across every supervisor of this process (mutate's workers run one
// each, on threads), so the adoption sweep of one never takes another's processes.
std::string NextToken() {
  static std::atomic<long> counter{0};
  return LegTokenPrefix(getpid()) + std::to_string(++counter);
}

}  // namespace

Supervisor::Supervisor(ProcessLauncher& launcher, double kill_grace_s)
    : launcher_(launcher), grace_(Clock::Seconds(std::max(0.0, kill_grace_s))) {}

Supervisor::~Supervisor() {
  for (Entry& e : entries_) e.process->SignalGroup(SIGKILL);
  while (!entries_.empty()) {
    if (ReapEnded().empty()) {
      std::vector<Process*> procs;
      for (Entry& e : entries_) procs.push_back(e.process.get());
      launcher_.Wait(procs, clock().Now() + std::chrono::seconds(1), -1);
    }
  }
}

StatusOr<int> Supervisor::Start(const SpawnSpec& spec, double timeout_s) {
  Entry e;
  e.id = next_id_++;
  e.token = NextToken();
  PG_ASSIGN_OR_RETURN(e.process, launcher_.Start(spec, e.token));
  e.start = clock().Now();
  e.deadline = timeout_s > 0 ? e.start + Clock::Seconds(timeout_s) : Clock::time_point::max();
  entries_.push_back(std::move(e));
  return entries_.back().id;
}

const Supervisor::Entry& Supervisor::Find(int id) const {
  static const Entry none;
  for (const Entry& e : entries_) {
    if (e.id == id) return e;
  }
  return none;
}

pid_t Supervisor::pid(int id) const {
  const Entry& e = Find(id);
  return e.process ? e.process->pid() : -1;
}

const std::string& Supervisor::token(int id) const { return Find(id).token; }

std::vector<SupervisedExit> Supervisor::Wait(int cancel_fd, bool* cancel_seen) {
  *cancel_seen = false;
  while (!entries_.empty()) {
    std::vector<SupervisedExit> ended = ReapEnded();
    if (!ended.empty()) return ended;
    std::vector<Process*> procs;
    for (Entry& e : entries_) procs.push_back(e.process.get());
    if (launcher_.Wait(procs, NextDeadline(), cancel_fd)) {
      *cancel_seen = true;
      return ReapEnded();
    }
    CheckDeadlines();
  }
  return {};
}

void Supervisor::StopAll() {
  Clock::time_point now = clock().Now();
  for (Entry& e : entries_) {
    if (e.term_sent) continue;
    e.stopped = true;
    Term(e, now);
  }
}

void Supervisor::Term(Entry& e, Clock::time_point now) {
  e.term_sent = true;
  e.kill_at = now + grace_;
  e.process->SignalGroup(SIGTERM);
}

void Supervisor::CheckDeadlines() {
  Clock::time_point now = clock().Now();
  for (Entry& e : entries_) {
    if (!e.term_sent && now >= e.deadline) {
      e.timed_out = true;
      Term(e, now);
    } else if (e.term_sent && now >= e.kill_at) {
      e.process->SignalGroup(SIGKILL);
      e.kill_at = now + std::chrono::seconds(1);  // keep waiting until it is reaped
    }
  }
}

Clock::time_point Supervisor::NextDeadline() const {
  Clock::time_point next = Clock::time_point::max();
  for (const Entry& e : entries_) next = std::min(next, e.term_sent ? e.kill_at : e.deadline);
  return next;
}

std::vector<SupervisedExit> Supervisor::ReapEnded() {
  std::vector<SupervisedExit> ended;
  for (auto it = entries_.begin(); it != entries_.end();) {
    SupervisedExit x;
    if (!it->process->TryReap(&x.info)) {
      ++it;
      continue;
    }
    it->process->CleanUp();
    x.id = it->id;
    x.pid = it->process->pid();
    x.timed_out = it->timed_out;
    x.stopped = it->stopped;
    x.wall_s = clock().Since(it->start);
    ended.push_back(x);
    it = entries_.erase(it);
  }
  return ended;
}

}  // namespace pg
