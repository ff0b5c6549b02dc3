// A run stopped from outside: Ctrl-C during the baseline build, a killed run whose builds
// must not write later (LESSONS.md #17), and the scratch build restored after each mutant.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <thread>
#include <vector>

#include "gates/config/json_source.h"
#include "gates/core/file_io.h"
#include "gates/core/journal.h"
#include "gates/git/git.h"
#include "gates/runner/process.h"
#include "tests/gates/support/mutate_fixture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;
using Clock = std::chrono::steady_clock;

// Ctrl-C while the unmutated tree builds says nothing about the tree: "interrupted", 130.
TEST(MutateInterrupted, CtrlCDuringTheBaselineBuildIsInterruptedNotABrokenTree) {
  TempDir dir, logs;
  testing::MakeSlowBuildProject(dir);
  dir.Write("build.sh", "#!/bin/bash\ntouch \"$1/../build-started\"; sleep 30\n");
  auto child = Child::Spawn(
      {{PROOFGATE_BIN, "mutate", "--no-spec-update"}, dir.path(), {}, logs.path() + "/log", ""});
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(testing::WaitForFile(dir.path() + "/.git/proofgate/mutate/w0/build-started", 30))
      << logs.Read("log");
  kill(child->pid(), SIGINT);
  int status = 0;
  waitpid(child->pid(), &status, 0);
  std::string out = logs.Read("log");
  EXPECT_EQ(WEXITSTATUS(status), 130) << out;
  EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
  EXPECT_EQ(out.find("does not build"), std::string::npos) << out;
}

// Each mutant's build time is its own: the restored files are rebuilt right after the restore,
// so between mutants the scratch build holds the unmutated tree's objects, not the mutant's.
TEST(MutateRestoreBuild, AfterAMutantTheScratchBuildIsTheUnmutatedTreesAgain) {
  TempDir dir;
  testing::MakeSlowBuildProject(dir);
  auto run = testing::RunProofgate(dir.path(), "mutate --json --no-spec-update --id S1");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  Json doc = Json::parse(run.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << run.out;
  EXPECT_GT(doc["results"][0]["restore_build_s"].get<double>(), 0.2)
      << run.out;  // build.sh sleeps 0.3 s
  std::string object;
  for (const auto& e :
       std::filesystem::directory_iterator(dir.path() + "/.git/proofgate/mutate/w0")) {
    if (e.path().filename().string().rfind("build-", 0) == 0)
      object = e.path().string() + "/calc.txt";
  }
  ASSERT_FALSE(object.empty());
  EXPECT_EQ(ReadFile(object).value(), dir.Read("calc.txt"));
}

// "S1  red-as-claimed" rows of a mutate table, in order.
std::vector<std::string> OutcomeRows(const std::string& table) {
  std::vector<std::string> rows;
  std::regex row(R"((S\d+) +([a-z-]+))");
  for (std::sregex_iterator it(table.begin(), table.end(), row), end; it != end; ++it) {
    rows.push_back((*it)[1].str() + " " + (*it)[2].str());
  }
  return rows;
}

// Lines in `path` (0 when it does not exist yet).
size_t LineCount(const std::string& path) {
  auto text = ReadFile(path);
  return text.ok() ? static_cast<size_t>(std::count(text->begin(), text->end(), '\n')) : 0;
}

// Waits until `path` has at least `lines` lines; false after `seconds`.
bool WaitForLines(const std::string& path, size_t lines, int seconds) {
  auto deadline = Clock::now() + std::chrono::seconds(seconds);
  while (LineCount(path) < lines) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// LESSONS.md #17: a killed run's build went on as an orphan and wrote an object made from the
// mutant after the next run had restored the source; the make-like build then trusted it and
// every later baseline was red. Whatever a killed run started dies with it, and the next run
// waits for that before it restores anything. Each kill lands inside the nth real build of a
// run on one worker (build.sh logs its start, then sleeps before writing): the odd ones build a
// mutant, the even ones the restored tree. Kill points taken from a timed clean run drifted off
// the builds when the machine's load changed between runs.
TEST(MutateKilledBuild, NothingAKilledRunStartedWritesLaterAndOutcomesEqualACleanRun) {
  TempDir dir, logs;
  testing::MakeSlowBuildProject(dir);
  const std::string started = logs.path() + "/builds";
  std::string build = dir.Read("build.sh");
  build.replace(build.find("src=$(cat"), 0, "echo \"$1\" >> " + started + "; ");
  dir.Write("build.sh", build);
  auto clean = testing::RunProofgate(dir.path(), "mutate --no-spec-update");
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  ASSERT_EQ(OutcomeRows(clean.out).size(), 4u) << clean.out;
  for (size_t n = 1; n <= 4; ++n) {  // two of each kind: 29 s of the test run with six
    size_t before = LineCount(started);
    auto child = Child::Spawn({{PROOFGATE_BIN, "mutate", "-q", "-j", "1", "--no-spec-update"},
                               dir.path(),
                               {},
                               logs.path() + "/log",
                               ""});
    ASSERT_TRUE(child.ok());
    ASSERT_TRUE(WaitForLines(started, before + n, 120))
        << "build " << n << ": " << logs.Read("log");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // inside build.sh's 0.3 s
    kill(child->pid(), SIGKILL);
    waitpid(child->pid(), nullptr, 0);
    auto recover = testing::RunProofgate(dir.path(), "mutate --recover");
    ASSERT_EQ(recover.exit_code, 0) << "build " << n << ": " << recover.err;
    // A kill inside a mutant's build is the one that could poison the next run's build.
    EXPECT_EQ(recover.out.find("restored ") != std::string::npos, n % 2 == 1)
        << "build " << n << ": " << recover.out;
    // Longer than a build: an orphan of the killed run would have written its object by now.
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    auto again = testing::RunProofgate(dir.path(), "mutate --no-spec-update");
    ASSERT_EQ(again.exit_code, 0) << "build " << n << ": " << again.out << again.err;
    EXPECT_EQ(OutcomeRows(again.out), OutcomeRows(clean.out)) << "build " << n;
  }
}

}  // namespace
}  // namespace pg
