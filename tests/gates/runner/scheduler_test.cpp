#include "gates/runner/scheduler.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "gates/config/json_source.h"
#include "gates/config/suite_config.h"
#include "tests/gates/support/fake_launcher.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::FindLeg;
using testing::ReadPids;
using testing::TempDir;

class SchedulerTest : public ::testing::Test {
 protected:
  // `legs` is the body of suites.json's "legs"; every leg is in suite "all".
  std::vector<LegResult> Run(const std::string& legs, int jobs, double grace = 5,
                             int cancel_fd = -1, ProcessLauncher* launcher = nullptr) {
    auto config = ParseSuiteConfig(
        "suites.json", "{\"schema_version\": 1, \"kill_grace_s\": " + std::to_string(grace) +
                           ", \"legs\": {" + legs + "}, \"suites\": {}}");
    EXPECT_TRUE(config.ok()) << config.status().message();
    if (!config.ok()) return {};
    config_ = std::move(config).value();
    std::vector<const Leg*> selected;
    for (const Leg& leg : config_.legs) selected.push_back(&leg);
    SchedulerOptions options;
    options.jobs = jobs;
    options.kill_grace_s = config_.kill_grace_s;
    options.root = dir_.path();
    options.log_dir = dir_.path();
    options.cancel_fd = cancel_fd;
    options.launcher = launcher;
    Scheduler scheduler(options, selected, {});
    auto results = scheduler.Run();
    interrupted_ = scheduler.interrupted();
    return results;
  }
  std::string Def(const std::string& name, const std::string& body, const std::string& extra = "") {
    return "\"" + name + "\": {\"run\": " + Json(body).dump() + extra + "}";
  }
  // Legs whose bodies are fake programs of `fake_`, run in fake time.
  std::vector<LegResult> RunFake(const std::string& legs, int jobs, double grace = 5,
                                 int cancel_fd = -1) {
    return Run(legs, jobs, grace, cancel_fd, &fake_);
  }
  const testing::FakeStart& Started(const std::string& program) {
    static const testing::FakeStart none;
    const testing::FakeStart* s = fake_.Find(program);
    EXPECT_NE(s, nullptr) << program << " never started";
    return s ? *s : none;
  }
  bool Overlap(const std::string& a, const std::string& b) {
    return Started(a).started < Started(b).ended && Started(b).started < Started(a).ended;
  }

  testing::FakeLauncher fake_;

  TempDir dir_;
  SuiteConfig config_;
  bool interrupted_ = false;
};

TEST_F(SchedulerTest, RunsLegsInParallelUpToJobs) {
  for (const char* leg : {"a", "b", "c"}) fake_.Script(leg, {2, 0});
  RunFake(Def("a", "a") + "," + Def("b", "b") + "," + Def("c", "c"), 2);
  EXPECT_DOUBLE_EQ(Started("a").started, 0);
  EXPECT_DOUBLE_EQ(Started("b").started, 0);
  EXPECT_DOUBLE_EQ(Started("c").started, 2);  // the third waits for a free job
  EXPECT_DOUBLE_EQ(Started("c").ended, 4);
}

TEST_F(SchedulerTest, OneJobNeverOverlapsLegs) {
  for (const char* leg : {"a", "b", "c"}) fake_.Script(leg, {1, 0});
  RunFake(Def("a", "a") + "," + Def("b", "b") + "," + Def("c", "c"), 1);
  EXPECT_FALSE(Overlap("a", "b") || Overlap("b", "c") || Overlap("a", "c"));
  EXPECT_DOUBLE_EQ(Started("c").ended, 3);
}

TEST_F(SchedulerTest, LegsSharingALockNeverOverlap) {
  std::string lock = ", \"locks\": [\"cpu\"]";
  for (const char* leg : {"a", "b", "c", "free"}) fake_.Script(leg, {1, 0});
  RunFake(Def("a", "a", lock) + "," + Def("b", "b", lock) + "," + Def("c", "c", lock) + "," +
              Def("free", "free"),
          4);
  EXPECT_FALSE(Overlap("a", "b") || Overlap("b", "c") || Overlap("a", "c"));
  EXPECT_TRUE(Overlap("a", "free"));  // a lock holds back only the legs that share it
}

TEST_F(SchedulerTest, AnExclusiveLegRunsAlone) {
  for (const char* leg : {"a", "x", "b", "c"}) fake_.Script(leg, {1, 0});
  RunFake(Def("a", "a") + "," + Def("x", "x", ", \"exclusive\": true") + "," + Def("b", "b") + "," +
              Def("c", "c"),
          4);
  for (const char* other : {"a", "b", "c"})
    EXPECT_FALSE(Overlap("x", other)) << "x overlapped " << other;
  EXPECT_TRUE(Overlap("b", "c"));
}

