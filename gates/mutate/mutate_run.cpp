#include "gates/mutate/mutate_run.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "gates/core/file_io.h"
#include "gates/mutate/mutant_job.h"
#include "gates/mutate/mutate_report.h"
#include "gates/mutate/schema_start.h"
#include "gates/mutate/scratch_tree.h"
#include "gates/runner/group_guardian.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

// One run at a time per work directory: two would share scratch trees. The lock is an flock,
// so a killed run never leaves it held — except through its group guardians, which keep it
// until the killed run's builds are gone: a short wait here, never a recovery racing them.
StatusOr<int> Lock(const std::string& work_dir) {
  PG_RETURN_IF_ERROR(MakeDirs(work_dir));
  std::string path = work_dir + "/lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Io(path + ": cannot open");
  auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (std::chrono::steady_clock::now() > give_up) {
      close(fd);
      return Status::Invalid(work_dir + ": another proofgate mutate is running here");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  KeepOpenInGuardians(fd);
  return fd;
}

void Unlock(int fd) {
  KeepOpenInGuardians(-1);
  close(fd);
}

bool Cancelled(int fd) {
  if (fd < 0) return false;
  pollfd pfd{fd, POLLIN, 0};
  return poll(&pfd, 1, 0) > 0;
}

}  // namespace

StatusOr<std::vector<MutantJob>> SelectJobs(const std::vector<Catalog>& catalogs,
                                            const std::vector<std::string>& ids, int shard_index,
                                            int shard_count) {
  std::vector<MutantJob> all;
  for (const Catalog& c : catalogs) {
    for (const Mutation& m : c.mutations) all.push_back(JobOf(c, m));
    for (const Combo& combo : c.combos) all.push_back(JobOf(c, combo));
  }
  std::set<std::string> wanted(ids.begin(), ids.end());
  for (const std::string& id : wanted) {
    bool known =
        std::any_of(all.begin(), all.end(), [&](const MutantJob& j) { return j.id == id; });
    if (!known)
      return Status::Invalid("--id " + id + ": no such mutation or combo in the catalogs");
  }
  std::vector<MutantJob> picked;
  for (size_t i = 0; i < all.size(); ++i) {
    bool selected = wanted.empty() || wanted.count(all[i].id);
    if (selected && static_cast<int>(i % static_cast<size_t>(shard_count)) == shard_index)
      picked.push_back(all[i]);
  }
  if (picked.empty()) return Status::Invalid("nothing selected to run (check --id and --shard)");
  return picked;
}

namespace {

// The pool for one catalog: worker 0 is prepared and proven green already; the others prepare
// in their own threads, then every worker takes the next job until none is left.
class Pool {
 public:
  // `schema`: the mutants worker 0's schemata build holds (empty: one build per mutant). Those
  // run first, in each worker's schemata; the others after the schemata are removed.
  // `reach`: which tests reached which schema mutant in worker 0's green run (none recorded:
  // every mutant runs all its tests).
  Pool(const MutateOptions& o, std::vector<Worker>& workers, const std::vector<MutantJob>& jobs,
       double timeout_s, double build_timeout_s, std::set<int> schema, ReachRecord reach)
      : o_(o),
        workers_(workers),
        jobs_(jobs),
        timeout_s_(timeout_s),
        build_timeout_s_(build_timeout_s),
        results_(jobs.size()),
        done_(jobs.size(), false),
        schema_(std::move(schema)),
        settled_(workers.front().schemata_off()),
        reach_(std::move(reach)),
        held_(workers.size()) {
    for (size_t i = 0; i < jobs.size(); ++i) {
      int n = jobs[i].mutations.size() == 1 ? jobs[i].mutations.front()->schema_number : 0;
      (n > 0 && schema_.count(n) ? in_schema_ : alone_).push_back(i);
    }
  }

  Status Run(MutateReport* report) {
    report_ = report;
    std::vector<std::thread> threads;
    for (Worker& w : workers_) threads.emplace_back([this, &w] { Drive(w); });
    for (std::thread& t : threads) t.join();
    for (size_t i = 0; i < jobs_.size(); ++i) {
      if (done_[i]) report->results.push_back(results_[i]);
    }
    report->interrupted = report->interrupted || interrupted_;
    if (!problem_.empty() && report->baseline_problem.empty()) report->baseline_problem = problem_;
    return error_;
  }

