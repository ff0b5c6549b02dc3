// `proofgate install` / `uninstall` on a real repository, with real `git commit` runs: the hook
// runs the suite, a red suite stops the commit, and only proofgate's own hook is ever removed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "gates/git/git.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

// The `check` leg is red while src/code.txt says "bad".
const char kSuites[] = R"({"schema_version": 1,
  "legs": {"check": {"run": "! grep -q bad src/code.txt"}},
  "suites": {"default": ["check"]}})";

// `git commit -qam MESSAGE` in `dir`: its exit code.
int GitCommit(const TempDir& dir, const std::string& message) {
  auto run = RunCapture(
      {"git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", message},
      dir.path(), 120);
  return run.ok() ? run->exit.exit_code : -1;
}

std::string Head(const TempDir& dir) { return git::ResolveCommit(dir.path(), "HEAD").value(); }

TEST(GitHook, TheSuiteRunsBeforeEachCommitAndARedOneStopsIt) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  auto install = RunProofgate(dir.path(), "install");
  ASSERT_EQ(install.exit_code, 0) << install.err;
  std::string hook = dir.path() + "/.git/hooks/pre-commit";
  EXPECT_NE(install.out.find(hook + ": installed"), std::string::npos) << install.out;
  struct stat st {};
  ASSERT_EQ(stat(hook.c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR) << "git runs only an executable hook";
  std::string before = Head(dir);
  dir.Write("src/code.txt", "bad\n");
  EXPECT_NE(GitCommit(dir, "red"), 0) << "the check leg fails: no commit";
  EXPECT_EQ(Head(dir), before);
  dir.Write("src/code.txt", "good\n");
  EXPECT_EQ(GitCommit(dir, "green"), 0);
  EXPECT_NE(Head(dir), before);
  auto again = RunProofgate(dir.path(), "install");
  EXPECT_NE(again.out.find(hook + ": updated"), std::string::npos)
      << "its own hook is rewritten: " << again.out;
  auto uninstall = RunProofgate(dir.path(), "uninstall");
  EXPECT_EQ(uninstall.exit_code, 0) << uninstall.err;
  EXPECT_FALSE(std::filesystem::exists(hook));
  dir.Write("src/code.txt", "bad again\n");
  EXPECT_EQ(GitCommit(dir, "no hook"), 0) << "uninstalled: nothing stops the commit";
}

// `git commit` (no -a) commits the index: a bad file staged and fixed only in the working tree
// is refused, a good one staged with a bad edit unstaged commits, and both edits stay.
TEST(GitHook, TheHookGatesWhatIsStagedNotTheWorkingTree) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  ASSERT_EQ(RunProofgate(dir.path(), "install").exit_code, 0);
  auto commit = [&](const std::string& message) {
    auto run = RunCapture(
        {"git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", message},
        dir.path(), 120);
    return run.ok() ? run->exit.exit_code : -1;
  };
  std::string before = Head(dir);
  dir.Write("src/code.txt", "bad\n");
  ASSERT_EQ(RunCapture({"git", "add", "src/code.txt"}, dir.path(), 60)->exit.exit_code, 0);
  dir.Write("src/code.txt", "good, unstaged\n");
  EXPECT_NE(commit("staged bad"), 0) << "what would be committed is bad";
  EXPECT_EQ(Head(dir), before);
  EXPECT_EQ(dir.Read("src/code.txt"), "good, unstaged\n") << "the unstaged edit is back";
  ASSERT_EQ(RunCapture({"git", "add", "src/code.txt"}, dir.path(), 60)->exit.exit_code, 0);
  dir.Write("src/code.txt", "bad, unstaged\n");
  EXPECT_EQ(commit("staged good"), 0);
  EXPECT_NE(Head(dir), before);
  EXPECT_EQ(dir.Read("src/code.txt"), "bad, unstaged\n");
}

// A fixer's change is in the commit, as lefthook's stage_fixed puts it there: from `git commit`
// (the repository's index) and `git commit -a` (the index git names in GIT_INDEX_FILE).
TEST(GitHook, AFixersChangeIsCommitted) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {
      "fmt": {"run": "sed -i s/bad/good/ {files}", "files": ["*.txt"], "stage_fixed": true},
      "check": {"run": "! grep -q bad src/code.txt"}},
    "suites": {"default": ["fmt", "check"]}})");
  ASSERT_EQ(RunProofgate(dir.path(), "install").exit_code, 0);
  auto committed = [&](const std::string& path) {
    auto show = RunCapture({"git", "show", "HEAD:" + path}, dir.path(), 60);
    return show.ok() ? show->output : "";
  };
  dir.Write("src/code.txt", "bad\n");
  ASSERT_EQ(RunCapture({"git", "add", "src/code.txt"}, dir.path(), 60)->exit.exit_code, 0);
  auto commit = RunCapture(
      {"git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "fixed"},
      dir.path(), 120);
  ASSERT_TRUE(commit.ok());
  EXPECT_EQ(commit->exit.exit_code, 0) << commit->output;
  EXPECT_EQ(committed("src/code.txt"), "good\n");
  dir.Write("src/code.txt", "bad again\n");
  EXPECT_EQ(GitCommit(dir, "fixed with -a"), 0);
  EXPECT_EQ(committed("src/code.txt"), "good again\n");
  auto status = RunCapture({"git", "status", "--porcelain"}, dir.path(), 60);
  EXPECT_EQ(status->output, "") << "the index and the working tree agree with the commit";
  // `git commit PATH` commits a temporary index; the repository's own gets the fix too.
  dir.Write("src/code.txt", "bad third\n");
  auto only = RunCapture({"git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit",
                          "-qm", "fixed by path", "src/code.txt"},
                         dir.path(), 120);
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->exit.exit_code, 0) << only->output;
  EXPECT_EQ(committed("src/code.txt"), "good third\n");
  status = RunCapture({"git", "status", "--porcelain"}, dir.path(), 60);
  EXPECT_EQ(status->output, "") << "the index does not stage the undoing of the fix";
}