TEST_F(SchedulerTest, NeedsFinishBeforeTheirDependentsStart) {
  fake_.Script("build", {3, 0});
  fake_.Script("unit", {1, 0});
  RunFake(Def("build", "build") + "," + Def("unit", "unit", ", \"needs\": [\"build\"]"), 4);
  EXPECT_DOUBLE_EQ(Started("build").ended, 3);
  EXPECT_DOUBLE_EQ(Started("unit").started, 3);
}

// The stop sequence of a leg past its limit, at the fake second each signal was due.
TEST_F(SchedulerTest, ALegPastItsLimitIsStoppedThenKilledAfterTheConfiguredGrace) {
  fake_.Script("stubborn", {1000, 0, std::nullopt});
  auto results = RunFake(Def("stubborn", "stubborn", ", \"timeout_s\": 30"), 1, 7);
  const LegResult* leg = FindLeg(results, "stubborn");
  EXPECT_EQ(leg->outcome, Outcome::kTimeout);
  EXPECT_EQ(leg->note, "timed out after 30 s; process group killed");
  EXPECT_EQ(leg->signal, SIGKILL);
  EXPECT_DOUBLE_EQ(leg->wall_s, 37);
  using Signals = std::vector<std::pair<int, double>>;
  EXPECT_EQ(Started("stubborn").signals, (Signals{{SIGTERM, 30}, {SIGKILL, 37}}));
}

TEST_F(SchedulerTest, ACancelStopsRunningLegsAtOnceAndSkipsPendingOnes) {
  fake_.Script("long", {1000, 0, 0.25});
  fake_.CancelAt(12);
  auto results = RunFake(
      Def("long", "long") + "," + Def("later", "later", ", \"needs\": [\"long\"]"), 1, 5, 7);
  EXPECT_TRUE(interrupted_);
  EXPECT_EQ(FindLeg(results, "long")->outcome, Outcome::kError);
  EXPECT_DOUBLE_EQ(FindLeg(results, "long")->wall_s, 12.25);
  EXPECT_EQ(FindLeg(results, "later")->outcome, Outcome::kSkipped);
  EXPECT_EQ(fake_.Find("later"), nullptr);
}

TEST_F(SchedulerTest, EveryAttemptRunsWithTheLegsEnvironmentAndItsToken) {
  fake_.Script("e", {1, 0});
  RunFake(Def("e", "e"), 1);
  const auto& env = Started("e").spec.env;
  auto has = [&](const std::string& k, const std::string& v) {
    return std::find(env.begin(), env.end(), std::make_pair(k, v)) != env.end();
  };
  EXPECT_TRUE(has("PROOFGATE_LEG", "e"));
  EXPECT_TRUE(has("PROOFGATE_ROOT", dir_.path()));
  ASSERT_EQ(fake_.tokens.size(), 1u);
  EXPECT_TRUE(Started("e").cleaned_up);
}

TEST_F(SchedulerTest, AFailedNeedSkipsItsDependentsTransitively) {
  auto results =
      Run(Def("build", "exit 3") + "," + Def("unit", "true", ", \"needs\": [\"build\"]") + "," +
              Def("e2e", "true", ", \"needs\": [\"unit\"]") + "," + Def("lint", "true"),
          2);
  EXPECT_EQ(FindLeg(results, "build")->outcome, Outcome::kFail);
  EXPECT_EQ(FindLeg(results, "build")->exit_code, 3);
  EXPECT_EQ(FindLeg(results, "unit")->outcome, Outcome::kSkipped);
  EXPECT_EQ(FindLeg(results, "unit")->note, "need \"build\" did not pass");
  EXPECT_EQ(FindLeg(results, "e2e")->outcome, Outcome::kSkipped);
  EXPECT_EQ(FindLeg(results, "lint")->outcome, Outcome::kPass);
}

TEST_F(SchedulerTest, TimeoutKillsTheWholeProcessTree) {
  std::string pids = dir_.path() + "/pids";
  auto results = Run(
      Def("slow",
          "sleep 300 & echo $! >> " + pids + "; (sleep 300 & echo $! >> " + pids + "; wait) & wait",
          ", \"timeout_s\": 0.5"),
      1);
  const LegResult* slow = FindLeg(results, "slow");
  EXPECT_EQ(slow->outcome, Outcome::kTimeout);
  EXPECT_EQ(slow->note, "timed out after 0.5 s; process group killed");
  auto listed = ReadPids(pids);
  ASSERT_EQ(listed.size(), 2u);
  for (pid_t pid : listed) EXPECT_TRUE(testing::DiesWithin(pid)) << "pid " << pid << " survived";
}

