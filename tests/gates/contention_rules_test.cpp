#include <gtest/gtest.h>

#include "config/json_source.h"
#include "config/suite_config.h"
#include "runner/scheduler.h"
#include "fake_proc.h"
#include "test_support.h"

namespace pg {
namespace {

using testing::FindLeg;
using testing::TempDir;

// Real legs, recorded /proc: the fake machine shows `foreign_share` of foreign load until
// the test lowers it (by default as soon as a leg is tagged contended).
class ContentionRules : public ::testing::Test {
 protected:
  void SetUp() override {
    proc_.LiveStat(2);
    rules_.sample_interval_s = 0.01;
    rules_.quiet_for_s = 0.05;
    rules_.quiet_wait_s = 2;
  }
  std::vector<LegResult> Run(const std::string& legs, int jobs = 1) {
    auto config = ParseSuiteConfig("suites.json", "{\"schema_version\": 1, \"legs\": {" + legs + "}, \"suites\": {}}");
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
    options.on_change = [&](const LegResult& leg, std::string_view state) {
      states_.push_back(leg.name + ":" + std::string(state));
      if (state == "contended" && quiet_after_contended_) proc_.foreign_share = 0.0;
    };
    Scheduler scheduler(options, selected, {});
    return scheduler.Run();
  }
  static std::string Def(const std::string& name, const std::string& body, bool timing = true) {
    return "\"" + name + "\": {\"run\": " + Json(body).dump() + (timing ? ", \"timing\": true" : "") + "}";
  }
  // Fails the first time it runs, passes after.
  std::string FlakyUnderLoad() const { return "[ -f " + dir_.path() + "/ran ] || { touch " + dir_.path() + "/ran; exit 1; }"; }

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
  EXPECT_EQ(states_, (std::vector<std::string>{"perf:running", "perf:contended", "perf:running", "perf:pass"}));
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
  EXPECT_EQ(states_, (std::vector<std::string>{"perf:running", "perf:contended"}));
}

TEST_F(ContentionRules, TheRerunRunsAloneAfterTheOtherLegsFinish) {
  proc_.foreign_share = 0.8;
  std::string stamps = dir_.path() + "/stamps";
  std::string rerun = "[ -f " + dir_.path() + "/ran ] && { " + testing::Stamped("perf2", stamps, "sleep 0.2") +
                      "; exit 0; }; touch " + dir_.path() + "/ran; exit 1";
  auto results = Run(Def("a", testing::Stamped("a", stamps, "sleep 0.4"), false) + "," + Def("perf", rerun) +
                         "," + Def("b", testing::Stamped("b", stamps, "sleep 0.4"), false) + "," +
                         Def("c", testing::Stamped("c", stamps, "sleep 0.2"), false),
                     3);
  EXPECT_EQ(FindLeg(results, "perf")->outcome, Outcome::kPass);
  auto intervals = testing::ReadIntervals(stamps);
  ASSERT_EQ(intervals.size(), 4u);
  auto perf2 = std::find_if(intervals.begin(), intervals.end(), [](auto& i) { return i.leg == "perf2"; });
  ASSERT_NE(perf2, intervals.end());
  for (const auto& other : intervals) {
    if (other.leg == "perf2") continue;
    EXPECT_FALSE(testing::AnyOverlap({*perf2, other})) << other.leg;
  }
}

}  // namespace
}  // namespace pg
