#include "runner/preflight.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>

#include "config/suite_config.h"
#include "core/file_io.h"
#include "core/own_outputs.h"
#include "git/git.h"
#include "runner/blame.h"
#include "runner/declared_outputs.h"
#include "runner/scheduler.h"
#include "runner/staged_aside.h"
#include "runner/verdict_cache.h"
#include "contention/snapshot.h"

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
    if (needs_cached && OutputsThere(report.root, *leg) && cache.Find(plan.keys[leg->name])) plan.cached.insert(leg->name);
  }
  return plan;
}

void StorePasses(const RunReport& report, const Plan& plan, VerdictCache& cache) {
  for (const LegResult& leg : report.legs) {
    if (leg.outcome != Outcome::kPass || leg.cached) continue;
    cache.Put(plan.keys.at(leg.name), CacheEntry{leg.name, report.tree_hash, UtcStamp("%Y-%m-%dT%H:%M:%SZ"),
                                                 leg.wall_s, report.run_id, leg.log_path});
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
    if (it == after.end() || it->second != id) out.push_back({path, it == after.end() ? "deleted" : "changed"});
  }
  for (const auto& [path, id] : after) {
    if (!before.count(path)) out.push_back({path, "added"});
  }
  std::sort(out.begin(), out.end(), [](const TreeChange& a, const TreeChange& b) { return a.path < b.path; });
  return out;
}

// What the tree hash leaves out: proofgate's own report files, and untracked files that legs
// declare they make.
struct HashFilter {
  std::vector<std::string> unhashed;
  git::UntrackedSkip products;
};

std::string StateDir(const PreflightOptions& options, const SuiteConfig& config, RunReport& report,
                     HashFilter* filter, git::TreeFiles* files) {
  auto repo = git::Discover(options.root);
  if (!repo.ok()) {
    if (options.on_notice) options.on_notice("not a git repository: no tree hash, no cache");
    return options.root + "/.proofgate";
  }
  filter->unhashed = InsideTree(repo->workdir, options.own_outputs);
  for (const std::string& file : filter->unhashed) {
    if (options.on_detail) options.on_detail("not hashed: " + file + " (proofgate's own output)");
  }
  std::vector<std::string> root = InsideTree(repo->workdir, {options.root});
  filter->products = DeclaredOutputs(config, root.empty() ? "" : root[0]);
  auto hash = git::WorkingTreeHash(repo->workdir, filter->unhashed, files, filter->products);
  if (hash.ok()) {
    report.tree_hash = *hash;
  } else if (options.on_notice) {
    options.on_notice("no tree hash (" + hash.status().message() + "): no cache");
  }
  return repo->gitdir + "proofgate";
}

void RunLegs(const PreflightOptions& options, const SuiteConfig& config, const FileLegs& file_legs,
             const std::vector<const Leg*>& legs, const std::set<std::string>& cached,
             const std::string& log_dir, RunReport& report) {
  SchedulerOptions sched;
  sched.jobs = options.jobs > 0 ? options.jobs : AvailableCpus();
  sched.kill_grace_s = config.kill_grace_s;
  sched.root = options.root;
  sched.log_dir = log_dir;
  sched.cancel_fd = options.cancel_fd;
  sched.tree_hash = report.tree_hash;
  sched.no_files = file_legs.no_files;
  sched.on_change = [&options, &log_dir](const LegResult& leg, std::string_view state) {
    if (options.on_change) options.on_change(leg, state);
    bool final = state != "running" && state != "contended";
    if (final && options.on_finished) options.on_finished(leg, log_dir);
  };
  sched.on_notice = options.on_progress;
  sched.rules = config.contention;
  sched.retry_contended = options.retry_contended;
  RealProcSource real_proc;
  Sampler sampler(options.proc ? *options.proc : real_proc, config.contention.sample_interval_s,
                  AllowedCpus());
  sched.sampler = &sampler;
  Scheduler scheduler(sched, legs, cached);
  report.legs = scheduler.Run();
  report.load_timeline = sampler.Timeline();
  report.interrupted = scheduler.interrupted();
}

bool AboutFiles(const std::vector<const Leg*>& legs) {
  return std::any_of(legs.begin(), legs.end(), [](const Leg* leg) {
    return !leg->files.empty() || std::any_of(leg->argv.begin(), leg->argv.end(), [](const std::string& a) {
      return a.find("{files}") != std::string::npos;
    });
  });
}

