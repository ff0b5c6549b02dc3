// The supervisor's time limits and stop sequence, in fake time: each test states the fake
// second every signal must be sent at, and waits for nothing real.
#include "gates/runner/supervisor.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <utility>
#include <vector>

#include "gates/mutate/step.h"
#include "tests/gates/support/fake_launcher.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::FakeLauncher;
using testing::FakeProgram;
using Signals = std::vector<std::pair<int, double>>;

constexpr double kForever = 1e6;

SpawnSpec Spec(const std::string& program) {
  return SpawnSpec{{"sh", "-c", program}, "/", {}, "/dev/null", ""};
}

SupervisedExit WaitOne(Supervisor& supervisor, int cancel_fd = -1) {
  bool cancel = false;
  std::vector<SupervisedExit> ended = supervisor.Wait(cancel_fd, &cancel);
  EXPECT_EQ(ended.size(), 1u);
  return ended.empty() ? SupervisedExit{} : ended.front();
}

// `program`, scripted so, started alone with `limit_s` under a 5 s grace; waited for.
SupervisedExit RunAlone(FakeLauncher& fake, const std::string& program, FakeProgram script,
                        double limit_s) {
  fake.Script(program, script);
  Supervisor supervisor(fake, 5);
  EXPECT_TRUE(supervisor.Start(Spec(program), limit_s).ok());
  return WaitOne(supervisor);
}

TEST(Supervisor, AChildPastItsLimitGetsTermThenKillAfterTheGrace) {
  FakeLauncher fake;
  SupervisedExit exit = RunAlone(fake, "stubborn", FakeProgram{kForever, 0, std::nullopt}, 3);
  EXPECT_TRUE(exit.timed_out);
  EXPECT_EQ(exit.info.signal, SIGKILL);
  EXPECT_DOUBLE_EQ(exit.wall_s, 8);
  EXPECT_EQ(fake.Find("stubborn")->signals, (Signals{{SIGTERM, 3}, {SIGKILL, 8}}));
  EXPECT_TRUE(fake.Find("stubborn")->cleaned_up);
}

TEST(Supervisor, AChildThatAnswersTermIsNeverKilled) {
  FakeLauncher fake;
  SupervisedExit exit = RunAlone(fake, "polite", FakeProgram{kForever, 0, 0.5}, 3);
  EXPECT_TRUE(exit.timed_out);
  EXPECT_EQ(exit.info.signal, SIGTERM);
  EXPECT_DOUBLE_EQ(exit.wall_s, 3.5);
  EXPECT_EQ(fake.Find("polite")->signals, (Signals{{SIGTERM, 3}}));
}

TEST(Supervisor, AChildWithinItsLimitEndsWithItsOwnExitAndNoSignal) {
  FakeLauncher fake;
  SupervisedExit exit = RunAlone(fake, "quick", FakeProgram{2, 4}, 3);
  EXPECT_FALSE(exit.timed_out);
  EXPECT_EQ(exit.info.exit_code, 4);
  EXPECT_EQ(exit.info.signal, 0);
  EXPECT_DOUBLE_EQ(exit.wall_s, 2);
  EXPECT_TRUE(fake.Find("quick")->signals.empty());
  EXPECT_TRUE(fake.Find("quick")->cleaned_up);
}

TEST(Supervisor, NoLimitMeansTheChildRunsAsLongAsItRuns) {
  FakeLauncher fake;
  SupervisedExit exit = RunAlone(fake, "long", FakeProgram{kForever, 0}, 0);
  EXPECT_FALSE(exit.timed_out);
  EXPECT_DOUBLE_EQ(exit.wall_s, kForever);
  EXPECT_TRUE(fake.Find("long")->signals.empty());
}

// 1e10 s in nanoseconds is past int64: the deadline wrapped to one already gone, and a leg
// with "timeout_s": 1e10 timed out at once. Any finite limit is a deadline; a huge one never comes.
TEST(Supervisor, AnyFiniteLimitIsADeadlineAndAHugeOneNeverComes) {
  for (double limit : {1e10, 1e18, 1e300, 1.7e308}) {
    FakeLauncher fake;
    SupervisedExit exit = RunAlone(fake, "long", FakeProgram{kForever, 0}, limit);
    EXPECT_FALSE(exit.timed_out) << "a limit of " << limit << " s";
    EXPECT_DOUBLE_EQ(exit.wall_s, kForever) << limit;
    EXPECT_TRUE(fake.Find("long")->signals.empty()) << limit;
  }
  FakeLauncher fake;  // and a small one still is a limit
  EXPECT_TRUE(RunAlone(fake, "long", FakeProgram{kForever, 0, 0.5}, 3).timed_out);
}

