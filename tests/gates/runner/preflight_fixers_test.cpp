// Fixer legs (`"stage_fixed": true`) on a real repository: they run first and one at a time,
// their changes to their own files are fixes (listed; staged under --staged), and the other
// legs verify the fixed tree. Any other change is what it always was: a stale run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::Git;
using testing::RunProofgate;
using testing::TempDir;

// a.txt holds "bad" (committed "ok"); `fmt` turns bad into good in the *.txt files it is given,
// `check` passes only on good, `stray` is a fixer that also writes a file outside its own.
class PreflightFixers : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeRepo(dir_, R"({"schema_version": 1, "legs": {
      "fmt": {"run": "sed -i s/bad/good/ {files}", "files": ["*.txt"], "stage_fixed": true},
      "check": {"run": "grep -qx good a.txt"},
      "stray": {"run": "sed -i s/bad/good/ a.txt; echo more >> notes.md", "files": ["*.txt"], "stage_fixed": true},
      "red-fixer": {"run": "sed -i s/bad/good/ a.txt; exit 1", "stage_fixed": true},
      "slow-fixer": {"run": "mkdir out/one || exit 1; sleep 0.3; rmdir out/one; touch out/fixed", "stage_fixed": true},
      "other-fixer": {"run": "mkdir out/one || exit 1; sleep 0.3; rmdir out/one", "stage_fixed": true},
      "after": {"run": "test -f out/fixed"},
      "noop": {"run": "true", "stage_fixed": true},
      "whole": {"run": "sed -i s/bad/good/ a.txt", "stage_fixed": true},
      "spoil": {"run": "echo spoiled >> a.txt"}},
      "suites": {"default": ["fmt", "noop", "check"], "stray": ["stray", "check"], "spoil": ["fmt", "spoil"], "red": ["red-fixer"], "whole": ["whole"],
                 "order": ["after", "slow-fixer", "other-fixer"]}})");
    dir_.Write("a.txt", "ok\n");
    dir_.Write("notes.md", "notes\n");
    Git(dir_, {"add", "."});
    Git(dir_, {"commit", "-qm", "files"});
    dir_.Write("a.txt", "bad\n");
  }
  std::string Indexed(const std::string& path) {
    auto show = RunCapture({"git", "show", ":" + path}, dir_.path(), 60);
    return show.ok() ? show->output : "";
  }
  static nlohmann::json Leg(const nlohmann::json& report, const std::string& name) {
    for (const auto& leg : report["legs"]) {
      if (leg["name"] == name) return leg;
    }
    return nullptr;
  }
  TempDir dir_;
};

TEST_F(PreflightFixers, AFixIsStagedAndTheOtherLegsVerifyTheFixedTree) {
  Git(dir_, {"add", "a.txt"});
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache --json -j 2");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Indexed("a.txt"), "good\n") << "the commit holds the fix";
  EXPECT_EQ(dir_.Read("a.txt"), "good\n");
  auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(Leg(report, "fmt")["fixed"], nlohmann::json::array({"a.txt"}));
  EXPECT_EQ(Leg(report, "fmt")["note"], "fixed 1 file (staged): a.txt");
  EXPECT_EQ(report["tree_hash"], report["tree_hash_after"]) << "the verdict names the fixed tree";
}

TEST_F(PreflightFixers, WithoutStagedAFixStaysInTheWorkingTreeAndTheOthersPassesAreKept) {
  auto first = RunProofgate(dir_.path(), "preflight --json");
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_EQ(dir_.Read("a.txt"), "good\n");
  EXPECT_EQ(Indexed("a.txt"), "ok\n") << "only --staged stages";
  auto second = RunProofgate(dir_.path(), "preflight --json");
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  auto report = nlohmann::json::parse(second.out);
  EXPECT_EQ(Leg(report, "fmt")["cached"], false) << "a fixer that fixed passed on another tree";
  EXPECT_EQ(Leg(report, "check")["cached"], true) << "check's pass on the fixed tree is reused";
  EXPECT_EQ(Leg(report, "noop")["cached"], false)
      << "noop passed on the tree before fmt's fix, not on this one";
  EXPECT_EQ(Leg(nlohmann::json::parse(first.out), "noop")["fixed"], nlohmann::json::array())
      << "fmt fixed it";
  dir_.Write("a.txt", "bad\n");  // the first run's tree again
  auto third = RunProofgate(dir_.path(), "preflight");
  EXPECT_EQ(third.exit_code, 0) << third.out << third.err;
  EXPECT_EQ(dir_.Read("a.txt"), "good\n") << "a fixer that fixed is not cached: it fixes again";
}

