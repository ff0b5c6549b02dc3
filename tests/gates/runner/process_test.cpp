#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "gates/runner/capture.h"
#include "gates/runner/group_guardian.h"
#include "gates/runner/raw_proc.h"
#include "gates/runner/scheduler.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

TEST(Process, AProgramThatDoesNotExistIsAStatusNamingIt) {
  TempDir dir;
  auto child =
      Child::Spawn(SpawnSpec{{"no-such-program-pg"}, dir.path(), {}, dir.path() + "/log", ""});
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.status().message().find("cannot start \"no-such-program-pg\""),
            std::string::npos);
}

TEST(Process, StdoutAndStderrGoToTheLogAndEnvIsSet) {
  TempDir dir;
  auto run = RunCapture({"sh", "-c", "echo out; echo err >&2; echo $PG_X; pwd"}, dir.path(), 30);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->exit.exit_code, 0);
  EXPECT_NE(run->output.find("out\nerr\n"), std::string::npos);
  EXPECT_NE(run->output.find(dir.path()), std::string::npos);
}

TEST(Process, ChildrenRunInTheirOwnProcessGroup) {
  TempDir dir;
  // Field 5 of /proc/PID/stat is the process group ("sh" has no spaces in its name).
  auto run = RunCapture({"sh", "-c", "cut -d' ' -f5 /proc/$$/stat; echo $$"}, dir.path(), 30);
  ASSERT_TRUE(run.ok());
  std::istringstream in(run->output);
  long pgid = 0, pid = 0;
  in >> pgid >> pid;
  EXPECT_EQ(pgid, pid);
}

// A spawn's variables replace inherited ones of the same name (HOME) or join them, and of two
// pairs with one name the later wins (a leg's env, then PROOFGATE_LEG): one entry each, as the
// child's own environment block shows (a shell would hide duplicates).
TEST(Process, ASpawnsVariablesReplaceInheritedOnesAndTheLaterPairWins) {
  TempDir dir;
  auto child = Child::Spawn(
      SpawnSpec{{"cat", "/proc/self/environ"},
                dir.path(),
                {{"HOME", "/elsewhere"}, {"PG_TWICE", "first"}, {"PG_TWICE", "second"}},
                dir.path() + "/log",
                ""});
  ASSERT_TRUE(child.ok()) << child.status().message();
  ExitInfo exit;
  while (!child->TryReap(&exit)) usleep(1000);
  std::vector<std::string> named;  // the entries of HOME, PG_TWICE and PATH
  std::string block = dir.Read("log");
  for (size_t at = 0, end; at < block.size(); at = end + 1) {
    end = block.find('\0', at);
    if (end == std::string::npos) end = block.size();
    std::string entry = block.substr(at, end - at);
    for (const char* name : {"HOME=", "PG_TWICE=", "PATH="}) {
      if (entry.rfind(name, 0) == 0) named.push_back(entry);
    }
  }
  std::sort(named.begin(), named.end());
  EXPECT_EQ(named,
            (std::vector<std::string>{"HOME=/elsewhere", std::string("PATH=") + getenv("PATH"),
                                      "PG_TWICE=second"}));
}

TEST(Process, ExitStatusAndSignalAreReported) {
  TempDir dir;
  auto code = RunCapture({"sh", "-c", "exit 7"}, dir.path(), 30);
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(code->exit.exit_code, 7);
  auto sig = RunCapture({"sh", "-c", "kill -9 $$"}, dir.path(), 30);
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(sig->exit.signal, 9);
}

TEST(Process, ACaptureThatOutlivesItsLimitIsAnErrorNamingTheCommand) {
  TempDir dir;
  auto run = RunCapture({"sleep", "30"}, dir.path(), 0.2);
  EXPECT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("\"sleep\" did not finish within"), std::string::npos)
      << run.status().message();
}

// The pid of the slow runner's test (test_support.h) after a capture of the runner that timed
// out after 1 s.
std::vector<pid_t> TestOfATimedOutRunner(const TempDir& dir, bool kills_its_test) {
  testing::WriteSlowRunner(dir, kills_its_test);
  auto run = RunCapture({"sh", "-c", testing::kSlowRunnerCommand}, dir.path(), 1.0);
  EXPECT_FALSE(run.ok());
  return testing::ReadPids(dir.path() + "/out/test.pid");
}