// suites.json below the top: the hook runs the suite there (git runs hooks at the top).
TEST(GitHook, AHookForASuiteBelowTheTopRunsItThere) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {}, "suites": {"default": []}})");
  dir.Write("app/preflight/suites.json", kSuites);
  dir.Write("app/src/code.txt", "good\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "app").ok());
  auto install = RunProofgate(dir.path() + "/app", "install");
  ASSERT_EQ(install.exit_code, 0) << install.err;
  std::string before = Head(dir);
  dir.Write("app/src/code.txt", "bad\n");
  EXPECT_NE(GitCommit(dir, "red"), 0) << "app's check leg fails: no commit";
  EXPECT_EQ(Head(dir), before);
}

TEST(GitHook, AHookProofgateDidNotWriteIsKeptUnlessForcedAndComesBackOnUninstall) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  const std::string theirs = "#!/bin/sh\necho theirs\n";
  std::string hook = dir.Write(".git/hooks/pre-commit", theirs);
  auto refused = RunProofgate(dir.path(), "install");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(
                "a hook proofgate did not write is there; left as it is (--force moves it to "
                "pre-commit.old"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(dir.Read(".git/hooks/pre-commit"), theirs);
  ASSERT_EQ(RunProofgate(dir.path(), "install --force").exit_code, 0);
  EXPECT_EQ(dir.Read(".git/hooks/pre-commit.old"), theirs);
  EXPECT_NE(dir.Read(".git/hooks/pre-commit").find("proofgate-hook"), std::string::npos);
  ASSERT_EQ(RunProofgate(dir.path(), "uninstall").exit_code, 0);
  EXPECT_EQ(dir.Read(".git/hooks/pre-commit"), theirs) << "the hook it replaced is back";
  EXPECT_FALSE(std::filesystem::exists(hook + ".old"));
  auto foreign = RunProofgate(dir.path(), "uninstall");
  EXPECT_EQ(foreign.exit_code, 2);
  EXPECT_NE(
      foreign.err.find("not proofgate's hook (or edited since it was written); left as it is"),
      std::string::npos)
      << foreign.err;
  EXPECT_EQ(dir.Read(".git/hooks/pre-commit"), theirs);
}

// proofgate's hook with a line the user added is theirs now; a pre-commit.old the user made
// (not one install moved aside) is never put in the hook's place.
TEST(GitHook, AnEditedHookAndAnOldFileProofgateDidNotMoveAreTheUsers) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  ASSERT_EQ(RunProofgate(dir.path(), "install").exit_code, 0);
  std::string edited = dir.Read(".git/hooks/pre-commit") + "echo mine\n";
  dir.Write(".git/hooks/pre-commit", edited);
  EXPECT_EQ(RunProofgate(dir.path(), "install").exit_code, 2)
      << "install would drop the user's line";
  EXPECT_EQ(RunProofgate(dir.path(), "uninstall").exit_code, 2) << "uninstall would delete it";
  EXPECT_EQ(dir.Read(".git/hooks/pre-commit"), edited);
  std::filesystem::remove(dir.path() + "/.git/hooks/pre-commit");
  ASSERT_EQ(RunProofgate(dir.path(), "install").exit_code, 0);
  dir.Write(".git/hooks/pre-commit.old", "#!/bin/sh\necho a backup of mine\n");
  auto uninstall = RunProofgate(dir.path(), "uninstall");
  EXPECT_EQ(uninstall.exit_code, 0) << uninstall.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/.git/hooks/pre-commit"))
      << "no hook comes back that install did not move";
  EXPECT_EQ(dir.Read(".git/hooks/pre-commit.old"), "#!/bin/sh\necho a backup of mine\n");
}

