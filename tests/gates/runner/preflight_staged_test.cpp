// `preflight --staged` on a real repository: the legs see what a commit would hold, and the
// unstaged changes set aside come back byte for byte however the run ends, even killed outright.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "gates/git/git.h"
#include "gates/runner/capture.h"
#include "gates/runner/process.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::Git;
using testing::RunProofgate;
using testing::TempDir;

unsigned ModeOf(const TempDir& dir, const std::string& rel) {
  struct stat st {};
  return stat((dir.path() + "/" + rel).c_str(), &st) == 0 ? st.st_mode & 07777 : 0;
}

// a.sh: committed, a change staged and another on top unstaged; b.txt, d/x.txt: unstaged edits;
// c.txt and gone-link: deleted, unstaged; moved-link: pointed elsewhere; u.txt: untracked. `check`
// passes only on the staged content, and writes what it saw to out/ (ignored).
class PreflightStaged : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeRepo(dir_, R"({"schema_version": 1, "legs": {
      "check": {"run": "cat a.sh b.txt c.txt u.txt > out/seen; grep -qx staged a.sh && grep -qx committed b.txt && test -f c.txt"},
      "red": {"run": "exit 1"},
      "wait": {"run": "touch out/waiting; sleep 60"},
      "fixer": {"run": "echo fixed >> b.txt; rm -r d; rm a.sh; mkdir a.sh"},
      "adder": {"run": "git add u.txt"}},
      "suites": {"default": ["check"], "red": ["check", "red"], "wait": ["wait"], "fixer": ["fixer"], "adder": ["adder"]}})");
    dir_.Write("a.sh", "committed\n");
    dir_.Write("b.txt", "committed\n");
    dir_.Write("c.txt", "committed\n");
    dir_.Write("d/x.txt", "committed\n");
    symlink("b.txt", (dir_.path() + "/gone-link").c_str());
    symlink("b.txt", (dir_.path() + "/moved-link").c_str());
    Git(dir_, {"add", "."});
    Git(dir_, {"commit", "-qm", "three files"});
    dir_.Write("a.sh", "staged\n");
    Git(dir_, {"add", "a.sh"});
    dir_.Write("a.sh", "unstaged\r\nno newline at the end");
    chmod((dir_.path() + "/a.sh").c_str(), 0755);
    dir_.Write("b.txt", "unstaged\n");
    dir_.Write("d/x.txt", "unstaged\n");
    std::filesystem::remove(dir_.path() + "/c.txt");
    std::filesystem::remove(dir_.path() + "/gone-link");
    std::filesystem::remove(dir_.path() + "/moved-link");
    symlink("a.sh", (dir_.path() + "/moved-link").c_str());
    dir_.Write("u.txt", "untracked\n");
  }
  void ExpectWorkingTreeAsTheUserLeftIt() {
    EXPECT_EQ(dir_.Read("a.sh"), "unstaged\r\nno newline at the end");
    EXPECT_EQ(ModeOf(dir_, "a.sh"), 0755u);
    EXPECT_EQ(dir_.Read("b.txt"), "unstaged\n");
    EXPECT_EQ(dir_.Read("d/x.txt"), "unstaged\n") << "in its folder, even one a leg removed";
    EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/c.txt")) << "its deletion is back too";
    EXPECT_FALSE(std::filesystem::is_symlink(dir_.path() + "/gone-link"));
    EXPECT_EQ(std::filesystem::read_symlink(dir_.path() + "/moved-link"), "a.sh")
        << "a link is a link again";
    EXPECT_EQ(dir_.Read("u.txt"), "untracked\n");
    auto staged = RunCapture({"git", "diff", "--cached", "--name-only"}, dir_.path(), 60);
    EXPECT_EQ(staged->output, "a.sh\n") << "the index is as it was";
  }
  // `preflight --staged wait` in the background, once its leg runs (the changes set aside).
  void StartWaitingRun() {
    auto child = Child::Spawn({{PROOFGATE_BIN, "preflight", "--staged", "--no-cache", "wait"},
                               dir_.path(),
                               {},
                               logs_.path() + "/log",
                               ""});
    ASSERT_TRUE(child.ok());
    waiting_.emplace(std::move(*child));
    ASSERT_TRUE(testing::WaitForFile(dir_.path() + "/out/waiting", 20)) << logs_.Read("log");
  }
  TempDir dir_, logs_;
  std::optional<Child> waiting_;
};

