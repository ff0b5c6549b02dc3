#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "config/json_source.h"
#include "config/suite_config.h"
#include "runner/scheduler.h"
#include "test_support.h"

namespace pg {
namespace {

using testing::AnyOverlap;
using testing::Alive;
using testing::FindLeg;
using testing::ReadIntervals;
using testing::ReadPids;
using testing::Stamped;
using testing::TempDir;

class SchedulerTest : public ::testing::Test {
 protected:
  // `legs` is the body of suites.json's "legs"; every leg is in suite "all".
  std::vector<LegResult> Run(const std::string& legs, int jobs, double grace = 5, int cancel_fd = -1) {
    auto config = ParseSuiteConfig("suites.json", "{\"schema_version\": 1, \"kill_grace_s\": " +
                                                      std::to_string(grace) + ", \"legs\": {" + legs +
                                                      "}, \"suites\": {}}");
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
    Scheduler scheduler(options, selected, {});
    auto results = scheduler.Run();
    interrupted_ = scheduler.interrupted();
    return results;
  }
  std::string Def(const std::string& name, const std::string& body, const std::string& extra = "") {
    return "\"" + name + "\": {\"run\": " + Json(body).dump() + extra + "}";
  }
  std::string Stamp(const std::string& name, const std::string& body = "sleep 0.2") {
    return Stamped(name, dir_.path() + "/stamps", body);
  }

  TempDir dir_;
  SuiteConfig config_;
  bool interrupted_ = false;
};

// Each leg waits for the other to have started: they pass only if they truly run together.
TEST_F(SchedulerTest, RunsLegsInParallelUpToJobs) {
  std::string d = dir_.path();
  auto results = Run(Def("a", "touch " + d + "/a; for i in $(seq 200); do [ -f " + d + "/b ] && exit 0; sleep 0.05; done; exit 1") + "," +
                     Def("b", "touch " + d + "/b; for i in $(seq 200); do [ -f " + d + "/a ] && exit 0; sleep 0.05; done; exit 1"),
                     2);
  EXPECT_EQ(FindLeg(results, "a")->outcome, Outcome::kPass);
  EXPECT_EQ(FindLeg(results, "b")->outcome, Outcome::kPass);
}

TEST_F(SchedulerTest, OneJobNeverOverlapsLegs) {
  Run(Def("a", Stamp("a")) + "," + Def("b", Stamp("b")) + "," + Def("c", Stamp("c")), 1);
  auto intervals = ReadIntervals(dir_.path() + "/stamps");
  ASSERT_EQ(intervals.size(), 3u);
  EXPECT_FALSE(AnyOverlap(intervals));
}

TEST_F(SchedulerTest, LegsSharingALockNeverOverlap) {
  std::string lock = ", \"locks\": [\"cpu\"]";
  Run(Def("a", Stamp("a"), lock) + "," + Def("b", Stamp("b"), lock) + "," + Def("c", Stamp("c"), lock), 3);
  auto intervals = ReadIntervals(dir_.path() + "/stamps");
  ASSERT_EQ(intervals.size(), 3u);
  EXPECT_FALSE(AnyOverlap(intervals));
}

TEST_F(SchedulerTest, AnExclusiveLegRunsAlone) {
  Run(Def("a", Stamp("a")) + "," + Def("x", Stamp("x"), ", \"exclusive\": true") + "," + Def("b", Stamp("b")) +
          "," + Def("c", Stamp("c")),
      4);
  auto intervals = ReadIntervals(dir_.path() + "/stamps");
  ASSERT_EQ(intervals.size(), 4u);
  for (const auto& other : intervals) {
    if (other.leg == "x") continue;
    const auto& x = *std::find_if(intervals.begin(), intervals.end(), [](auto& i) { return i.leg == "x"; });
    EXPECT_FALSE(AnyOverlap({x, other})) << "x overlapped " << other.leg;
  }
}

TEST_F(SchedulerTest, NeedsFinishBeforeTheirDependentsStart) {
  Run(Def("build", Stamp("build")) + "," + Def("unit", Stamp("unit"), ", \"needs\": [\"build\"]"), 4);
  auto intervals = ReadIntervals(dir_.path() + "/stamps");
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_EQ(intervals[0].leg, "build");
  EXPECT_LE(intervals[0].end, intervals[1].start);
}

TEST_F(SchedulerTest, AFailedNeedSkipsItsDependentsTransitively) {
  auto results = Run(Def("build", "exit 3") + "," + Def("unit", "true", ", \"needs\": [\"build\"]") + "," +
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
  auto results = Run(Def("slow", "sleep 300 & echo $! >> " + pids + "; (sleep 300 & echo $! >> " + pids +
                                     "; wait) & wait", ", \"timeout_s\": 0.5"),
                     1);
  const LegResult* slow = FindLeg(results, "slow");
  EXPECT_EQ(slow->outcome, Outcome::kTimeout);
  EXPECT_EQ(slow->note, "timed out after 0.5 s; process group killed");
  auto listed = ReadPids(pids);
  ASSERT_EQ(listed.size(), 2u);
  usleep(100'000);
  for (pid_t pid : listed) EXPECT_FALSE(Alive(pid)) << "pid " << pid << " survived";
}

// `env -i` drops PROOFGATE_LEG_TOKEN, so the adoption sweep cannot tell these sleeps are the
// leg's: only the kill of the leg's process group reaches them (mutant R4).
TEST_F(SchedulerTest, TimeoutKillsTheGroupEvenWhatTheSweepCannotName) {
  std::string pids = dir_.path() + "/pids";
  auto results = Run(Def("slow", "env -i sleep 300 & echo $! >> " + pids + "; (env -i sleep 300 & echo $! >> " + pids +
                                     "; wait) & wait", ", \"timeout_s\": 0.5"),
                     1);
  EXPECT_EQ(FindLeg(results, "slow")->outcome, Outcome::kTimeout);
  auto listed = ReadPids(pids);
  ASSERT_EQ(listed.size(), 2u);
  usleep(100'000);
  for (pid_t pid : listed) EXPECT_FALSE(Alive(pid)) << "pid " << pid << " survived";
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
  usleep(100'000);
  EXPECT_FALSE(Alive(listed[0]));
}

TEST_F(SchedulerTest, CancelStopsRunningLegsAndSkipsPendingOnes) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string pids = dir_.path() + "/pids";
  std::thread interrupter([&] {
    testing::WaitForFile(pids, 30);
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
  usleep(100'000);
  EXPECT_FALSE(Alive(ReadPids(pids).at(0)));
}

TEST_F(SchedulerTest, ALegThatCannotStartIsAnErrorNamingTheProgram) {
  auto results = Run("\"x\": {\"run\": [\"pg-no-such-tool\", \"--flag\"]}", 1);
  EXPECT_EQ(FindLeg(results, "x")->outcome, Outcome::kError);
  EXPECT_NE(FindLeg(results, "x")->note.find("cannot start \"pg-no-such-tool\""), std::string::npos);
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
  EXPECT_NE(leg->output_tail.find("marker\nvalue=42 leg=e\n"), std::string::npos) << leg->output_tail;
  EXPECT_EQ(leg->log_path, dir_.path() + "/e.log");
}

}  // namespace
}  // namespace pg