// core.hooksPath (husky's and lefthook's setting) is where git looks, so that is where it goes;
// a suite suites.json lacks would fail every push, so it is refused.
TEST(GitHook, APrePushHookGoesWhereCoreHooksPathSaysAndNamesAKnownSuite) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  ASSERT_EQ(
      RunCapture({"git", "config", "core.hooksPath", ".githooks"}, dir.path(), 30)->exit.exit_code,
      0);
  auto typo = RunProofgate(dir.path(), "install --hook pre-push --suite defualt");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("--suite defualt: "), std::string::npos) << typo.err;
  auto install = RunProofgate(dir.path(), "install --hook pre-push");
  ASSERT_EQ(install.exit_code, 0) << install.err;
  std::string script = dir.Read(".githooks/pre-push");
  EXPECT_NE(script.find("preflight \"$@\" -- 'default'"), std::string::npos) << script;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/.git/hooks/pre-push"));
  EXPECT_EQ(RunProofgate(dir.path(), "install --hook post-merge").exit_code, 2);
  // `~/...` is the home directory's, as git reads it (the hook went to ./~/ and never ran).
  TempDir home;
  ASSERT_EQ(
      RunCapture({"git", "config", "core.hooksPath", "~/hooks"}, dir.path(), 30)->exit.exit_code,
      0);
  auto tilde = RunCapture({"sh", "-c", "HOME=" + home.path() + " " + PROOFGATE_BIN + " install"},
                          dir.path(), 60);
  ASSERT_TRUE(tilde.ok());
  EXPECT_EQ(tilde->exit.exit_code, 0) << tilde->output;
  EXPECT_TRUE(std::filesystem::exists(home.path() + "/hooks/pre-commit")) << tilde->output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/~"));
  ASSERT_EQ(
      RunCapture({"git", "config", "core.hooksPath", ".githooks"}, dir.path(), 30)->exit.exit_code,
      0);
  auto none = RunProofgate(dir.path(), "uninstall");
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_NE(none.out.find("no pre-commit hook: nothing to remove"), std::string::npos) << none.out;
}

// lefthook's {push_files}: the pre-push hook gates what the push changes. `py` fails whenever
// a .py file is in its set: a push of a .txt change passes, one of a .py change is stopped, and
// a push that only deletes a branch runs nothing.
TEST(GitHook, APrePushHookGatesWhatThePushChanges) {
  TempDir dir, remote;
  testing::MakeRepo(dir,
                    R"({"schema_version": 1, "legs": {"py": {"run": "exit 1", "files": ["*.py"]}},
    "suites": {"default": ["py"]}})");
  auto git = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-c", "user.name=t", "-c", "user.email=t@example.com"});
    auto run = RunCapture(args, dir.path(), 120);
    return run.ok() ? run->exit.exit_code : -1;
  };
  ASSERT_EQ(
      RunCapture({"git", "init", "-q", "--bare", remote.path()}, dir.path(), 60)->exit.exit_code,
      0);
  ASSERT_EQ(git({"remote", "add", "origin", remote.path()}), 0);
  dir.Write("old.py", "x = 1\n");
  ASSERT_EQ(git({"add", "old.py"}), 0);
  ASSERT_EQ(git({"commit", "-qm", "a python file"}), 0);
  ASSERT_EQ(git({"push", "-q", "origin", "HEAD:main", "HEAD:scratch"}), 0);
  ASSERT_EQ(RunProofgate(dir.path(), "install --hook pre-push").exit_code, 0);
  dir.Write("notes.txt", "notes\n");
  ASSERT_EQ(git({"add", "notes.txt"}), 0);
  ASSERT_EQ(git({"commit", "-qm", "notes"}), 0);
  EXPECT_EQ(git({"push", "-q", "origin", "HEAD:main"}), 0)
      << "no .py file changed since origin's main";
  dir.Write("old.py", "x = 2\n");
  ASSERT_EQ(git({"commit", "-qam", "python"}), 0);
  EXPECT_NE(git({"push", "-q", "origin", "HEAD:main"}), 0) << "old.py changed: py runs, and fails";
  EXPECT_EQ(git({"push", "-q", "origin", ":scratch"}), 0) << "a deletion pushes no code";
}

// A pre-push hook written before the hook read the pushed refs is still proofgate's own.
TEST(GitHook, AnOlderProofgatesPrePushHookIsStillItsOwn) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  const std::string older =
      "#!/bin/sh\n# proofgate-hook: written by `proofgate install`; `proofgate uninstall --hook "
      "pre-push` "
      "removes it.\n# Runs the suite 'default' before each push (git push --no-verify skips it "
      "once).\n"
      "pg='/usr/local/bin/proofgate'\n[ -x \"$pg\" ] || pg=proofgate\n"
      "exec \"$pg\" preflight -- 'default' </dev/null\n";
  dir.Write(".git/hooks/pre-push", older);
  auto uninstall = RunProofgate(dir.path(), "uninstall --hook pre-push");
  EXPECT_EQ(uninstall.exit_code, 0) << uninstall.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/.git/hooks/pre-push"));
}

}  // namespace
}  // namespace pg
