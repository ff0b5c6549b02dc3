#include <gtest/gtest.h>

#include "gates/config/json_source.h"
#include "gates/config/suite_config.h"
#include "gates/runner/scheduler.h"
#include "tests/gates/support/fake_launcher.h"
#include "tests/gates/support/fake_proc.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::FindLeg;
using testing::TempDir;

// Fake legs in fake time (FakeLauncher), recorded /proc: the fake machine shows
// `foreign_share` of foreign load until the test lowers it (by default as soon as a leg is
// tagged contended). The quiet wait passes on the launcher's fake clock too: nothing sleeps.
class ContentionRules : public ::testing::Test {
 protected:
  void SetUp() override {
    proc_.LiveStat(2);
    rules_.sample_interval_s = 0.01;
    rules_.quiet_for_s = 0.05;
    rules_.quiet_wait_s = 2;
    launcher_.Script(kFlaky, testing::FakeProgram{.runs_s = 0.1, .exit_codes = {1, 0}});
    launcher_.Script("exit 1", testing::FakeProgram{.runs_s = 0.1, .exit_code = 1});
  }
  std::vector<LegResult> Run(const std::string& legs, int jobs = 1) {
    auto config = ParseSuiteConfig(
        "suites.json", "{\"schema_version\": 1, \"legs\": {" + legs + "}, \"suites\": {}}");
    EXPECT_TRUE(config.ok()) << config.status().message();
    config_ = std::move(config).value();
    std::vector<const Leg*> selected;
    for (const Leg& leg : config_.legs) selected.push_back(&leg);
    Sampler sampler(proc_, rules_.sample_interval_s, {});
    SchedulerOptions options;
    options.jobs = jobs;
    options.root = options.log_dir = dir_.path();
    options.sampler = &sampler;
    options.rules = rules_;
    options.retry_contended = retry_;
    options.launcher = &launcher_;
    options.on_change = [&](const LegResult& leg, std::string_view state) {
      states_.push_back(leg.name + ":" + std::string(state));
      if (state == "contended" && quiet_after_contended_) proc_.foreign_share = 0.0;
    };
    Scheduler scheduler(options, selected, {});
    auto results = scheduler.Run();
    EXPECT_FALSE(launcher_.stuck);
    return results;
  }
  static std::string Def(const std::string& name, const std::string& body, bool timing = true) {
    return "\"" + name + "\": {\"run\": " + Json(body).dump() +
           (timing ? ", \"timing\": true" : "") + "}";
  }
  // Fails the first time it runs, passes after.
  static constexpr const char* kFlaky = "flaky-under-load";
  static std::string FlakyUnderLoad() { return kFlaky; }

  testing::FakeLauncher launcher_;
  testing::FakeProc proc_;
  pg::ContentionRules rules_;
  bool retry_ = true;
  bool quiet_after_contended_ = true;
  std::vector<std::string> states_;
  TempDir dir_;
  SuiteConfig config_;
};

TEST_F(ContentionRules, AFailureUnderForeignLoadIsRerunWhenQuietAndPasses) {
  proc_.foreign_share = 0.8;
  auto results = Run(Def("perf", FlakyUnderLoad()));
  const LegResult* perf = FindLeg(results, "perf");
  EXPECT_EQ(perf->outcome, Outcome::kPass);
  EXPECT_EQ(perf->note, "contended first attempt");
  ASSERT_EQ(perf->attempts.size(), 1u);
  EXPECT_EQ(perf->attempts[0].outcome, Outcome::kFail);
  EXPECT_NEAR(*perf->attempts[0].load.foreign_mean, 0.8, 0.01);
  EXPECT_NEAR(*perf->load.foreign_mean, 0.0, 0.01);
  EXPECT_EQ(states_, (std::vector<std::string>{"perf:running", "perf:contended", "perf:running",
                                               "perf:pass"}));
}

TEST_F(ContentionRules, AQuietRerunThatFailsIsARealFailureWithBothAttempts) {
  proc_.foreign_share = 0.8;
  auto results = Run(Def("perf", "exit 1"));
  const LegResult* perf = FindLeg(results, "perf");
  EXPECT_EQ(perf->outcome, Outcome::kFail);
  EXPECT_EQ(perf->note, "exit status 1; quiet rerun");
  ASSERT_EQ(perf->attempts.size(), 1u);
  EXPECT_EQ(perf->attempts[0].note, "exit status 1 under foreign load (foreign 80%, steal 0%)");
}