// `env -i` drops PROOFGATE_LEG_TOKEN, so the adoption sweep cannot tell these sleeps are the
// leg's: only the kill of the leg's process group reaches them (mutant R4).
TEST_F(SchedulerTest, TimeoutKillsTheGroupEvenWhatTheSweepCannotName) {
  std::string pids = dir_.path() + "/pids";
  auto results = Run(Def("slow",
                         "env -i sleep 300 & echo $! >> " + pids +
                             "; (env -i sleep 300 & echo $! >> " + pids + "; wait) & wait",
                         ", \"timeout_s\": 0.5"),
                     1);
  EXPECT_EQ(FindLeg(results, "slow")->outcome, Outcome::kTimeout);
  auto listed = ReadPids(pids);
  ASSERT_EQ(listed.size(), 2u);
  for (pid_t pid : listed) EXPECT_TRUE(testing::DiesWithin(pid)) << "pid " << pid << " survived";
  for (pid_t pid : listed) kill(pid, SIGKILL);
}

TEST_F(SchedulerTest, TimeoutEscalatesToSigkillWhenTermIsIgnored) {
  auto results = Run(Def("stubborn", "trap '' TERM; sleep 300", ", \"timeout_s\": 0.3"), 1, 0.3);
  const LegResult* leg = FindLeg(results, "stubborn");
  EXPECT_EQ(leg->outcome, Outcome::kTimeout);
  EXPECT_EQ(leg->signal, SIGKILL);
  EXPECT_FALSE(leg->exit_code.has_value());
}

TEST_F(SchedulerTest, WhatALegLeavesRunningIsKilledWhenItExits) {
  std::string pids = dir_.path() + "/pids";
  auto results = Run(Def("leaky", "sleep 300 & echo $! > " + pids + "; exit 0"), 1);
  EXPECT_EQ(FindLeg(results, "leaky")->outcome, Outcome::kPass);
  auto listed = ReadPids(pids);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_TRUE(testing::DiesWithin(listed[0]));
}

TEST_F(SchedulerTest, CancelStopsRunningLegsAndSkipsPendingOnes) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string pids = dir_.path() + "/pids";
  std::thread interrupter([&] {
    // The shell's redirect makes the file before echo writes into it: wait for the pid.
    for (int i = 0; i < 1500 && ReadPids(pids).empty(); ++i) usleep(20'000);
    char byte = 1;
    EXPECT_EQ(write(fds[1], &byte, 1), 1);
  });
  auto results = Run(Def("long", "sleep 300 & echo $! > " + pids + "; wait") + "," +
                         Def("later", "true", ", \"needs\": [\"long\"]"),
                     1, 5, fds[0]);
  interrupter.join();
  close(fds[0]);
  close(fds[1]);
  EXPECT_TRUE(interrupted_);
  EXPECT_EQ(FindLeg(results, "long")->outcome, Outcome::kError);
  EXPECT_EQ(FindLeg(results, "long")->note, "interrupted; process group killed");
  EXPECT_EQ(FindLeg(results, "later")->outcome, Outcome::kSkipped);
  std::vector<pid_t> listed = ReadPids(pids);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_TRUE(testing::DiesWithin(listed[0])) << "pid " << listed[0] << " survived";
}

TEST_F(SchedulerTest, ALegThatCannotStartIsAnErrorNamingTheProgram) {
  auto results = Run("\"x\": {\"run\": [\"pg-no-such-tool\", \"--flag\"]}", 1);
  EXPECT_EQ(FindLeg(results, "x")->outcome, Outcome::kError);
  EXPECT_NE(FindLeg(results, "x")->note.find("cannot start \"pg-no-such-tool\""),
            std::string::npos);
}

TEST_F(SchedulerTest, AMissingCwdIsAnErrorNamingIt) {
  auto results = Run(Def("x", "true", ", \"cwd\": \"nowhere\""), 1);
  EXPECT_EQ(FindLeg(results, "x")->outcome, Outcome::kError);
  EXPECT_EQ(FindLeg(results, "x")->note, "cwd " + dir_.path() + "/nowhere is not a directory");
}

TEST_F(SchedulerTest, CwdEnvExitCodeAndOutputTailAreRecorded) {
  dir_.Write("sub/marker", "");
  auto results = Run(Def("e", "ls; echo value=$PG_VALUE leg=$PROOFGATE_LEG; exit 4",
                         ", \"cwd\": \"sub\", \"env\": {\"PG_VALUE\": \"42\"}"),
                     1);
  const LegResult* leg = FindLeg(results, "e");
  EXPECT_EQ(leg->outcome, Outcome::kFail);
  EXPECT_EQ(leg->exit_code, 4);
  EXPECT_EQ(leg->cwd, dir_.path() + "/sub");
  EXPECT_NE(leg->output_tail.find("marker\nvalue=42 leg=e\n"), std::string::npos)
      << leg->output_tail;
  EXPECT_EQ(leg->log_path, dir_.path() + "/e.log");
}

}  // namespace
}  // namespace pg
