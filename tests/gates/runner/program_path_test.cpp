#include "gates/runner/program_path.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

// PATH set for one test, the old value put back after it.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() {
    if (old_)
      setenv("PATH", old_->c_str(), 1);
    else
      unsetenv("PATH");
  }

 private:
  std::optional<std::string> old_;
};

std::string Tool(const TempDir& dir, const std::string& rel, const std::string& says,
                 bool executable = true) {
  std::string file = dir.Write(rel, "#!/bin/sh\necho " + says + "\n");
  chmod(file.c_str(), executable ? 0755 : 0644);
  return file;
}

std::string Output(const std::string& program, const std::string& cwd) {
  auto run = RunCapture({program}, cwd, 30);
  return run.ok() ? run->output : run.status().message();
}

// execvp goes on past a file it may not run and a folder of the same name; so does the
// lookup, and the file it finds is the one the child runs.
TEST(ProgramPath, TheFirstExecutableFileOnPathAsExecvpChoosesIt) {
  TempDir dir;
  Tool(dir, "a/pg-tool-first", "a", false);
  std::filesystem::create_directories(dir.path() + "/b/pg-tool-first");
  std::string c = Tool(dir, "c/pg-tool-first", "c");
  ScopedPath path(dir.path() + "/a:" + dir.path() + "/b:" + dir.path() + "/c:/usr/bin:/bin");
  EXPECT_EQ(ResolvedProgram("pg-tool-first"), c);
  EXPECT_EQ(Output("pg-tool-first", dir.path()), "c\n");
  EXPECT_EQ(ResolvedProgram("./pg-tool-first"), "") << "a name with a slash is no search";
}

// An empty or relative PATH entry names a folder of each child's cwd: such a search is the
// child's own, as posix_spawnp did it.
TEST(ProgramPath, ARelativeEntryBeforeTheMatchLeavesTheSearchToTheChild) {
  TempDir dir;
  Tool(dir, "leg/bin/pg-tool-relative", "relative");
  Tool(dir, "abs/pg-tool-relative", "absolute");
  ScopedPath path("bin:" + dir.path() + "/abs:/usr/bin:/bin");
  EXPECT_EQ(ResolvedProgram("pg-tool-relative"), "");
  EXPECT_EQ(Output("pg-tool-relative", dir.path() + "/leg"), "relative\n");
}

// A program found once that no longer starts is looked for again as execvp would, going on
// to the next match on PATH: removed, no longer executable, or a folder now.
TEST(ProgramPath, AFileThatNoLongerStartsIsSearchedForAgain) {
  TempDir dir;
  std::string first = Tool(dir, "one/pg-tool-moved", "one");
  Tool(dir, "two/pg-tool-moved", "two");
  ScopedPath path(dir.path() + "/one:" + dir.path() + "/two:/usr/bin:/bin");
  EXPECT_EQ(Output("pg-tool-moved", dir.path()), "one\n");
  chmod(first.c_str(), 0644);
  EXPECT_EQ(Output("pg-tool-moved", dir.path()), "two\n") << "no longer executable";
  chmod(first.c_str(), 0755);
  EXPECT_EQ(Output("pg-tool-moved", dir.path()), "one\n");
  std::filesystem::remove(first);
  std::filesystem::create_directory(first);
  EXPECT_EQ(Output("pg-tool-moved", dir.path()), "two\n") << "a folder now";
  std::filesystem::remove(first);
  EXPECT_EQ(Output("pg-tool-moved", dir.path()), "two\n") << "gone";
}

}  // namespace
}  // namespace pg