TEST_F(PreflightStaged, UnstagedChangesAreSetAsideAndPutBackByteForByteWhateverTheOutcome) {
  auto green = RunProofgate(dir_.path(), "preflight --staged --no-cache");
  EXPECT_EQ(green.exit_code, 0) << green.out << green.err;
  EXPECT_EQ(dir_.Read("out/seen"), "staged\ncommitted\ncommitted\nuntracked\n")
      << "the legs saw the staged tree";
  EXPECT_NE(
      green.err.find("--staged: 6 file(s) with unstaged changes set aside until the run ends"),
      std::string::npos)
      << green.err;
  EXPECT_EQ(green.err.find("a leg changed it"), std::string::npos)
      << "no leg changed anything: " << green.err;
  ExpectWorkingTreeAsTheUserLeftIt();
  auto red = RunProofgate(dir_.path(), "preflight --staged --no-cache red");
  EXPECT_EQ(red.exit_code, 1) << red.out << red.err;
  ExpectWorkingTreeAsTheUserLeftIt();
  auto plain = RunProofgate(dir_.path(), "preflight --no-cache");
  EXPECT_EQ(plain.exit_code, 1) << "without --staged the working tree is what runs";
}

TEST_F(PreflightStaged, WhatAKilledRunSetAsideComesBackOnTheNextRun) {
  ASSERT_NO_FATAL_FAILURE(StartWaitingRun());
  EXPECT_EQ(dir_.Read("a.sh"), "staged\n") << "set aside while the leg runs";
  kill(waiting_->pid(), SIGKILL);
  waitpid(waiting_->pid(), nullptr, 0);
  auto next = RunProofgate(dir_.path(), "preflight --no-cache --leg red");
  EXPECT_NE(next.err.find(
                "a.sh: put back the unstaged change a killed `preflight --staged` had set aside"),
            std::string::npos)
      << next.err;
  ExpectWorkingTreeAsTheUserLeftIt();
}

// An edit made between the kill and the next run is the user's latest work: it stays, and the
// set-aside version is kept beside the journal; the hook's own next run (--staged) says so too.
TEST_F(PreflightStaged, AnEditMadeAfterAKillIsKeptAndTheSetAsideVersionSavedBeside) {
  ASSERT_NO_FATAL_FAILURE(StartWaitingRun());
  kill(waiting_->pid(), SIGKILL);
  waitpid(waiting_->pid(), nullptr, 0);
  dir_.Write("a.sh", "typed after the kill\n");
  auto next = RunProofgate(dir_.path(), "preflight --staged --no-cache --leg red");
  EXPECT_EQ(next.exit_code, 1) << next.err;
  EXPECT_NE(next.err.find("a.sh: edited since a killed `preflight --staged` set its unstaged "
                          "changes aside; your edit "
                          "stays; the set-aside version is at "),
            std::string::npos)
      << next.err;
  EXPECT_NE(next.err.find("b.txt: put back the unstaged change a killed"), std::string::npos)
      << next.err;
  EXPECT_EQ(dir_.Read("a.sh"), "typed after the kill\n");
  EXPECT_EQ(dir_.Read("b.txt"), "unstaged\n");
  size_t at = next.err.find("the set-aside version is at ");
  std::string kept = next.err.substr(at + 28, next.err.find('\n', at) - at - 28);
  std::ifstream in(kept, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}),
            "unstaged\r\nno newline at the end")
      << kept;
}

// A terminal closed under `git commit` sends SIGHUP: the run stops as on Ctrl-C, and puts back.
TEST_F(PreflightStaged, AHangUpPutsBackWhatWasSetAside) {
  ASSERT_NO_FATAL_FAILURE(StartWaitingRun());
  kill(waiting_->pid(), SIGHUP);
  int status = 0;
  waitpid(waiting_->pid(), &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130)
      << "interrupted, not killed by the signal: " << status;
  ExpectWorkingTreeAsTheUserLeftIt();
}

// A submodule's own untracked or edited files are not the superproject's to set aside (git
// commit leaves them): a hook refusing them would block every commit.
TEST_F(PreflightStaged, ASubmodulesOwnChangesAreLeftAlone) {
  TempDir lib;
  lib.Write("lib.txt", "lib\n");
  ASSERT_TRUE(git::Init(lib.path()).ok());
  ASSERT_TRUE(git::CommitAll(lib.path(), "lib").ok());
  Git(dir_, {"-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.path(), "sub"});
  Git(dir_, {"commit", "-qm", "a submodule", "--", ".gitmodules", "sub"});
  dir_.Write("sub/lib.txt", "edited inside the submodule\n");
  dir_.Write("sub/new.txt", "untracked inside the submodule\n");
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("--staged: 6 file(s) with"), std::string::npos) << run.err;
  EXPECT_EQ(dir_.Read("sub/lib.txt"), "edited inside the submodule\n");
  EXPECT_EQ(dir_.Read("sub/new.txt"), "untracked inside the submodule\n");
  ExpectWorkingTreeAsTheUserLeftIt();
}

// A link turned into a file and a file turned into a link (to a file outside the tree): the
// index's versions are written in place of each, never through the link, and both come back.
TEST_F(PreflightStaged, ALinkAndAFileThatChangedTypeComeBackAndNothingIsWrittenThroughALink) {
  TempDir outside;
  outside.Write("precious.txt", "precious\n");
  dir_.Write("reg", "regular\n");
  symlink("b.txt", (dir_.path() + "/lnk").c_str());
  Git(dir_, {"add", "reg", "lnk"});
  Git(dir_, {"commit", "-qm", "a file and a link", "--", "reg", "lnk"});
  std::filesystem::remove(dir_.path() + "/lnk");
  dir_.Write("lnk", "a file now\n");
  std::filesystem::remove(dir_.path() + "/reg");
  symlink((outside.path() + "/precious.txt").c_str(), (dir_.path() + "/reg").c_str());
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("--staged: 8 file(s) with"), std::string::npos)
      << "one entry a path: " << run.err;
  EXPECT_EQ(outside.Read("precious.txt"), "precious\n")
      << "the index's reg was written through the link";
  EXPECT_FALSE(std::filesystem::is_symlink(dir_.path() + "/lnk"));
  EXPECT_EQ(dir_.Read("lnk"), "a file now\n");
  EXPECT_EQ(std::filesystem::read_symlink(dir_.path() + "/reg"), outside.path() + "/precious.txt");
  ExpectWorkingTreeAsTheUserLeftIt();
}