TEST(Supervisor, StopAllStopsEveryChildWithTheSameGrace) {
  FakeLauncher fake;
  fake.Script("polite", FakeProgram{kForever, 0, 0.5});
  fake.Script("stubborn", FakeProgram{kForever, 0, std::nullopt});
  fake.CancelAt(10);
  Supervisor supervisor(fake, 5);
  ASSERT_TRUE(supervisor.Start(Spec("polite"), 0).ok());
  ASSERT_TRUE(supervisor.Start(Spec("stubborn"), 0).ok());
  bool cancel = false;
  EXPECT_TRUE(supervisor.Wait(7, &cancel).empty());
  ASSERT_TRUE(cancel);
  supervisor.StopAll();
  SupervisedExit first = WaitOne(supervisor);
  SupervisedExit second = WaitOne(supervisor);
  EXPECT_TRUE(first.stopped && second.stopped);
  EXPECT_FALSE(first.timed_out || second.timed_out);
  EXPECT_DOUBLE_EQ(first.wall_s, 10.5);
  EXPECT_DOUBLE_EQ(second.wall_s, 15);
  EXPECT_EQ(fake.Find("stubborn")->signals, (Signals{{SIGTERM, 10}, {SIGKILL, 15}}));
  EXPECT_FALSE(fake.stuck);
}

TEST(Supervisor, NothingOutlivesTheSupervisor) {
  FakeLauncher fake;
  fake.Script("left", FakeProgram{kForever, 0, std::nullopt});
  {
    Supervisor supervisor(fake, 5);
    ASSERT_TRUE(supervisor.Start(Spec("left"), 0).ok());
  }
  EXPECT_EQ(fake.Find("left")->signals, (Signals{{SIGKILL, 0}}));
  EXPECT_DOUBLE_EQ(fake.Find("left")->ended, 0);
  EXPECT_TRUE(fake.Find("left")->cleaned_up);
}

TEST(Supervisor, EveryChildOfEverySupervisorGetsItsOwnToken) {
  FakeLauncher fake;
  Supervisor one(fake, 5), two(fake, 5);
  auto a = one.Start(Spec("a"), 0);
  auto b = two.Start(Spec("b"), 0);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(fake.tokens.size(), 2u);
  EXPECT_NE(fake.tokens[0], fake.tokens[1]);
  EXPECT_EQ(one.token(*a), fake.tokens[0]);
  EXPECT_EQ(two.token(*b), fake.tokens[1]);
}

TEST(Supervisor, AChildThatCannotStartIsTheLaunchersError) {
  FakeLauncher fake;
  Supervisor supervisor(fake, 5);
  auto id = supervisor.Start(Spec("cannot-start"), 0);
  EXPECT_FALSE(id.ok());
  EXPECT_EQ(supervisor.running(), 0);
}

// A mutant's step gets the grace it was given (it was a hard-coded 2 s before).
TEST(Supervisor, AStepCancelledMidwayIsKilledAfterItsGrace) {
  FakeLauncher fake;
  fake.Script("build", FakeProgram{kForever, 0, std::nullopt});
  fake.CancelAt(1);
  testing::TempDir dir;  // RunStep removes the log before it starts
  StepSpec spec{{"sh", "-c", "build"}, "/", {}, dir.path() + "/log", 0, 7, 3, &fake};
  auto step = RunStep(spec);
  ASSERT_TRUE(step.ok());
  EXPECT_TRUE(step->cancelled);
  EXPECT_FALSE(step->timed_out);
  EXPECT_EQ(step->exit_code, -1);
  EXPECT_DOUBLE_EQ(step->wall_s, 4);
  EXPECT_EQ(fake.Find("build")->signals, (Signals{{SIGTERM, 1}, {SIGKILL, 4}}));
}

TEST(Supervisor, AStepPastItsLimitTimesOut) {
  FakeLauncher fake;
  fake.Script("tests", FakeProgram{kForever, 0, 0});
  testing::TempDir dir;
  StepSpec spec{{"sh", "-c", "tests"}, "/", {}, dir.path() + "/log", 60, -1, 3, &fake};
  auto step = RunStep(spec);
  ASSERT_TRUE(step.ok());
  EXPECT_TRUE(step->timed_out);
  EXPECT_FALSE(step->cancelled);
  EXPECT_DOUBLE_EQ(step->wall_s, 60);
}

}  // namespace
}  // namespace pg
