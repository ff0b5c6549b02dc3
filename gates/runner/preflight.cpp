#include "gates/runner/preflight.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>

#include "gates/config/suite_config.h"
#include "gates/contention/snapshot.h"
#include "gates/core/file_io.h"
#include "gates/core/own_outputs.h"
#include "gates/git/git.h"
#include "gates/runner/blame.h"
#include "gates/runner/declared_outputs.h"
#include "gates/runner/fixers.h"
#include "gates/runner/scheduler.h"
#include "gates/runner/staged_aside.h"
#include "gates/runner/verdict_cache.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

constexpr int kKeptRuns = 20;  // log folders of older runs are pruned

std::string UtcStamp(const char* format) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

void PruneOldRuns(const fs::path& logs_root) {
  std::error_code ec;
  std::vector<fs::path> runs;
  for (const auto& entry : fs::directory_iterator(logs_root, ec)) runs.push_back(entry.path());
  std::sort(runs.begin(), runs.end());  // run ids start with a UTC timestamp
  for (size_t i = 0; i + kKeptRuns < runs.size(); ++i) fs::remove_all(runs[i], ec);
}

struct Plan {
  std::map<std::string, std::string> keys;  // leg → cache key
  std::set<std::string> cached;
};

Plan PlanCache(const std::vector<const Leg*>& legs, const VerdictCache& cache,
               const RunReport& report) {
  Plan plan;
  for (const Leg* leg : legs) {
    std::vector<std::string> need_keys;
    for (const std::string& need : leg->needs) need_keys.push_back(plan.keys[need]);
    std::string inputs = InputsHash(report.root, leg->inputs);
    plan.keys[leg->name] = CacheKey(report.tree_hash, *leg, report.toolchain, inputs, need_keys);
    bool needs_cached = std::all_of(leg->needs.begin(), leg->needs.end(),
                                    [&](const std::string& n) { return plan.cached.count(n) > 0; });
    if (report.cache_enabled && needs_cached && OutputsThere(report.root, *leg) &&
        cache.Find(plan.keys[leg->name])) {
      plan.cached.insert(leg->name);
    }
  }
  return plan;
}

void StorePasses(const RunReport& report, const Plan& plan, VerdictCache& cache) {
  for (const LegResult& leg : report.legs) {
    if (leg.outcome != Outcome::kPass || leg.cached || !leg.fixed.empty())
      continue;  // a fixer left another tree
    cache.Put(plan.keys.at(leg.name),
              CacheEntry{leg.name, report.tree_hash, UtcStamp("%Y-%m-%dT%H:%M:%SZ"), leg.wall_s,
                         report.run_id, leg.log_path});
  }
}

// A reused pass names the run that earned it, so a reader can go and look at that run.
void NameCachedRuns(const Plan& plan, const VerdictCache& cache, RunReport& report) {
  for (LegResult& leg : report.legs) {
    const CacheEntry* e = leg.cached ? cache.Find(plan.keys.at(leg.name)) : nullptr;
    if (!e || e->run_id.empty()) continue;
    std::error_code ec;
    bool kept = !e->log_path.empty() && fs::exists(e->log_path, ec);
    leg.note = "cached: passed in run " + e->run_id + " at " + e->stored_at +
               (kept ? " (log: " + e->log_path + ")" : " (its log was pruned)");
    if (kept) leg.log_path = e->log_path;
  }
}

// The paths whose blob or mode differs between two snapshots of the tree, in path order.
std::vector<TreeChange> TreeChanges(const git::TreeFiles& before, const git::TreeFiles& after) {
  std::vector<TreeChange> out;
  for (const auto& [path, id] : before) {
    auto it = after.find(path);
    if (it == after.end() || it->second != id)
      out.push_back({path, it == after.end() ? "deleted" : "changed"});
  }
  for (const auto& [path, id] : after) {
    if (!before.count(path)) out.push_back({path, "added"});
  }
  std::sort(out.begin(), out.end(),
            [](const TreeChange& a, const TreeChange& b) { return a.path < b.path; });
  return out;
}

// What the tree hash leaves out: proofgate's own report files, and untracked files that legs
// declare they make.
struct HashFilter {
  std::vector<std::string> unhashed;
  git::UntrackedSkip products;
  std::string root_prefix;  // the root relative to the working tree: "" or "app/"
};