// The sweep after a capture that timed out waits for a slowly dying runner: its test, in a
// session of its own, is killed and, handed to this process (the subreaper) once the runner is
// gone, reaped, not left a zombie for as long as the run lasts.
TEST(Process, ASlowlyDyingRunnersTestIsKilledAndReapedAfterItsCaptureTimesOut) {
  TempDir dir;
  std::vector<pid_t> test = TestOfATimedOutRunner(dir, /*kills_its_test=*/false);
  ASSERT_EQ(test.size(), 1u);
  errno = 0;
  EXPECT_EQ(kill(test[0], 0), -1) << "the runner's test " << test[0]
                                  << " is still there (alive or a zombie)";
  EXPECT_EQ(errno, ESRCH);
  if (testing::Alive(test[0])) kill(test[0], SIGKILL);
  waitpid(test[0], nullptr, WNOHANG);
}

// What a runner killed itself and never reaped (meson cancelling its tests, then killed) is
// handed to this process as a zombie naming no token: it is reaped as a stray.
TEST(Process, AZombieARunnerLeftIsReapedAsAStray) {
  TempDir dir;
  std::vector<pid_t> test = TestOfATimedOutRunner(dir, /*kills_its_test=*/true);
  ASSERT_EQ(test.size(), 1u);
  errno = 0;
  EXPECT_EQ(kill(test[0], 0), -1) << "the runner's killed test " << test[0]
                                  << " is still there (a zombie)";
  EXPECT_EQ(errno, ESRCH);
  waitpid(test[0], nullptr, WNOHANG);
}

void Reap(Child& child) {
  ExitInfo info;
  while (!child.TryReap(&info)) usleep(1000);
}

// One guardian serves every child of a run (a fork each cost ~0.8 ms a leg); a kept fd
// (mutate's lock) retires it, and a retired guardian ends once its last child has.
TEST(Process, ChildrenShareOneGuardianUntilAKeptFdRetiresIt) {
  TempDir dir;
  SpawnSpec spec{{"true"}, dir.path(), {}, dir.path() + "/log", ""};
  auto first = Child::Spawn(spec);
  auto second = Child::Spawn(spec);
  ASSERT_TRUE(first.ok() && second.ok());
  pid_t shared = first->guardian_pid();
  EXPECT_GT(shared, 0);
  EXPECT_EQ(second->guardian_pid(), shared);
  KeepOpenInGuardians(-1);
  auto third = Child::Spawn(spec);
  ASSERT_TRUE(third.ok());
  EXPECT_GT(third->guardian_pid(), 0);
  EXPECT_NE(third->guardian_pid(), shared);
  EXPECT_EQ(kill(shared, 0), 0) << "retired while its children still run";
  Reap(*first);
  Reap(*second);
  Reap(*third);
  { Child gone = std::move(*first); }
  { Child gone = std::move(*second); }
  EXPECT_EQ(kill(shared, 0), -1) << "the retired guardian " << shared << " outlived its children";
}

// proofgate started with its standard input closed (`<&-`, some CI runners): /proc's
// directory is then opened as descriptor 0, which is as good as any other.
TEST(Process, TheProcWalkWorksWithStandardInputClosed) {
  pid_t group = getpgrp();
  int saved = dup(0);
  if (saved >= 0) close(0);
  bool live = LiveMemberIn(&group, 1);
  if (saved >= 0) dup2(saved, 0), close(saved);
  EXPECT_TRUE(live) << "this test's own process group";
}

// The guardian finds a run's processes by an entry of their environment: the first entry (no
// NUL before it) as well as a later one.
TEST(Process, AnEnvironmentHoldersFirstEntryIsFoundAsALaterOneIs) {
  for (bool first : {true, false}) {
    std::string entry =
        "PG_HOLDER_TEST_" + std::to_string(getpid()) + (first ? "_FIRST=1" : "_LATER=1");
    std::vector<char*> env = {const_cast<char*>("A=1"), const_cast<char*>(entry.c_str())};
    if (first) std::swap(env[0], env[1]);
    env.push_back(nullptr);
    char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("30"), nullptr};
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      execve("/bin/sleep", argv, env.data());
      _exit(127);
    }
    int found = 0;  // until the child has exec'ed, its environment is this test's
    for (int i = 0; i < 500 && found == 0; ++i) {
      found = KillEnvironmentHolders(entry.c_str(), entry.size() + 1);
      if (found == 0) usleep(10000);
    }
    if (found == 0) kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_EQ(found, 1) << (first ? "the first entry" : "the second entry");
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
}

TEST(Process, ReadTailKeepsTheLastLines) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100; ++i) text += "line " + std::to_string(i) + "\n";
  dir.Write("log", text);
  EXPECT_EQ(ReadTail(dir.path() + "/log", 4096, 3), "line 97\nline 98\nline 99\n");
}

}  // namespace
}  // namespace pg
