#include <gtest/gtest.h>
#include <unistd.h>

#include "gates/contention/load_meter.h"
#include "gates/contention/quiet_wait.h"
#include "gates/contention/sampler.h"
#include "gates/contention/snapshot.h"
#include "tests/gates/support/fake_proc.h"

namespace pg {
namespace {

using testing::FakeProc;
using testing::PidStatText;
using testing::ProcStatText;

TEST(ContentionSnapshot, ProcStatKeepsOnlyAllowedCpusAndSkipsTheAggregate) {
  auto cpus =
      ParseProcStat(ProcStatText({{1, 2, 3, 4, 5, 6, 7, 8}, {10, 0, 0, 10, 0, 0, 0, 0}}), {1});
  ASSERT_EQ(cpus.size(), 1u);
  EXPECT_EQ(cpus.at(1).user, 10u);
  EXPECT_EQ(cpus.at(1).Total(), 20u);
  auto all = ParseProcStat(ProcStatText({{1, 2, 3, 4, 5, 6, 7, 8}}), {});
  EXPECT_EQ(all.at(0).Busy(), 1u + 2 + 3 + 6 + 7);
  EXPECT_EQ(all.at(0).steal, 8u);
}

TEST(ContentionSnapshot, PidStatSurvivesParenthesesAndSpacesInTheName) {
  auto st = ParsePidStat(PidStatText(42, "a) (b c", 7, 11, 22, 33, 44));
  ASSERT_TRUE(st);
  EXPECT_EQ(st->ppid, 7);
  EXPECT_EQ(st->self_ticks, 33u);
  EXPECT_EQ(st->children_ticks, 77u);
  EXPECT_FALSE(ParsePidStat("garbage"));
  EXPECT_FALSE(ParsePidStat("1 (x) S"));
}

TEST(ContentionSnapshot, SignalsParseOrAreAbsent) {
  EXPECT_EQ(ParseLoadavg1("108.76 40.1 20.0 3/900 1234\n"), 108.76);
  EXPECT_FALSE(ParseLoadavg1(""));
  EXPECT_EQ(ParsePsiSomeAvg10("some avg10=12.50 avg60=1.00 avg300=0.00 total=1\nfull avg10=1.00"),
            12.5);
  EXPECT_FALSE(ParsePsiSomeAvg10("full avg10=1.00"));
  EXPECT_EQ(ParseThrottledSeconds("usage_usec 10\nthrottled_usec 2500000\n"), 2.5);
  EXPECT_EQ(ParseThrottledSeconds("nr_throttled 1\nthrottled_time 3000000000\n"), 3.0);
}

TEST(ProcessTree, SumsEveryDescendantOnceAndNothingElse) {
  FakeProc proc;
  proc.Set("/proc/1/stat", PidStatText(1, "init", 0, 5000, 5000));
  proc.Set("/proc/100/stat", PidStatText(100, "sh", 1, 10, 5, 7, 3));      // leg leader
  proc.Set("/proc/101/stat", PidStatText(101, "make (1)", 100, 100, 50));  // child
  proc.Set("/proc/102/stat", PidStatText(102, "cc1plus", 101, 200, 0));    // grandchild
  proc.Set("/proc/200/stat", PidStatText(200, "stress-ng", 1, 9999, 0));   // foreign
  proc.Set("/proc/self/stat", PidStatText(99, "proofgate", 1, 1, 1));
  auto trees = TreeTicks(proc, {100, 555});
  EXPECT_EQ(trees.at(100), 10u + 5 + 7 + 3 + 100 + 50 + 200);
  EXPECT_EQ(trees.at(555), 0u);  // gone: nothing, not an error
}

Snapshot Snap(std::vector<std::vector<uint64_t>> cpus, uint64_t tree = 0, uint64_t runner = 0) {
  Snapshot s;
  s.cpus = ParseProcStat(ProcStatText(cpus), {});
  s.trees[100] = tree;
  s.runner_ticks = runner;
  s.loadavg1 = 1.5;
  return s;
}

TEST(LoadMeter, OwnTreeAndRunnerAreNotForeign) {
  LoadMeter meter(100);
  meter.Add(Snap({{1000, 0, 0, 1000, 0, 0, 0, 0}, {1000, 0, 0, 1000, 0, 0, 0, 0}}, 0, 0));
  // 200 jiffies pass; 150 busy, of which 100 are the leg's and 10 the runner's.
  meter.Add(Snap({{1100, 0, 0, 1000, 0, 0, 0, 0}, {1050, 0, 0, 1050, 0, 0, 0, 0}}, 100, 10));
  LoadEvidence e = meter.Evidence();
  EXPECT_EQ(e.samples, 1);
  EXPECT_DOUBLE_EQ(*e.foreign_mean, 40.0 / 200);
  EXPECT_DOUBLE_EQ(*e.foreign_max, 40.0 / 200);
  EXPECT_DOUBLE_EQ(*e.busy_mean, 150.0 / 200);
}

TEST(LoadMeter, MachineMeterCountsAllBusyAsForeign) {
  LoadMeter meter(0);
  meter.Add(Snap({{1000, 0, 0, 1000, 0, 0, 0, 0}}, 0));
  meter.Add(Snap({{1080, 0, 0, 1020, 0, 0, 0, 0}}, 80));
  EXPECT_DOUBLE_EQ(*meter.Evidence().foreign_mean, 0.8);
}

TEST(LoadMeter, StealIsAShareOfAllowedTime) {
  LoadMeter meter(100);
  meter.Add(Snap({{0, 0, 0, 0, 0, 0, 0, 0}}));
  meter.Add(Snap({{0, 0, 0, 90, 0, 0, 0, 10}}));
  EXPECT_DOUBLE_EQ(*meter.Evidence().steal_mean, 0.1);
  EXPECT_DOUBLE_EQ(*meter.Evidence().foreign_mean, 0.0);
}

TEST(LoadMeter, AnOfflineCpuDropsOutOfTheInterval) {
  LoadMeter meter(100);
  meter.Add(Snap({{0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}}));
  Snapshot one_cpu = Snap({{50, 0, 0, 50, 0, 0, 0, 0}});  // cpu1 went offline
  meter.Add(one_cpu);
  EXPECT_DOUBLE_EQ(*meter.Evidence().foreign_mean, 0.5);
}

TEST(LoadMeter, ACpuComingOnlineCountsFromItsFirstInterval) {
  LoadMeter meter(100);
  meter.Add(Snap({{0, 0, 0, 0, 0, 0, 0, 0}}));
  meter.Add(Snap({{30, 0, 0, 70, 0, 0, 0, 0}, {90000, 0, 0, 10, 0, 0, 0, 0}}));  // cpu1 appeared
  EXPECT_DOUBLE_EQ(*meter.Evidence().foreign_mean, 0.3);
  EXPECT_DOUBLE_EQ(*meter.Evidence().foreign_max, 0.3);
}

TEST(LoadMeter, CountersGoingBackwardsAreSkippedNotNegative) {
  LoadMeter meter(100);
  meter.Add(Snap({{5000, 0, 0, 5000, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}}));
  meter.Add(Snap({{10, 0, 0, 10, 0, 0, 0, 0}, {20, 0, 0, 80, 0, 0, 0, 0}}));  // cpu0 wrapped
  EXPECT_DOUBLE_EQ(*meter.Evidence().foreign_mean, 0.2);
  meter.Add(Snap({{0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}}));  // everything reset
  EXPECT_EQ(meter.Evidence().samples, 1);
}

TEST(LoadMeter, ReapedCpuCoversDescendantsTheSamplesMissed) {
  LoadMeter meter(100);
  meter.Add(Snap({{0, 0, 0, 0, 0, 0, 0, 0}}, 0));
  meter.Add(Snap({{100, 0, 0, 0, 0, 0, 0, 0}}, 0));  // the tree was gone when sampled
  EXPECT_DOUBLE_EQ(*meter.Evidence().foreign_mean, 1.0);
  meter.SetReapedCpuTicks(90);
  EXPECT_DOUBLE_EQ(*meter.Evidence().foreign_mean, 0.1);
}

TEST(LoadMeter, MissingSignalsAreListedAbsentNeverGuessed) {
  FakeProc proc;
  proc.Set("/proc/stat", ProcStatText({{0, 0, 0, 0, 0, 0, 0, 0}}));
  LoadMeter meter(0);
  meter.Add(TakeSnapshot(proc, {}, {}));
  proc.Set("/proc/stat", ProcStatText({{10, 0, 0, 90, 0, 0, 0, 0}}));
  meter.Add(TakeSnapshot(proc, {}, {}));
  LoadEvidence e = meter.Evidence();
  EXPECT_EQ(e.absent, (std::vector<std::string>{"loadavg", "psi_cpu", "psi_io", "psi_memory",
                                                "cgroup_throttling", "runner_cpu"}));
  EXPECT_FALSE(e.loadavg1);
  EXPECT_DOUBLE_EQ(*e.foreign_mean, 0.1);
}

TEST(LoadMeter, NoProcStatAtAllIsAbsentAndDoesNotCrash) {
  FakeProc proc;
  LoadMeter meter(0);
  meter.Add(TakeSnapshot(proc, {1}, {}));
  meter.Add(TakeSnapshot(proc, {1}, {}));
  LoadEvidence e = meter.Evidence();
  EXPECT_EQ(e.samples, 0);
  EXPECT_FALSE(e.foreign_mean);
  EXPECT_EQ(e.absent.front(), "cpu");
}

ContentionRules FastRules() {
  ContentionRules rules;
  rules.sample_interval_s = 0.01;
  rules.quiet_for_s = 0.05;
  rules.quiet_wait_s = 0.5;
  return rules;
}

// Time for the quiet wait that passes only when it sleeps: no test waits for real.
struct FakeTimer {
  double now = 0;
  double cancel_at = -1;  // the cancel fd reads as readable from then on; -1: never
  QuietTimer Timer() {
    return QuietTimer{[this] { return now; },
                      [this](double s) {
                        now += s;
                        return cancel_at >= 0 && now >= cancel_at - 1e-9;
                      }};
  }
};

std::chrono::steady_clock::time_point fake_steady{};
std::chrono::steady_clock::time_point FakeSteady() { return fake_steady; }

// A leg that starts as another ends shares its reading (ticks are 10 ms: nothing is lost);
// one a millisecond or more later takes its own, and so does every leg's end. No leg's start
// reads its root's stat file.
TEST(Sampler, AStartWithinAMillisecondReusesTheReading) {
  FakeProc proc;
  proc.LiveStat(2);
  Sampler sampler(proc, 3600, {}, &FakeSteady);  // the loop never samples
  int reads = proc.Reads("/proc/stat");
  auto step = [&](double ms) {
    fake_steady += std::chrono::microseconds(static_cast<int>(ms * 1000));
  };
  sampler.Track(10);
  EXPECT_EQ(proc.Reads("/proc/stat"), reads + 1);
  step(5);
  sampler.Untrack(10, 0);
  EXPECT_EQ(proc.Reads("/proc/stat"), reads + 2);
  step(0.5);
  sampler.Track(11);
  EXPECT_EQ(proc.Reads("/proc/stat"), reads + 2);
  step(1);
  sampler.Track(12);
  EXPECT_EQ(proc.Reads("/proc/stat"), reads + 3);
  EXPECT_EQ(proc.Reads("/proc/11/stat") + proc.Reads("/proc/12/stat"), 0);
  step(0.5);
  sampler.Untrack(12, 0);  // a leg's end is read fresh: it must cover the whole leg
  EXPECT_EQ(proc.Reads("/proc/stat"), reads + 4);
}

// A recorded machine showing `foreign` load on `cpus` CPUs, its sampler, and fake time.
struct QuietMachine {
  QuietMachine(int cpus, double foreign) {
    proc.LiveStat(cpus);
    proc.foreign_share = foreign;
  }
  QuietResult Wait(const ContentionRules& rules,
                   const std::function<void(const std::string&)>& progress = nullptr) {
    return WaitForQuiet(sampler, rules, time.Timer(), progress);
  }
  FakeProc proc;
  Sampler sampler{proc, 0.01, {}};
  FakeTimer time;
};

TEST(QuietWait, ReturnsOnceTheMachineStaysQuiet) {
  QuietMachine machine(2, 0.05);
  QuietResult r = machine.Wait(FastRules());
  EXPECT_TRUE(r.quiet);
  EXPECT_NEAR(r.waited_s, 0.05, 1e-9);  // quiet_for_s: quiet from the first sample on
}

TEST(QuietWait, GivesUpWhenNeverQuietAndSaysSo) {
  QuietMachine machine(2, 0.6);
  ContentionRules rules = FastRules();
  rules.quiet_wait_s = 1.2;
  std::vector<std::string> progress;
  QuietResult r = machine.Wait(rules, [&](const std::string& line) { progress.push_back(line); });
  EXPECT_FALSE(r.quiet);
  EXPECT_NEAR(r.waited_s, 1.2, 1e-6);
  EXPECT_DOUBLE_EQ(r.last_foreign, 0.6);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.front(), "waiting for quiet: 1s foreign=60%");
}

// The share is measured against the run's clock from the wait's start, whatever its reading then.
TEST(QuietWait, TheWaitCountsFromItsOwnStart) {
  QuietMachine machine(2, 0.05);
  machine.time.now = 100;
  QuietResult r = machine.Wait(FastRules());
  EXPECT_TRUE(r.quiet);
  EXPECT_NEAR(r.waited_s, 0.05, 1e-9);
}

// Quiet means below the threshold, and a noisy sample starts the quiet spell over: quiet at
// 0.01, noisy at 0.02 and 0.03, quiet from 0.04, so 0.05 of quiet ends at 0.08.
TEST(QuietWait, ANoisySampleStartsTheQuietSpellOver) {
  QuietMachine machine(2, 0.05);
  QuietTimer timer = machine.time.Timer();
  QuietTimer noisy{timer.now_s, [&](double s) {
                     bool cancelled = timer.sleep_or_cancel(s);
                     machine.proc.foreign_share =
                         machine.time.now > 0.015 && machine.time.now < 0.035 ? 0.5 : 0.05;
                     return cancelled;
                   }};
  QuietResult r = WaitForQuiet(machine.sampler, FastRules(), noisy, nullptr);
  EXPECT_TRUE(r.quiet);
  EXPECT_NEAR(r.waited_s, 0.08, 1e-9);
  QuietMachine at_threshold(2, 0.10);
  EXPECT_FALSE(at_threshold.Wait(FastRules()).quiet) << "10% is not below the 10% threshold";
}

// The bound is reached, not passed: 0.25 s samples give up at exactly 1 s.
TEST(QuietWait, TheWaitEndsAtItsBound) {
  QuietMachine machine(1, 0.9);
  ContentionRules rules = FastRules();
  rules.sample_interval_s = 0.25;
  rules.quiet_wait_s = 1;
  EXPECT_DOUBLE_EQ(machine.Wait(rules).waited_s, 1.0);
}

// A failure is contended at either threshold, and stays a failure when nothing was read.
TEST(QuietWait, ContendedAtEitherThresholdNeverWithoutReadings) {
  ContentionRules rules;
  LoadEvidence e;
  EXPECT_FALSE(IsContended(e, rules)) << "no readings";
  e.steal_mean = 0.05;
  EXPECT_TRUE(IsContended(e, rules)) << "steal at its threshold";
  e.steal_mean = 0.04;
  EXPECT_FALSE(IsContended(e, rules));
  e.foreign_mean = 0.25;
  EXPECT_TRUE(IsContended(e, rules)) << "foreign at its threshold";
  e.foreign_mean = 0.24;
  EXPECT_FALSE(IsContended(e, rules));
}

TEST(QuietWait, ACancelStopsTheWait) {
  QuietMachine machine(1, 0.9);
  machine.time.cancel_at = 0.1;
  QuietResult r = machine.Wait(FastRules());
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.quiet);
  EXPECT_NEAR(machine.time.now, 0.1, 1e-6);
}

}  // namespace
}  // namespace pg