// A fixer that names no files may fix any file of the run's set: here, the staged ones.
TEST_F(PreflightFixers, AFixerWithoutFilesMayFixAnyFileOfTheSet) {
  Git(dir_, {"add", "a.txt"});
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache whole");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Indexed("a.txt"), "good\n");
}

// The run is stale and names what is no fix, not the fix; a stale run stages nothing.
TEST_F(PreflightFixers, AChangeOutsideAFixersFilesMakesTheRunStale) {
  Git(dir_, {"add", "a.txt"});
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache --json stray");
  EXPECT_EQ(run.exit_code, 5) << run.out << run.err;
  auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["tree_changes"],
            nlohmann::json::parse(R"([{"path": "notes.md", "change": "changed"}])"));
  EXPECT_EQ(Leg(report, "stray")["fixed"], nlohmann::json::array({"a.txt"}));
  EXPECT_EQ(Indexed("a.txt"), "bad\n") << "half a fixer's work is no commit to make";
  EXPECT_NE(Leg(report, "check")["tree_hash"], report["tree_hash"])
      << "check ran on the tree stray left";
}

// A fix is named by its fixer, not as a change; a later leg's change to the fixed file is one.
// A run that ends stale stages nothing, whenever its tree changed.
TEST_F(PreflightFixers, AFixedFileALaterLegChangesIsNamed) {
  Git(dir_, {"add", "a.txt"});
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache --json spoil");
  EXPECT_EQ(run.exit_code, 5) << run.out << run.err;
  auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["tree_changes"],
            nlohmann::json::parse(R"([{"path": "a.txt", "change": "changed"}])"));
  EXPECT_EQ(Indexed("a.txt"), "bad\n") << "a stale run stages nothing";
}

// suites.json below the top: the fixes are named from the top and staged there.
TEST_F(PreflightFixers, AFixUnderARootBelowTheTopIsStaged) {
  dir_.Write("app/preflight/suites.json", R"({"schema_version": 1, "legs": {
      "fmt": {"run": "sed -i s/bad/good/ {files}", "files": ["*.txt"], "stage_fixed": true}},
    "suites": {"default": ["fmt"]}})");
  dir_.Write("app/b.txt", "bad\n");
  Git(dir_, {"add", "app"});
  auto run = RunProofgate(dir_.path() + "/app", "preflight --staged --no-cache");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Indexed("app/b.txt"), "good\n");
  EXPECT_NE(run.out.find("fixed 1 file (staged): app/b.txt"), std::string::npos) << run.out;
}

// git's clean filter (git-lfs works this way) makes the staged bytes, as `git add` would.
TEST_F(PreflightFixers, AFixIsStagedThroughGitsCleanFilter) {
  Git(dir_, {"config", "filter.up.clean", "tr a-z A-Z"});
  Git(dir_, {"config", "filter.up.smudge", "cat"});
  dir_.Write(".gitattributes", "a.txt filter=up\n");
  Git(dir_, {"add", ".gitattributes", "a.txt"});
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache fmt");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Indexed("a.txt"), "GOOD\n");
}

TEST_F(PreflightFixers, AFixToAFileWithUnstagedChangesIsDroppedAndTheRunStale) {
  Git(dir_, {"add", "a.txt"});
  dir_.Write("a.txt", "bad\nmine\n");
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache");
  EXPECT_EQ(run.exit_code, 5) << run.out << run.err;
  EXPECT_EQ(Indexed("a.txt"), "bad\n") << "nothing staged";
  EXPECT_EQ(dir_.Read("a.txt"), "bad\nmine\n") << "the user's version is back";
  EXPECT_NE(run.out.find("its fix to a.txt was dropped: unstaged changes there came back"),
            std::string::npos)
      << run.out;
}

TEST_F(PreflightFixers, AFailedFixersChangeIsNeitherAFixNorStaged) {
  Git(dir_, {"add", "a.txt"});
  auto run = RunProofgate(dir_.path(), "preflight --staged --no-cache --json red");
  EXPECT_NE(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Indexed("a.txt"), "bad\n");
  auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(Leg(report, "red-fixer")["fixed"], nlohmann::json::array());
  EXPECT_NE(report["tree_changes"].dump().find("a.txt"), std::string::npos);
}

TEST_F(PreflightFixers, FixersRunFirstAndOneAtATime) {
  auto run = RunProofgate(dir_.path(), "preflight --no-cache -j 3 order");
  EXPECT_EQ(run.exit_code, 0) << "after saw the fixers' work, the fixers never met\n"
                              << run.out << run.err;
}

}  // namespace
}  // namespace pg