// What RunPrepared's steps share: the hash's filter, the files the run's tree hash names, the
// cache plan, where logs go, and what `--staged` set aside.
struct RunState {
  HashFilter filter;
  git::TreeFiles files_before;
  Plan plan;
  std::string log_dir;
  StagedAside* aside = nullptr;
  std::string gitdir;                 // with a trailing '/'; empty outside git
  std::string workdir;                // the working tree's top, with a trailing '/'
  std::string pass_hash;              // the tree the legs after the fixers ran on
  std::vector<std::string> fixed;     // what the fixers fixed (relative to the working tree)
  git::TreeFiles after_fixers;        // the tree as the fixers left it
  std::string index_before;           // --staged: the index's tree the legs verify
  std::vector<std::string> to_stage;  // --staged: the fixes, staged when the run ends not stale
};

std::string StateDir(const PreflightOptions& options, const SuiteConfig& config, RunReport& report,
                     RunState* state) {
  HashFilter* filter = &state->filter;
  auto repo = git::Discover(options.root);
  if (!repo.ok()) {
    if (options.on_notice) options.on_notice("not a git repository: no tree hash, no cache");
    return options.root + "/.proofgate";
  }
  filter->unhashed = InsideTree(repo->workdir, options.own_outputs);
  for (const std::string& file : filter->unhashed) {
    if (options.on_detail) options.on_detail("not hashed: " + file + " (proofgate's own output)");
  }
  filter->root_prefix = PrefixInTree(repo->workdir, options.root);
  filter->products = DeclaredOutputs(config, filter->root_prefix);
  state->gitdir = repo->gitdir;
  state->workdir = repo->workdir;
  auto hash =
      git::WorkingTreeHash(repo->workdir, filter->unhashed, &state->files_before, filter->products);
  if (hash.ok()) {
    report.tree_hash = *hash;
  } else if (options.on_notice) {
    options.on_notice("no tree hash (" + hash.status().message() + "): no cache");
  }
  return repo->gitdir + "proofgate";
}

SchedulerOptions PassOptions(const PreflightOptions& options, const SuiteConfig& config,
                             const FileLegs& file_legs, const std::string& log_dir) {
  SchedulerOptions sched;
  sched.jobs = options.jobs > 0 ? options.jobs : AvailableCpus();
  sched.kill_grace_s = config.kill_grace_s;
  sched.root = options.root;
  sched.log_dir = log_dir;
  sched.cancel_fd = options.cancel_fd;
  sched.no_files = file_legs.no_files;
  sched.on_change = [&options, &log_dir](const LegResult& leg, std::string_view state) {
    if (options.on_change) options.on_change(leg, state);
    bool final = state != "running" && state != "contended";
    if (final && options.on_finished) options.on_finished(leg, log_dir);
  };
  sched.on_notice = options.on_progress;
  sched.rules = config.contention;
  sched.retry_contended = options.retry_contended;
  return sched;
}

// The tree now, as the run's hashes see it: its hash, and its files in `files`.
StatusOr<std::string> Snapshot(const PreflightOptions& options, const HashFilter& filter,
                               git::TreeFiles* files) {
  return git::WorkingTreeHash(options.root, filter.unhashed, files, filter.products);
}

// Where the tree stood as each fixer started: marks[0] is the run's start (leg "").
using FixerMarks = std::vector<std::pair<std::string, git::TreeFiles>>;

// After the fixers: their changes to their own files are fixes (listed, and staged under
// `--staged`), and the rest of the run verifies the fixed tree, planned on its hash. Any other
// change leaves the run's hash at the tree it started on, so the run ends stale naming it.
void AfterFixers(const PreflightOptions& options, const FileLegs& file_legs,
                 const std::vector<const Leg*>& legs, const FixerMarks& marks,
                 std::map<std::string, LegResult>& fixers, const VerdictCache& cache,
                 RunState& state, RunReport& report) {
  git::TreeFiles files;
  StatusOr<std::string> hash = Snapshot(options, state.filter, &files);
  if (report.tree_hash.empty() || !hash.ok() || *hash == report.tree_hash) return;
  std::vector<FixerRun> runs;
  for (size_t i = 0; i < marks.size(); ++i) {
    runs.push_back(
        {marks[i].first,
         TreeChanges(marks[i].second, i + 1 < marks.size() ? marks[i + 1].second : files)});
  }
  std::set<std::string> set_aside;
  if (state.aside) set_aside.insert(state.aside->files().begin(), state.aside->files().end());
  Fixes fixes = SortFixes(runs, file_legs.fixable, fixers, state.filter.root_prefix, set_aside);
  state.fixed = fixes.all;
  if (state.aside) state.to_stage = fixes.all;  // at the end, when the run is not stale (EndRun)
  for (auto& [name, paths] : fixes.by_leg) {
    fixers[name].fixed = paths;
    fixers[name].note = FixNote(paths);
  }
  for (const auto& [name, paths] : fixes.dropped)
    fixers[name].note += DroppedNote(paths, fixers[name].note.empty());
  state.pass_hash = *hash;
  state.after_fixers = files;
  if (!fixes.not_fixes.empty()) return;  // the run's hash stays the tree it started on: stale
  report.tree_hash = *hash;
  state.files_before = std::move(files);
  Plan again = PlanCache(legs, cache, report);
  for (const auto& [name, result] : fixers)
    again.keys[name] = state.plan.keys[name];  // they ran on the first tree
  state.plan = std::move(again);
}

