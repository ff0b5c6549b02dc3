#include "gates/merge/merge_gate.h"

#include <gtest/gtest.h>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

// main and feature fork from one commit; main adds main.txt, feature adds feature.txt. The default
// suite checks that both files are in the tree it runs on, which only the merged tree has.
class MergeGate : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeRepo(
        dir_,
        R"({"schema_version": 1, "legs": {"both": {"run": "test -f main.txt && test -f feature.txt"}},
                               "suites": {"default": ["both"]}})");
    ASSERT_TRUE(git::SwitchBranch(dir_.path(), "main", /*create=*/true).ok());
    ASSERT_TRUE(git::SwitchBranch(dir_.path(), "feature", /*create=*/true).ok());
    dir_.Write("feature.txt", "feature\n");
    ASSERT_TRUE(git::CommitAll(dir_.path(), "Feature work").ok());
    CommitOnMain("main.txt", "main\n");
  }
  testing::CliResult Gate(const std::string& args) {
    return testing::RunProofgate(dir_.path(), "gate " + args);
  }
  void CommitOnMain(const std::string& file, const std::string& content) {
    ASSERT_TRUE(git::SwitchBranch(dir_.path(), "main", false).ok());
    dir_.Write(file, content);
    ASSERT_TRUE(git::CommitAll(dir_.path(), "More main work").ok());
    ASSERT_TRUE(git::SwitchBranch(dir_.path(), "feature", false).ok());
  }
  TempDir dir_;
};

TEST_F(MergeGate, RunsTheSuitesOnTheMergedTreeAndNotesTheVerdict) {
  auto r = Gate("--onto main --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json report = Json::parse(r.out);
  EXPECT_EQ(report["verb"], "gate");
  std::string head = git::ResolveCommit(dir_.path(), "HEAD").value();
  Json note = Json::parse(git::ReadNote(dir_.path(), kNotesRef, head).value());
  EXPECT_EQ(note["base"], git::ResolveCommit(dir_.path(), "main").value());
  EXPECT_EQ(note["merged_tree"], report["tree_hash"]);  // the runner hashed exactly the merged tree
  EXPECT_EQ(note["verdict"], "pass");
  EXPECT_EQ(dir_.Read("main.txt"), "");  // the user's checkout (feature) was never touched
}

TEST_F(MergeGate, VerifyPassesForTheGatedTreeAndIsStaleOnceTheBaseMoves) {
  ASSERT_EQ(Gate("--onto main").exit_code, 0);
  auto ok = Gate("--verify main");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("gate: verified: merged tree "), std::string::npos);
  CommitOnMain("other.txt", "x\n");
  auto stale = Gate("--verify main");
  EXPECT_EQ(stale.exit_code, 5);
  EXPECT_NE(stale.err.find("gate: stale: the verdict was for main at "), std::string::npos)
      << stale.err;
}

// A suite may check history as well as files (`proofgate range` over base..HEAD): a verdict
// holds for its base, so one commit on main that makes the merged tree no different (it adds
// what feature adds, byte for byte) still makes it stale.
TEST_F(MergeGate, AMovedBaseIsStaleEvenWhereTheMergedTreeIsTheSame) {
  ASSERT_EQ(Gate("--onto main").exit_code, 0);
  std::string gated = Json::parse(
      git::ReadNote(dir_.path(), kNotesRef, git::ResolveCommit(dir_.path(), "HEAD").value())
          .value())["merged_tree"];
  CommitOnMain("feature.txt", "feature\n");
  auto stale = Gate("--verify main");
  EXPECT_EQ(stale.exit_code, 5) << stale.out;
  EXPECT_NE(
      stale.err.find("the same merged tree " + gated.substr(0, 12) + ", gated on another base"),
      std::string::npos)
      << stale.err;
}

TEST_F(MergeGate, AFailingMergedTreeIsRecordedAndNeverVerifies) {
  dir_.Write(
      "preflight/suites.json",
      R"({"schema_version": 1, "legs": {"no": {"run": "exit 1"}}, "suites": {"default": ["no"]}})");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Break the suite").ok());
  EXPECT_EQ(Gate("--onto main").exit_code, 1);
  auto verify = Gate("--verify main");
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_NE(verify.err.find("was gated: fail"), std::string::npos) << verify.err;
}

TEST_F(MergeGate, ConflictsNameTheFilesAndRunNothing) {
  dir_.Write("main.txt", "feature's version\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Edit main.txt on feature").ok());
  CommitOnMain("main.txt", "main's version\n");
  auto r = Gate("--onto main");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gate: conflict: main.txt"), std::string::npos) << r.err;
}

TEST_F(MergeGate, WithoutAVerdictVerifyFailsAndBadInputIsExitTwo) {
  EXPECT_EQ(Gate("--verify main").exit_code, 1);
  EXPECT_EQ(Gate("--onto nosuchbranch").exit_code, 2);
  auto unknown = Gate("--verify nosuchbranch");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no revision \"nosuchbranch\""), std::string::npos) << unknown.err;
  EXPECT_EQ(Gate("").exit_code, 2);
}

}  // namespace
}  // namespace pg