 private:
  void Drive(Worker& w) {
    const Catalog& c = *jobs_.front().catalog;
    if (w.index() > 0) {
      std::string problem;
      bool interrupted = false;
      Status s = w.Prepare(c, &problem, &interrupted);
      if (!s.ok() || interrupted) return Stop(s, "", interrupted);
      if (!problem.empty())
        return Stop(Status(), "worker " + std::to_string(w.index()) + ": " + problem, false);
      std::string note;
      auto mine = schema_.empty() ? std::set<int>{}
                                  : w.ApplySchemata(c, build_timeout_s_, &note, &settled_);
      if (!mine.ok()) return Stop(mine.status(), "", false);
      // A worker whose schemata hold other mutants than worker 0's leaves them to the others.
      if (*mine != schema_ && w.schemata_applied()) {
        Status removed = w.RemoveSchemata(c);
        if (!removed.ok()) return Stop(removed, "", false);
      }
    }
    if (w.schemata_applied()) Take(w, in_schema_, &next_schema_, true);
    Status removed = w.RemoveSchemata(c);  // whatever ended the first phase
    if (!removed.ok()) return Stop(removed, "", false);
    Recheck(w);
    Take(w, alone_, &next_alone_, false);
  }

  // A survivor of the schemata's tests that a test reading the sources reached, held by the
  // worker that ran it until its schemata are gone.
  struct Held {
    size_t job;
    MutantResult in_schema;
    std::vector<std::string> readers;
  };

  // Each held survivor in a build of its own, judged by the tests that read the sources.
  void Recheck(Worker& w) {
    for (const Held& h : held_[static_cast<size_t>(w.index())]) {
      if (stop_) return;
      MutantJob job = jobs_[h.job];
      job.tests = h.readers;
      auto r = w.Run(job, timeout_s_, build_timeout_s_);
      if (!r.ok()) return Stop(r.status(), "", false);
      if (r->interrupted) return Stop(Status(), "", true);
      r->test_s += h.in_schema.test_s;
      r->total_s += h.in_schema.total_s;
      std::vector<std::string> tests = h.in_schema.generated->tests;
      tests.insert(tests.end(), h.readers.begin(), h.readers.end());
      r->generated->tests = tests;
      r->detail =
          "survived the schemata's tests; in its own build, the tests that read the sources: " +
          (r->detail.empty() ? r->observed : r->detail);
      Finish(h.job, *r);
    }
  }

  void Finish(size_t i, const MutantResult& r) {
    std::lock_guard<std::mutex> lock(mu_);
    results_[i] = r;
    done_[i] = true;
    Stream();
    if (o_.on_result) o_.on_result(r);
  }

  // Runs jobs `order[k]` for k taken from *next until none is left or the run stops.
  void Take(Worker& w, const std::vector<size_t>& order, std::atomic<size_t>* next,
            bool in_schema) {
    for (size_t k = (*next)++; k < order.size() && !stop_; k = (*next)++) {
      size_t i = order[k];
      if (Cancelled(o_.cancel_fd)) return Stop(Status(), "", true);
      auto r = in_schema ? w.RunInSchema(jobs_[i], timeout_s_, o_.min_timeout_s, reach_)
                         : w.Run(jobs_[i], timeout_s_, build_timeout_s_);
      if (!r.ok()) return Stop(r.status(), "", false);
      if (r->interrupted) return Stop(Status(), "", true);
      if (in_schema && r->outcome == MutantOutcome::kSurvived) {
        auto readers = w.SourceReadersOf(jobs_[i], reach_);
        if (!readers.ok()) return Stop(readers.status(), "", false);
        if (!readers->empty()) {
          held_[static_cast<size_t>(w.index())].push_back(Held{i, *r, *readers});
          continue;
        }
      }
      Finish(i, *r);
    }
  }