// Runs the legs: the fixers and what they need first, in a pass of their own, then the rest.
void RunLegs(const PreflightOptions& options, const SuiteConfig& config, const FileLegs& file_legs,
             const std::vector<const Leg*>& legs, const VerdictCache& cache, RunState& state,
             RunReport& report) {
  SchedulerOptions sched = PassOptions(options, config, file_legs, state.log_dir);
  RealProcSource real_proc;
  Sampler sampler(options.proc ? *options.proc : real_proc, config.contention.sample_interval_s,
                  AllowedCpus());
  sched.sampler = &sampler;
  auto started = std::chrono::steady_clock::now();
  if (std::vector<const Leg*> fixers = FixerPass(legs); !fixers.empty()) {
    sched.tree_hash = report.tree_hash;
    FixerMarks marks{{"", state.files_before}};
    sched.before_start = [&](const Leg& leg) {
      if (!leg.stage_fixed || report.tree_hash.empty()) return;
      marks.emplace_back(leg.name, git::TreeFiles());
      (void)Snapshot(options, state.filter,
                     &marks.back().second);  // a failure leaves it empty: every path "added"
    };
    Scheduler first(sched, fixers, state.plan.cached);
    for (LegResult& r : first.Run()) sched.earlier[r.name] = std::move(r);
    sched.before_start = nullptr;
    report.interrupted = first.interrupted();
    for (const Leg* leg : legs) {  // an interrupted run starts nothing more
      if (report.interrupted && !sched.earlier.count(leg->name)) {
        LegResult& skipped = sched.earlier[leg->name];
        skipped.name = leg->name;
        skipped.note = "interrupted before it started";
        sched.on_change(skipped, "skipped");
      }
    }
    AfterFixers(options, file_legs, legs, marks, sched.earlier, cache, state, report);
    if (!state.pass_hash.empty()) sched.tree_hash = state.pass_hash;
    sched.started_offset_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (state.pass_hash.empty()) sched.tree_hash = report.tree_hash;
  Scheduler scheduler(sched, legs, state.plan.cached);
  report.legs = scheduler.Run();
  report.load_timeline = sampler.Timeline();
  report.interrupted = report.interrupted || scheduler.interrupted();
}

bool AboutFiles(const std::vector<const Leg*>& legs) {
  return std::any_of(legs.begin(), legs.end(), [](const Leg* leg) {
    return leg->stage_fixed || !leg->files.empty() || !leg->exclude.empty() ||
           std::any_of(leg->argv.begin(), leg->argv.end(),
                       [](const std::string& a) { return a.find("{files}") != std::string::npos; });
  });
}

// The legs the run reports (suites, --leg, --shard), as the file set makes them.
StatusOr<FileLegs> ChooseLegs(const PreflightOptions& options, const SuiteConfig& config,
                              RunReport& report) {
  bool by_default = options.suites.empty() && options.legs.empty();
  PG_ASSIGN_OR_RETURN(
      std::vector<const Leg*> legs,
      SelectLegs(config, by_default ? report.suites : options.suites, options.legs));
  if (options.shard_count > 0) {
    report.shard_index = options.shard_index;
    report.shard_count = options.shard_count;
    legs =
        ShardLegs(config, legs, options.shard_index, options.shard_count, &report.shard_assigned);
  }
  RunFiles files{options.file_set, options.base, {}};
  // Listing a large tree costs: only a run with a leg that filters or passes files lists it,
  // but a --base that names nothing is refused whatever the legs.
  if (AboutFiles(legs) || options.file_set == FileSet::kBase) {
    PG_ASSIGN_OR_RETURN(files, ListRunFiles(options.root, options.file_set, options.base));
  }
  return ExpandFileLegs(legs, files, SystemArgLimits());
}

// `--staged` sets the unstaged changes aside; any other run first puts back what a killed
// `--staged` run left set aside. Both before suites.json is read: it may be one of them.
StatusOr<std::unique_ptr<StagedAside>> PrepareTree(const PreflightOptions& options) {
  auto repo = git::Discover(options.root);
  if (!repo.ok()) {
    if (options.file_set == FileSet::kAll) return std::unique_ptr<StagedAside>();
    return Status::Invalid(options.root + ": --staged and --base need a git repository");
  }
  std::string state = repo->gitdir + "proofgate";
  std::unique_ptr<StagedAside> aside;
  std::vector<Recovered> recovered;
  if (options.file_set == FileSet::kStaged) {
    PG_ASSIGN_OR_RETURN(aside, StagedAside::Begin(repo->workdir, state));
    recovered = aside->recovered();
  } else {
    PG_ASSIGN_OR_RETURN(recovered, RecoverStaged(state));
  }
  for (const std::string& note : RecoveryNotes(recovered, repo->workdir)) {
    if (options.on_notice) options.on_notice(note);
  }
  if (aside && !aside->files().empty() && options.on_notice) {
    options.on_notice("--staged: " + std::to_string(aside->files().size()) +
                      " file(s) with unstaged changes set aside until the run ends");
  }
  return aside;
}

Status PutBack(const PreflightOptions& options, StagedAside* aside) {
  if (!aside) return Status();
  std::vector<std::string> notes;
  PG_RETURN_IF_ERROR(aside->PutBack(&notes));
  for (const std::string& note : notes) {
    if (options.on_notice) options.on_notice(note);
  }
  return Status();
}

}  // namespace

