#include <gtest/gtest.h>

#include "runner/capture.h"
#include "runner/scheduler.h"
#include "test_support.h"

namespace pg {
namespace {

using testing::TempDir;

TEST(Process, AProgramThatDoesNotExistIsAStatusNamingIt) {
  TempDir dir;
  auto child = Child::Spawn(SpawnSpec{{"no-such-program-pg"}, dir.path(), {}, dir.path() + "/log"});
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.status().message().find("cannot start \"no-such-program-pg\""), std::string::npos);
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

TEST(Process, ReadTailKeepsTheLastLines) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100; ++i) text += "line " + std::to_string(i) + "\n";
  dir.Write("log", text);
  EXPECT_EQ(ReadTail(dir.path() + "/log", 4096, 3), "line 97\nline 98\nline 99\n");
}

}  // namespace
}  // namespace pg
