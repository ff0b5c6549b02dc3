#include <gtest/gtest.h>

#include <filesystem>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "gates/range/range_gates.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

TEST(Range, CommitStyleNamesEachProblem) {
  EXPECT_TRUE(CommitStyleProblems("Add the scheduler\n\nWhy it exists.\n", 72, 72).empty());
  std::string long_subject(80, 'x');
  EXPECT_EQ(CommitStyleProblems(long_subject + "\n", 72, 72),
            std::vector<std::string>{"subject is 80 characters (max 72)"});
  EXPECT_EQ(
      CommitStyleProblems("Fix it.\nbody\n", 72, 72),
      (std::vector<std::string>{"subject ends with a period", "no blank line after the subject"}));
  EXPECT_EQ(CommitStyleProblems("Fix\n\n" + std::string(73, 'y') + "\n", 72, 72),
            std::vector<std::string>{"body line 3 is 73 characters (max 72)"});
  EXPECT_TRUE(CommitStyleProblems(
                  "Fix\n\nsee https://example.invalid/" + std::string(80, 'z') + "\n", 72, 72)
                  .empty());
  EXPECT_TRUE(CommitStyleProblems("Vérifier → ça\n", 13, 72).empty());  // characters, not bytes
}

TEST(Range, ScopePathsAreTheLeadingPathOfEachScopeLine) {
  EXPECT_EQ(
      ScopePaths(
          "# S\n## Scope\n- gates/core/ — status\n- `engine/src/cpu/` kernels\n- tests/x_test.cpp\n"
          "- words only\n## Gates\n- not/scope/\n"),
      (std::vector<std::string>{"gates/core/", "engine/src/cpu/", "tests/x_test.cpp"}));
}

class RangeRepo : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeRepo(
        dir_, R"({"schema_version": 1, "legs": {}, "suites": {}, "range": {"subject_max": 20}})");
    base_ = Head();
  }
  std::string Commit(const std::string& message) {
    return git::CommitAll(dir_.path(), message).value();
  }
  std::string Head() { return git::WalkRange(dir_.path(), "HEAD").value().back().id; }
  std::vector<GateFinding> Gates(const std::string& gates, RangeOptions o = {}) {
    o.gates = {gates};
    auto f = RunRangeGates(dir_.path(), base_ + "..HEAD", o);
    EXPECT_TRUE(f.ok()) << f.status().message();
    return f.ok() ? *f : std::vector<GateFinding>{};
  }
  TempDir dir_;
  std::string base_;
};

TEST_F(RangeRepo, WalksOnlyTheRangeOldestFirst) {
  dir_.Write("a.txt", "1\n");
  std::string first = Commit("First");
  dir_.Write("a.txt", "2\n");
  std::string second = Commit("Second");
  auto commits = git::WalkRange(dir_.path(), base_ + "..HEAD");
  ASSERT_TRUE(commits.ok());
  ASSERT_EQ(commits->size(), 2u);
  EXPECT_EQ((*commits)[0].id, first);
  EXPECT_EQ((*commits)[1].summary, "Second");
}

TEST_F(RangeRepo, ChangeSizeCountsLinesAndFilesExceptExcludedOnes) {
  std::string big;
  for (int i = 0; i < 30; ++i) big += "line " + std::to_string(i) + "\n";
  dir_.Write("src/big.txt", big);
  dir_.Write("gen/lock.json", big + big);
  Commit("Add files");
  RangeOptions o;
  o.max_lines = 40;
  auto f = Gates("change-size", o);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].ok);
  EXPECT_EQ(f[0].message, "90 lines changed (max 40)");
  o.exclude = {"gen/**"};
  f = Gates("change-size", o);
  EXPECT_TRUE(f[0].ok) << f[0].message;
  EXPECT_EQ(f[0].message, "30 lines, 1 files");
}

// A moved file counts its edits, not its whole text twice: moving code is not a big change.
TEST_F(RangeRepo, ChangeSizeCountsAMovedFileByItsEdits) {
  std::string big;
  for (int i = 0; i < 30; ++i) big += "line " + std::to_string(i) + "\n";
  dir_.Write("old/big.txt", big);
  Commit("Add a file");
  base_ = Head();
  std::filesystem::create_directories(dir_.path() + "/new");
  std::filesystem::rename(dir_.path() + "/old/big.txt", dir_.path() + "/new/big.txt");
  dir_.Write("new/big.txt", big + "one more\n");
  Commit("Move it");
  RangeOptions o;
  o.max_lines = 20;
  auto f = Gates("change-size", o);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].ok) << f[0].message;
  EXPECT_EQ(f[0].message, "1 lines, 1 files");
}

TEST_F(RangeRepo, CodeBeforeItsSpecFailsSpecOrder) {
  dir_.Write("src/feature.cpp", "int f();\n");
  std::string code = Commit("Add the feature");
  dir_.Write("specs/feature.md",
             "# Spec\n## Scope\n- src/feature.cpp\n## Gates\n```sh\ntrue\n```\n## Owed\n");
  std::string spec = Commit("Spec: the feature");
  auto f = Gates("spec-order");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_FALSE(f[0].ok);
  EXPECT_EQ(f[0].message,
            "touches src/feature.cpp (scope of specs/feature.md) before that spec was added in " +
                spec.substr(0, 12));
  EXPECT_TRUE(f[1].ok);
}