int AvailableCpus() { return std::max<int>(1, static_cast<int>(AllowedCpus().size())); }

StatusOr<std::string> FindRoot(const std::string& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
    if (fs::exists(p / kDefaultConfig, ec)) return p.string();
    if (p == p.root_path()) break;
  }
  return Status::Invalid(std::string("no ") + kDefaultConfig + " in " + dir.string() +
                         " or any parent (use -C DIR or --config FILE)");
}

namespace {
StatusOr<RunReport> RunPrepared(const PreflightOptions& options, const SuiteConfig& config,
                                StagedAside* aside);
}  // namespace

StatusOr<RunReport> RunPreflight(const PreflightOptions& options) {
  PG_ASSIGN_OR_RETURN(std::unique_ptr<StagedAside> aside, PrepareTree(options));
  std::string config_file = fs::path(options.config_path).is_absolute()
                                ? options.config_path
                                : options.root + "/" + options.config_path;
  PG_ASSIGN_OR_RETURN(SuiteConfig config, LoadSuiteConfig(config_file, options.config_path));
  return RunPrepared(options, config, aside.get());
}

StatusOr<RunReport> RunPreflightConfig(const PreflightOptions& options, const SuiteConfig& config) {
  PG_ASSIGN_OR_RETURN(std::unique_ptr<StagedAside> aside, PrepareTree(options));
  return RunPrepared(options, config, aside.get());
}