  // Under mu_: the run so far, written whole at once, so a run killed at any instant
  // (SIGKILL included) leaves every mutant that finished (FinishedReportPath).
  void Stream() {
    MutateReport so_far = *report_;  // earlier catalogs' results
    for (size_t k = 0; k < jobs_.size(); ++k) {
      if (done_[k]) so_far.results.push_back(results_[k]);
    }
    so_far.interrupted = true;  // until RunMutate writes the whole run
    (void)WriteFileAtomic(FinishedReportPath(o_.work_dir), MutateReportJson(so_far));
  }

  void Stop(const Status& s, const std::string& problem, bool interrupted) {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    if (!s.ok() && error_.ok()) error_ = s;
    if (!problem.empty() && problem_.empty()) problem_ = problem;
    interrupted_ = interrupted_ || interrupted;
  }

  const MutateOptions& o_;
  std::vector<Worker>& workers_;
  const std::vector<MutantJob>& jobs_;
  double timeout_s_, build_timeout_s_;
  std::vector<MutantResult> results_;
  std::vector<bool> done_;
  MutateReport* report_ = nullptr;
  std::set<int> schema_;
  std::set<int> settled_;  // the points worker 0's schemata leave out: the others' first try
  ReachRecord reach_;
  std::vector<std::vector<Held>> held_;    // per worker: only its own thread touches its list
  std::vector<size_t> in_schema_, alone_;  // job indices: run in the schemata, run one build each
  std::atomic<size_t> next_schema_{0}, next_alone_{0};
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  Status error_;
  std::string problem_;
  bool interrupted_ = false;
};

// Baseline on worker 0, then the pool. A mutant's test limit is max(5 × the baseline's test
// time, the floor): a mutation that makes a test loop is a timeout, not a hang. Its build
// limit is the flag's, else 3 × the baseline's build (a full build in a new work dir) or 10 min.
// Seconds as "20 s", "0.41 s", "1e+10 s": any finite number, never an int's overflow.
std::string Secs(double s) {
  char buf[32];
  if (s >= 100 && s < 1e6)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

Status RunCatalog(const MutateOptions& o, std::vector<Worker>& workers,
                  const std::vector<MutantJob>& jobs, MutateReport* report) {
  const Catalog& c = *jobs.front().catalog;
  std::string problem;
  bool interrupted = false;
  PG_RETURN_IF_ERROR(workers.front().Prepare(c, &problem, &interrupted));
  report->interrupted = interrupted;
  report->baseline_build_s = workers.front().prepared_build_s();
  // A build stopped by Ctrl-C says nothing about the tree: interrupted, never "does not build".
  if (!problem.empty() && !interrupted)
    report->baseline_problem = c.path + ": baseline: " + problem;
  if (interrupted || !problem.empty()) return Status();
  std::vector<std::string> tests = SelectedTests(jobs);
  double build_s = o.build_timeout_s > 0 ? o.build_timeout_s
                                         : std::max(3 * workers.front().prepared_build_s(), 600.0);
  PG_ASSIGN_OR_RETURN(SchemaStart schema, SchemataOnFirst(o, workers.front(), jobs, build_s));
  report->interrupted = schema.interrupted;
  if (schema.interrupted) return Status();
  if (!schema.baseline) {
    PG_ASSIGN_OR_RETURN(schema.baseline, workers.front().RunTests(c, tests, 0));
    report->interrupted = schema.baseline->step.cancelled;
    problem =
        report->interrupted ? "" : BaselineProblem(tests, *schema.baseline, jobs.front().generated);
    if (!problem.empty()) report->baseline_problem = c.path + ": baseline: " + problem;
    if (report->interrupted || !problem.empty()) return Status();
  }
  double timeout_s = std::max(5 * schema.baseline->step.wall_s, o.min_timeout_s);
  if (o.on_notice) {
    // With reach recorded each mutant's limit is its own tests' (worker.cpp's ReachLimit): the
    // line says the range, not the ceiling alone ("tests 22 s" where each mutant got 20 s).
    std::string tests_limit = schema.reach.recorded
                                  ? "5 × the time of the tests that reach each, from " +
                                        Secs(std::min(o.min_timeout_s, timeout_s)) + " to " +
                                        Secs(timeout_s)
                                  : Secs(timeout_s);
    o.on_notice(c.path + ": baseline green (built in " + Secs(report->baseline_build_s) + ", " +
                std::to_string(tests.size()) + " tests in " + Secs(schema.baseline->step.wall_s) +
                (schema.numbers.empty() ? "" : ", in the schemata with no mutant on") +
                Grain(schema.reach, tests.size()) + "); mutant limits: tests " + tests_limit +
                ", build " + Secs(build_s));
    if (!schema.note.empty()) o.on_notice(c.path + ": schemata: " + schema.note);
  }
  size_t n = std::min(workers.size(), jobs.size());
  std::vector<Worker> pool(workers.begin(), workers.begin() + static_cast<long>(n));
  return Pool(o, pool, jobs, timeout_s, build_s, std::move(schema.numbers), std::move(schema.reach))
      .Run(report);
}

}  // namespace

StatusOr<MutateReport> RunMutate(const MutateOptions& o) {
  std::vector<Catalog> catalogs = o.catalogs;  // the jobs point into it until the run ends
  StatusOr<std::vector<MutantJob>> selected = std::vector<MutantJob>{};
  if (!o.discover) selected = SelectJobs(catalogs, o.ids, o.shard_index, o.shard_count);
  if (!selected.ok()) return selected.status();
  PG_ASSIGN_OR_RETURN(int lock, Lock(o.work_dir));
  MutateReport report;
  std::error_code gone;
  std::filesystem::remove(FinishedReportPath(o.work_dir), gone);  // the last run's, superseded
  Journal journal(o.work_dir + "/journal");
  auto recovered = RecoverJournal(journal.dir());
  Status status = recovered.status();
  if (recovered.ok()) report.recovered = *recovered;
  std::vector<Worker> workers;
  for (int k = 0; k < std::max(1, o.jobs); ++k) {
    workers.emplace_back(k, o.root, o.work_dir + "/w" + std::to_string(k), &journal, o.cancel_fd);
    if (o.on_step) workers.back().OnStep(o.on_step);
  }
  if (status.ok() && o.discover) {
    status = o.discover(workers.front(), &catalogs);
    // Nothing found is the caller's to judge (it checked nothing), not a selection error.
    bool found = std::any_of(catalogs.begin(), catalogs.end(),
                             [](const Catalog& c) { return !c.mutations.empty(); });
    if (status.ok() && !o.discover_only && found)
      selected = SelectJobs(catalogs, o.ids, o.shard_index, o.shard_count);
    if (!selected.ok()) status = selected.status();
  }
  std::vector<MutantJob> jobs =
      o.discover_only || !selected.ok() ? std::vector<MutantJob>{} : *selected;
  if (o.on_selected && status.ok()) o.on_selected(jobs.size());
  for (size_t begin = 0; status.ok() && begin < jobs.size();) {
    size_t end = begin;
    while (end < jobs.size() && jobs[end].catalog == jobs[begin].catalog) ++end;
    std::vector<MutantJob> slice(jobs.begin() + static_cast<long>(begin),
                                 jobs.begin() + static_cast<long>(end));
    status = RunCatalog(o, workers, slice, &report);
    if (report.interrupted || !report.baseline_problem.empty()) break;
    begin = end;
  }
  if (!status
           .ok()) {  // what finished before the error, and the error, not an interrupted run's 130
    report.error = status.message();
    report.error_exit_code = static_cast<int>(ExitCodeFor(status));
    (void)WriteFileAtomic(FinishedReportPath(o.work_dir), MutateReportJson(report));
  }
  if (status.ok())
    status = WriteFileAtomic(FinishedReportPath(o.work_dir), MutateReportJson(report));
  Unlock(lock);
  if (!status.ok()) return status;
  return report;
}

std::string FinishedReportPath(const std::string& work_dir) { return work_dir + "/finished.json"; }

StatusOr<std::vector<Recovered>> RecoverMutate(const std::string& root,
                                               const std::string& work_dir) {
  PG_ASSIGN_OR_RETURN(int lock, Lock(work_dir));
  auto recovered = RecoverJournal(work_dir + "/journal");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(work_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (recovered.ok() && name.size() > 1 && name[0] == 'w' &&
        name.find('.') == std::string::npos) {
      Status synced = SyncScratchTree(root, entry.path().string() + "/tree");
      if (!synced.ok()) recovered = synced;
    }
  }
  Unlock(lock);
  return recovered;
}

}  // namespace pg