// A file two capabilities share: changed under the spec that owned it then, before a later
// spec also took it into scope. Only a path no spec owned at that commit is out of order.
TEST_F(RangeRepo, APathAnOlderSpecOwnedPassesSpecOrderBeforeANewerSpecClaimsIt) {
  dir_.Write("specs/core.md", "# Spec\n## Scope\n- src/\n## Gates\n```sh\ntrue\n```\n## Owed\n");
  Commit("Spec: the core");
  dir_.Write("src/matmul.cpp", "int m();\n");
  dir_.Write("tools/new.cpp", "int n();\n");
  Commit("Faster matmul, and a tool no spec owns yet");
  dir_.Write(
      "specs/quant.md",
      "# Spec\n## Scope\n- src/matmul.cpp\n- tools/new.cpp\n## Gates\n```sh\ntrue\n```\n## Owed\n");
  std::string spec = Commit("Spec: quantized weights");
  auto f = Gates("spec-order");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_FALSE(f[1].ok);
  EXPECT_EQ(f[1].message,
            "touches tools/new.cpp (scope of specs/quant.md) before that spec was added in " +
                spec.substr(0, 12));
}

// A spec and code in its scope in one commit: that spec owns the code from then on, so a newer
// spec that also claims the path finds it owned.
TEST_F(RangeRepo, CodeCommittedWithItsSpecIsOwnedWhenANewerSpecClaimsIt) {
  dir_.Write("specs/core.md", "# Spec\n## Scope\n- src/\n## Gates\n```sh\ntrue\n```\n## Owed\n");
  dir_.Write("src/matmul.cpp", "int m();\n");
  Commit("Spec: the core, with its matmul");
  dir_.Write("specs/quant.md",
             "# Spec\n## Scope\n- src/matmul.cpp\n## Gates\n```sh\ntrue\n```\n## Owed\n");
  Commit("Spec: quantized weights");
  auto f = Gates("spec-order");
  ASSERT_EQ(f.size(), 2u);
  for (const GateFinding& g : f) EXPECT_TRUE(g.ok) << g.message;
}

TEST_F(RangeRepo, SpecFirstThenCodePassesSpecOrder) {
  dir_.Write("specs/feature.md", "# Spec\n## Scope\n- src/\n## Gates\n```sh\ntrue\n```\n## Owed\n");
  Commit("Spec: the feature");
  dir_.Write("src/feature.cpp", "int f();\n");
  Commit("Add the feature");
  for (const GateFinding& f : Gates("spec-order")) EXPECT_TRUE(f.ok) << f.message;
}

// Each commit builds with its own suites.json; a second walk over the same trees is cached.
TEST_F(RangeRepo, TreeCompilesBuildsEachCommitsOwnTreeAndCachesByTree) {
  dir_.Write(
      "preflight/suites.json",
      R"({"schema_version": 1, "legs": {"build": {"run": "test -f ok.txt && echo built >> )" +
          dir_.path() + R"(/out/builds"}}, "suites": {"default": ["build"]}})");
  dir_.Write("ok.txt", "");
  Commit("Buildable");
  std::filesystem::remove(dir_.path() + "/ok.txt");
  Commit("Not buildable");
  auto f = Gates("tree-compiles");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(f[0].ok) << f[0].message;
  EXPECT_FALSE(f[1].ok);
  EXPECT_NE(f[1].message.find("build: exit status 1"), std::string::npos) << f[1].message;
  auto again = Gates("tree-compiles");
  EXPECT_EQ(again[0].message.rfind("cached pass of tree ", 0), 0u) << again[0].message;
  EXPECT_EQ(dir_.Read("out/builds"), "built\n");  // built once, by the first walk
}

// Commits from before the project had a build leg are built with HEAD's, and say so.
TEST_F(RangeRepo, TreeCompilesBuildsACommitWithoutABuildLegWithHeadsLeg) {
  dir_.Write("ok.txt", "");
  Commit("Before proofgate's build leg");
  dir_.Write("preflight/suites.json",
             R"({"schema_version": 1, "legs": {"build": {"run": "test -f ok.txt"}},
    "suites": {"default": ["build"]}})");
  Commit("A build leg");
  auto f = Gates("tree-compiles");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(f[0].ok) << f[0].message;
  EXPECT_NE(
      f[0].message.find("with HEAD's leg \"build\" (this commit's preflight/suites.json has none)"),
      std::string::npos)
      << f[0].message;
  EXPECT_TRUE(f[1].ok) << f[1].message;
  EXPECT_EQ(f[1].message.find("HEAD's leg"), std::string::npos) << f[1].message;
}

// A commit without the build leg, where HEAD has none either (its suites.json loads): nothing
// to build it with, and the finding says where it looked.
TEST_F(RangeRepo, TreeCompilesNamesALegNeitherTheCommitNorHeadHas) {
  dir_.Write("a.txt", "1\n");
  Commit("No build leg anywhere");
  auto f = Gates("tree-compiles");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_FALSE(f[0].ok);
  EXPECT_EQ(f[0].message, "no leg \"build\" in this commit's preflight/suites.json nor in HEAD's");
}