TEST_F(ContentionRules, NeverQuietIsContendedNeverFail) {
  proc_.foreign_share = 0.8;
  quiet_after_contended_ = false;
  rules_.quiet_wait_s = 0.2;
  auto results = Run(Def("perf", "exit 1"));
  const LegResult* perf = FindLeg(results, "perf");
  EXPECT_EQ(perf->outcome, Outcome::kContended);
  EXPECT_EQ(perf->note.rfind("never quiet: waited 0 s, foreign 80%", 0), 0u) << perf->note;
  RunReport report;
  report.legs = results;
  EXPECT_EQ(static_cast<int>(VerdictOf(report)), 4);
}

TEST_F(ContentionRules, APassUnderLoadIsNeverDowngraded) {
  proc_.foreign_share = 0.9;
  auto results = Run(Def("perf", "true"));
  EXPECT_EQ(FindLeg(results, "perf")->outcome, Outcome::kPass);
  EXPECT_TRUE(FindLeg(results, "perf")->attempts.empty());
}

TEST_F(ContentionRules, LegsWithoutTimingAreNeverRetried) {
  proc_.foreign_share = 0.9;
  auto results = Run(Def("unit", FlakyUnderLoad(), /*timing=*/false));
  EXPECT_EQ(FindLeg(results, "unit")->outcome, Outcome::kFail);
  EXPECT_TRUE(FindLeg(results, "unit")->attempts.empty());
}

TEST_F(ContentionRules, AFailureOnAQuietMachineIsAFailure) {
  proc_.foreign_share = 0.1;
  auto results = Run(Def("perf", FlakyUnderLoad()));
  EXPECT_EQ(FindLeg(results, "perf")->outcome, Outcome::kFail);
  EXPECT_TRUE(FindLeg(results, "perf")->attempts.empty());
}

TEST_F(ContentionRules, StealAloneMakesAFailureContended) {
  proc_.steal_share = 0.1;
  auto results = Run(Def("perf", FlakyUnderLoad()));
  EXPECT_EQ(FindLeg(results, "perf")->attempts.size(), 1u);
  EXPECT_EQ(FindLeg(results, "perf")->outcome, Outcome::kPass);
}

TEST_F(ContentionRules, NoRetryReportsContendedWithoutARerun) {
  proc_.foreign_share = 0.8;
  retry_ = false;
  auto results = Run(Def("perf", FlakyUnderLoad()));
  EXPECT_EQ(FindLeg(results, "perf")->outcome, Outcome::kContended);
  EXPECT_TRUE(FindLeg(results, "perf")->attempts.empty());
  EXPECT_EQ(
      FindLeg(results, "perf")->note,
      "exit status 1 under foreign load (foreign 80%, steal 0%); not rerun (--no-retry-contended)");
  EXPECT_EQ(states_, (std::vector<std::string>{"perf:running", "perf:contended"}));
}

TEST_F(ContentionRules, TheRerunRunsAloneAfterTheOtherLegsFinish) {
  proc_.foreign_share = 0.8;
  launcher_.Script("a", testing::FakeProgram{.runs_s = 0.4});
  launcher_.Script("b", testing::FakeProgram{.runs_s = 0.4});
  launcher_.Script("c", testing::FakeProgram{.runs_s = 0.2});
  auto results = Run(Def("a", "a", false) + "," + Def("perf", FlakyUnderLoad()) + "," +
                         Def("b", "b", false) + "," + Def("c", "c", false),
                     3);
  EXPECT_EQ(FindLeg(results, "perf")->outcome, Outcome::kPass);
  ASSERT_EQ(launcher_.starts().size(), 5u);
  const testing::FakeStart* rerun = nullptr;
  for (const testing::FakeStart& s : launcher_.starts()) {
    if (s.program == kFlaky && s.started > 0) rerun = &s;
  }
  ASSERT_NE(rerun, nullptr);
  for (const testing::FakeStart& other : launcher_.starts()) {
    if (&other == rerun) continue;
    EXPECT_TRUE(other.ended <= rerun->started || other.started >= rerun->ended)
        << other.program << " ran from " << other.started << " to " << other.ended
        << ", the rerun from " << rerun->started << " to " << rerun->ended;
  }
}

}  // namespace
}  // namespace pg