// The legs the run reports (suites, --leg, --shard), as the file set makes them.
StatusOr<FileLegs> ChooseLegs(const PreflightOptions& options, const SuiteConfig& config, RunReport& report) {
  bool by_default = options.suites.empty() && options.legs.empty();
  PG_ASSIGN_OR_RETURN(std::vector<const Leg*> legs, SelectLegs(config, by_default ? report.suites : options.suites, options.legs));
  if (options.shard_count > 0) {
    report.shard_index = options.shard_index;
    report.shard_count = options.shard_count;
    legs = ShardLegs(config, legs, options.shard_index, options.shard_count, &report.shard_assigned);
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
    options.on_notice("--staged: " + std::to_string(aside->files().size()) + " file(s) with unstaged changes set aside until the run ends");
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
StatusOr<RunReport> RunPrepared(const PreflightOptions& options, const SuiteConfig& config, StagedAside* aside);
}  // namespace

StatusOr<RunReport> RunPreflight(const PreflightOptions& options) {
  PG_ASSIGN_OR_RETURN(std::unique_ptr<StagedAside> aside, PrepareTree(options));
  std::string config_file =
      fs::path(options.config_path).is_absolute() ? options.config_path : options.root + "/" + options.config_path;
  PG_ASSIGN_OR_RETURN(SuiteConfig config, LoadSuiteConfig(config_file, options.config_path));
  return RunPrepared(options, config, aside.get());
}

StatusOr<RunReport> RunPreflightConfig(const PreflightOptions& options, const SuiteConfig& config) {
  PG_ASSIGN_OR_RETURN(std::unique_ptr<StagedAside> aside, PrepareTree(options));
  return RunPrepared(options, config, aside.get());
}

namespace {

StatusOr<RunReport> RunPrepared(const PreflightOptions& options, const SuiteConfig& config, StagedAside* aside) {
  auto started = std::chrono::steady_clock::now();
  RunReport report;
  report.root = options.root;
  report.suites = options.suites.empty() && options.legs.empty() ? std::vector<std::string>{"default"} : options.suites;
  report.suites.insert(report.suites.end(), options.legs.begin(), options.legs.end());  // what the run was asked for
  report.config_path = config.path;
  PG_ASSIGN_OR_RETURN(FileLegs file_legs, ChooseLegs(options, config, report));
  std::vector<const Leg*> legs;
  for (const Leg& leg : file_legs.legs) legs.push_back(&leg);

  report.started_at = UtcStamp("%Y-%m-%dT%H:%M:%SZ");
  report.run_id = UtcStamp("%Y%m%dT%H%M%SZ") + "-" + std::to_string(getpid());
  HashFilter filter;
  git::TreeFiles files_before;
  std::string state_dir = StateDir(options, config, report, &filter, &files_before);
  std::string logs_root = state_dir + "/logs";
  std::string log_dir = options.log_dir.empty() ? logs_root + "/" + report.run_id : options.log_dir;
  PG_RETURN_IF_ERROR(MakeDirs(log_dir));
  PG_RETURN_IF_ERROR(MakeDirs(state_dir));  // the cache lives here even when logs go elsewhere
  if (options.log_dir.empty()) PruneOldRuns(logs_root);

  report.cache_enabled = options.use_cache && !report.tree_hash.empty();
  VerdictCache cache = VerdictCache::Load(state_dir + "/cache.json");
  if (cache.recovered_from_corruption() && options.on_notice) {
    options.on_notice(state_dir + "/cache.json is malformed; starting an empty cache");
  }
  report.toolchain = ToolchainFingerprint(config.toolchain, options.root);
  Plan plan = PlanCache(legs, cache, report);
  if (!report.cache_enabled) plan.cached.clear();
  if (options.on_plan) {
    std::vector<PlannedLeg> planned;
    for (const Leg* leg : legs) planned.push_back({leg->name, cache.LastPassWall(leg->name), plan.cached.count(leg->name) > 0});
    options.on_plan(planned, options.jobs > 0 ? options.jobs : AvailableCpus());
  }

  RunLegs(options, config, file_legs, legs, plan.cached, log_dir, report);
  NameCachedRuns(plan, cache, report);
  if (!report.tree_hash.empty()) {
    git::TreeFiles files_after;
    auto after = git::WorkingTreeHash(options.root, filter.unhashed, &files_after, filter.products);
    report.tree_hash_after = after.ok() ? *after : "";
    if (after.ok() && *after != report.tree_hash) report.tree_changes = TreeChanges(files_before, files_after);
  }
  PG_RETURN_IF_ERROR(PutBack(options, aside));
  report.allow_inherited = options.allow_inherited;
  report.exit_code = VerdictOf(report);
  // A verdict is only about one tree: passes on a tree that changed under us are not kept.
  if (report.cache_enabled && report.tree_hash == report.tree_hash_after) {
    StorePasses(report, plan, cache);
    PG_RETURN_IF_ERROR(cache.Save());
  }
  if (!options.blame_base.empty() && report.exit_code == ExitCode::kGateFailed) {
    PG_RETURN_IF_ERROR(BlameBase(options, config, &report));
    report.exit_code = VerdictOf(report);
  }
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace

}  // namespace pg