namespace {

// Under --staged the fixes go into the index the commit holds once the run is over and its
// tree and index held still: a stale or interrupted run stages nothing (half a fixer's work, a
// rename's deletion, is no commit to make). Fixes that cannot be staged fail their fixer: the
// commit would hold what the legs did not verify.
void StageAtEnd(const RunState& state, RunReport& report) {
  bool still =
      report.tree_hash == report.tree_hash_after && !report.index_changed && !report.interrupted;
  if (state.to_stage.empty() || !still) return;
  Status staged = StageFixes(state.workdir, state.gitdir, state.to_stage);
  for (LegResult& leg : report.legs) {
    if (leg.fixed.empty()) continue;
    if (staged.ok()) {
      leg.note.insert(leg.note.find(": "), " (staged)");
      continue;
    }
    leg.outcome = Outcome::kError;
    leg.note += "; staging them failed: " + staged.message();
  }
}

// The run's end: the tree hashed again (a change is named), the set-aside changes put back,
// the verdict, the passes kept when the tree held still, and --blame-base.
Status EndRun(const PreflightOptions& options, const SuiteConfig& config, RunState& state,
              VerdictCache& cache, RunReport& report) {
  NameCachedRuns(state.plan, cache, report);
  if (!report.tree_hash.empty()) {
    git::TreeFiles files_after;
    auto after = git::WorkingTreeHash(options.root, state.filter.unhashed, &files_after,
                                      state.filter.products);
    report.tree_hash_after = after.ok() ? *after : "";
    if (after.ok() && *after != report.tree_hash)
      report.tree_changes = TreeChanges(state.files_before, files_after);
    std::erase_if(report.tree_changes, [&](const TreeChange& c) {  // a fix is named by its fixer
      auto fixed = state.after_fixers.find(c.path), now = files_after.find(c.path);
      bool as_fixed = fixed == state.after_fixers.end()
                          ? now == files_after.end()
                          : now != files_after.end() && now->second == fixed->second;
      return std::binary_search(state.fixed.begin(), state.fixed.end(), c.path) && as_fixed;
    });
  }
  if (!state.index_before
           .empty()) {  // a `git add` in a leg: the commit would hold what none verified
    auto index_now = git::IndexTreeHash(options.root);
    report.index_changed = index_now.ok() && *index_now != state.index_before;
  }
  StageAtEnd(state, report);
  PG_RETURN_IF_ERROR(PutBack(options, state.aside));
  report.allow_inherited = options.allow_inherited;
  report.exit_code = VerdictOf(report);
  // A verdict is only about one tree: passes on a tree that changed under us are not kept.
  if (report.cache_enabled && report.tree_hash == report.tree_hash_after) {
    StorePasses(report, state.plan, cache);
    PG_RETURN_IF_ERROR(cache.Save());
  }
  if (!options.blame_base.empty() && report.exit_code == ExitCode::kGateFailed) {
    PG_RETURN_IF_ERROR(BlameBase(options, config, &report));
    report.exit_code = VerdictOf(report);
  }
  return Status();
}

StatusOr<RunReport> RunPrepared(const PreflightOptions& options, const SuiteConfig& config,
                                StagedAside* aside) {
  auto started = std::chrono::steady_clock::now();
  RunReport report;
  report.root = options.root;
  report.suites = options.suites.empty() && options.legs.empty()
                      ? std::vector<std::string>{"default"}
                      : options.suites;
  report.suites.insert(report.suites.end(), options.legs.begin(),
                       options.legs.end());  // what the run was asked for
  report.config_path = config.path;
  PG_ASSIGN_OR_RETURN(FileLegs file_legs, ChooseLegs(options, config, report));
  OneFixerAtATime(&file_legs.legs);
  std::vector<const Leg*> legs;
  for (const Leg& leg : file_legs.legs) legs.push_back(&leg);

  report.started_at = UtcStamp("%Y-%m-%dT%H:%M:%SZ");
  report.run_id = UtcStamp("%Y%m%dT%H%M%SZ") + "-" + std::to_string(getpid());
  RunState state;
  state.aside = aside;
  std::string state_dir = StateDir(options, config, report, &state);
  if (aside && !report.tree_hash.empty())
    state.index_before = git::IndexTreeHash(options.root).value_or("");
  std::string logs_root = state_dir + "/logs";
  state.log_dir = options.log_dir.empty() ? logs_root + "/" + report.run_id : options.log_dir;
  PG_RETURN_IF_ERROR(MakeDirs(state.log_dir));
  PG_RETURN_IF_ERROR(MakeDirs(state_dir));  // the cache lives here even when logs go elsewhere
  if (options.log_dir.empty()) PruneOldRuns(logs_root);

  report.cache_enabled = options.use_cache && !report.tree_hash.empty();
  VerdictCache cache = VerdictCache::Load(state_dir + "/cache.json");
  if (cache.recovered_from_corruption() && options.on_notice) {
    options.on_notice(state_dir + "/cache.json is malformed; starting an empty cache");
  }
  std::vector<std::string> probe_warnings;
  report.toolchain = ToolchainFingerprint(config.toolchain, options.root, &probe_warnings);
  for (const std::string& warning : probe_warnings) {
    if (options.on_notice) options.on_notice(warning);
  }
  state.plan = PlanCache(legs, cache, report);
  if (options.on_plan) {
    std::vector<PlannedLeg> planned;
    for (const Leg* leg : legs)
      planned.push_back(
          {leg->name, cache.LastPassWall(leg->name), state.plan.cached.count(leg->name) > 0});
    options.on_plan(planned, options.jobs > 0 ? options.jobs : AvailableCpus());
  }
  RunLegs(options, config, file_legs, legs, cache, state, report);
  PG_RETURN_IF_ERROR(EndRun(options, config, state, cache, report));
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace

}  // namespace pg