// The journal's entries are lines: a name holding a newline is refused before anything is set
// aside, and the next run is not wedged.
TEST_F(PreflightStaged, ANameWithANewlineIsRefusedBeforeAnythingIsSetAside) {
  dir_.Write("two\nlines", "committed\n");
  Git(dir_, {"add", "two\nlines"});
  Git(dir_, {"commit", "-qm", "a newline in a name", "--", "two\nlines"});
  dir_.Write("two\nlines", "unstaged\n");
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("whose name holds a newline; stage or undo its change"), std::string::npos)
      << run.err;
  EXPECT_EQ(dir_.Read("two\nlines"), "unstaged\n");
  ExpectWorkingTreeAsTheUserLeftIt();
  EXPECT_EQ(RunProofgate(dir_.path(), "preflight --no-cache --leg red").exit_code, 1)
      << "the next run runs";
}

TEST_F(PreflightStaged, ALegsChangeToAFileWithUnstagedChangesIsDroppedAndNamed) {
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache fixer");
  EXPECT_EQ(run.exit_code, 5) << "the leg changed the tree: stale\n" << run.out << run.err;
  EXPECT_NE(
      run.err.find(
          "b.txt: a leg changed it; its unstaged changes are back and the leg's change is dropped"),
      std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("a.sh: a folder in its way was moved to "), std::string::npos) << run.err;
  ExpectWorkingTreeAsTheUserLeftIt();
}

// A `git add` in a leg changes what the commit holds, not the working tree: the run is stale.
TEST_F(PreflightStaged, ALegThatChangesTheIndexMakesTheRunStale) {
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache --json adder");
  EXPECT_EQ(run.exit_code, 5) << run.out << run.err;
  EXPECT_NE(run.out.find("\"index_changed\": true"), std::string::npos) << run.out;
  auto table = RunProofgate(dir_.path(), "preflight --staged --no-cache default");
  EXPECT_EQ(table.exit_code, 0) << "an index that holds still is no news\n"
                                << table.out << table.err;
  EXPECT_EQ(table.out.find("the index changed"), std::string::npos) << table.out;
}

// A sparse checkout leaves files out of the working tree on purpose: no unstaged deletion to
// set aside, and their skip-worktree bits stay (an outside tester's find).
TEST(PreflightSparse, ASparseCheckoutsSkippedFilesAreLeftAlone) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {"check": {"run": "test -f d1/a.txt"}},
    "suites": {"default": ["check"]}})");
  dir.Write("d1/a.txt", "a\n");
  dir.Write("d2/b.txt", "b\n");
  Git(dir, {"add", "."});
  Git(dir, {"commit", "-qm", "two folders"});
  Git(dir, {"sparse-checkout", "set", "--no-cone", "/*", "!/d2/"});
  ASSERT_FALSE(std::filesystem::exists(dir.path() + "/d2/b.txt"));
  dir.Write("d1/a.txt", "a, staged\n");
  Git(dir, {"add", "d1/a.txt"});
  auto run = RunProofgate(dir.path(), "preflight --staged --no-cache");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.err.find("set aside"), std::string::npos) << run.err;
  auto listed = RunCapture({"git", "ls-files", "-t", "d2/b.txt"}, dir.path(), 60);
  EXPECT_EQ(listed->output, "S d2/b.txt\n") << "still skipped";
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/d2/b.txt"));
}

TEST_F(PreflightStaged, AnotherStagedRunInTheSameRepositoryIsRefused) {
  ASSERT_NO_FATAL_FAILURE(StartWaitingRun());
  auto second = RunProofgate(dir_.path(), "preflight --staged --no-cache");
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("another `proofgate preflight --staged` is running here"),
            std::string::npos)
      << second.err;
  kill(waiting_->pid(), SIGINT);
  waitpid(waiting_->pid(), nullptr, 0);
  ExpectWorkingTreeAsTheUserLeftIt();
}

}  // namespace
}  // namespace pg
