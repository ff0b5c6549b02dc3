// Runner overhead, measured side by side in one run:
//   ShellLoop50   — sh running /bin/true 50 times (the floor: one fork+exec each)
//   Scheduler50/j — proofgate's scheduler running 50 legs of ["true"] with j jobs
//   WarmCached50  — RunPreflight on an unchanged git tree: 50 cached legs, nothing spawned
//   MachineSnapshot — one reading of the machine's counters, as each leg's start and end take
// Report the ratios (Scheduler50/1 ÷ ShellLoop50, WarmCached50 ÷ ShellLoop50).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "gates/config/suite_config.h"
#include "gates/contention/snapshot.h"
#include "gates/git/git.h"
#include "gates/runner/capture.h"
#include "gates/runner/preflight.h"
#include "gates/runner/scheduler.h"

namespace fs = std::filesystem;

namespace {

constexpr int kLegs = 50;

std::string SuitesJson() {
  std::string legs, names;
  for (int i = 0; i < kLegs; ++i) {
    legs += (i ? "," : "") + std::string("\"t") + std::to_string(i) + "\": {\"run\": [\"true\"]}";
    names += (i ? "," : "") + std::string("\"t") + std::to_string(i) + "\"";
  }
  return "{\"schema_version\": 1, \"legs\": {" + legs + "}, \"suites\": {\"default\": [" + names +
         "]}}";
}

struct Repo {
  Repo() {
    std::string templ = (fs::temp_directory_path() / "pg-bench-XXXXXX").string();
    path = mkdtemp(templ.data());
    fs::create_directories(path + "/preflight");
    std::ofstream(path + "/preflight/suites.json") << SuitesJson();
    if (!pg::git::Init(path).ok() || !pg::git::CommitAll(path, "bench").ok()) std::abort();
  }
  ~Repo() { fs::remove_all(path); }
  std::string path;
};

void ShellLoop50(benchmark::State& state) {
  for (auto _ : state) {
    auto r = pg::RunCapture(
        {"sh", "-c", "i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i+1)); done"}, "/tmp", 60);
    if (!r.ok() || r->exit.exit_code != 0) state.SkipWithError("shell loop failed");
  }
}
BENCHMARK(ShellLoop50)->Unit(benchmark::kMillisecond)->UseRealTime();

void Scheduler50(benchmark::State& state) {
  Repo repo;
  auto config = pg::ParseSuiteConfig("suites.json", SuitesJson());
  std::vector<const pg::Leg*> legs;
  for (const pg::Leg& leg : config->legs) legs.push_back(&leg);
  pg::SchedulerOptions options;
  options.jobs = static_cast<int>(state.range(0));
  options.root = repo.path;
  options.log_dir = repo.path;
  for (auto _ : state) {
    pg::Scheduler scheduler(options, legs, {});
    auto results = scheduler.Run();
    if (results.back().outcome != pg::Outcome::kPass) state.SkipWithError("leg failed");
  }
}
BENCHMARK(Scheduler50)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void WarmCached50(benchmark::State& state) {
  Repo repo;
  pg::PreflightOptions options;
  options.root = repo.path;
  if (!pg::RunPreflight(options).ok()) state.SkipWithError("cold run failed");
  for (auto _ : state) {
    auto report = pg::RunPreflight(options);
    if (!report.ok() || !report->legs.back().cached) state.SkipWithError("not cached");
  }
}
BENCHMARK(WarmCached50)->Unit(benchmark::kMillisecond)->UseRealTime();

void MachineSnapshot(benchmark::State& state) {
  pg::RealProcSource proc;
  for (auto _ : state) benchmark::DoNotOptimize(pg::TakeSnapshot(proc, {}, {}));
}
BENCHMARK(MachineSnapshot)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