// A rebase that keeps the trees: new commit ids, the same trees, so tree-compiles reuses the
// verdict.
TEST_F(RangeRepo, TreeCompilesReusesVerdictsAcrossARebaseThatKeepsTrees) {
  ASSERT_TRUE(git::SwitchBranch(dir_.path(), "work", /*create=*/true).ok());
  ASSERT_TRUE(git::SwitchBranch(dir_.path(), "rebased", /*create=*/true).ok());
  ASSERT_TRUE(git::SwitchBranch(dir_.path(), "work", /*create=*/false).ok());
  std::string suites = R"({"schema_version": 1, "legs": {"build": {"run": "echo built >> )" +
                       dir_.path() + R"(/out/builds"}}, "suites": {"default": ["build"]}})";
  dir_.Write("preflight/suites.json", suites);
  Commit("Buildable");
  auto first = Gates("tree-compiles");
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(first[0].ok) << first[0].message;
  ASSERT_TRUE(git::SwitchBranch(dir_.path(), "rebased", /*create=*/false).ok());
  dir_.Write("preflight/suites.json", suites);
  std::string rebased = Commit("Buildable, said differently");
  auto second = Gates("tree-compiles");
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].commit, rebased);
  EXPECT_NE(second[0].commit, first[0].commit);
  EXPECT_EQ(second[0].message.rfind("cached pass of tree ", 0), 0u) << second[0].message;
  EXPECT_EQ(dir_.Read("out/builds"), "built\n");
}

// A range with no commits checked nothing: it fails unless the caller says that is expected.
TEST_F(RangeRepo, ARangeWithNoCommitsCheckedNothingAndFailsUnlessAllowed) {
  auto none = testing::RunProofgate(dir_.path(), "range HEAD..HEAD");
  EXPECT_EQ(none.exit_code, 1) << none.out << none.err;
  EXPECT_NE(none.err.find("nothing checked: HEAD..HEAD has no commits"), std::string::npos)
      << none.err;
  EXPECT_NE(none.out.find("range HEAD..HEAD: fail"), std::string::npos) << none.out;
  auto allowed = testing::RunProofgate(dir_.path(), "range HEAD..HEAD --allow-empty");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_NE(allowed.err.find("(--allow-empty: accepted)"), std::string::npos) << allowed.err;
}

// A pass says what it covered: how many commits, which gates.
TEST_F(RangeRepo, TheVerdictSaysHowManyCommitsAndWhichGatesItChecked) {
  dir_.Write("a.txt", "1\n");
  Commit("A good subject");
  dir_.Write("a.txt", "2\n");
  Commit("Another subject");
  auto two =
      testing::RunProofgate(dir_.path(), "range HEAD~2..HEAD --gate commit-style,change-size");
  EXPECT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find("range HEAD~2..HEAD: pass (2 commits; commit-style, change-size)"),
            std::string::npos)
      << two.out;
  auto one = testing::RunProofgate(dir_.path(), "range HEAD~1..HEAD --gate commit-style");
  EXPECT_NE(one.out.find("range HEAD~1..HEAD: pass (1 commit; commit-style)"), std::string::npos)
      << one.out;
}

TEST_F(RangeRepo, CliExitsZeroOneOrTwo) {
  dir_.Write("a.txt", "1\n");
  Commit("A good subject");
  EXPECT_EQ(
      testing::RunProofgate(dir_.path(), "range " + base_ + "..HEAD --gate commit-style").exit_code,
      0);
  dir_.Write("a.txt", "2\n");
  Commit("A subject with a period.");
  auto fail = testing::RunProofgate(dir_.path(), "range " + base_ + "..HEAD --json");
  EXPECT_EQ(fail.exit_code, 1);
  EXPECT_EQ(Json::parse(fail.out)["ok"], false);
  dir_.Write("a.txt", "3\n");
  Commit("A subject longer than twenty");  // suites.json's range.subject_max is 20
  EXPECT_EQ(testing::RunProofgate(dir_.path(), "range HEAD~1..HEAD --gate commit-style").exit_code,
            1);
  EXPECT_EQ(
      testing::RunProofgate(dir_.path(), "range HEAD~1..HEAD --gate commit-style --subject-max 72")
          .exit_code,
      0);
  auto bad = testing::RunProofgate(dir_.path(), "range nosuchref..HEAD");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("range \"nosuchref..HEAD\""), std::string::npos) << bad.err;
  EXPECT_EQ(testing::RunProofgate(dir_.path(), "range HEAD~1..HEAD --gate spelling").exit_code, 2);
  auto single = testing::RunProofgate(dir_.path(), "range HEAD~1");
  EXPECT_EQ(single.exit_code, 2);
  EXPECT_NE(single.err.find("range HEAD~1: expected BASE..HEAD, e.g. main..HEAD or HEAD~3..HEAD"),
            std::string::npos)
      << single.err;
}

}  // namespace
}  // namespace pg
