#include <gtest/gtest.h>

#include <filesystem>

#include "gates/git/git.h"
#include "gates/runner/declared_outputs.h"
#include "gates/runner/input_glob.h"
#include "gates/runner/preflight.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::FindLeg;
using testing::TempDir;

// A repo whose legs append to out/runs (ignored by git) each time they really run.
class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override { Configure("true", ""); }
  void Configure(const std::string& unit_body, const std::string& extra,
                 const std::string& build_body = "true") {
    std::string suites = R"({"schema_version": 1, "toolchain": [["cat", "out/toolchain.txt"]],
      "legs": {
        "build": {"run": "echo build >> out/runs; )" +
                         build_body + R"("},
        "unit": {"run": "echo unit >> out/runs; )" +
                         unit_body + R"(", "needs": ["build"])" + extra + R"(}
      },
      "suites": {"default": ["unit"]}})";
    if (!initialized_) {
      testing::MakeRepo(dir_, "{}");
      initialized_ = true;
    }
    dir_.Write("out/suites.json", suites);  // ignored by git: editing it leaves the tree alone
  }
  RunReport Run(bool use_cache = true) {
    PreflightOptions options;
    options.root = dir_.path();
    options.use_cache = use_cache;
    options.config_path = "out/suites.json";
    auto report = RunPreflight(options);
    EXPECT_TRUE(report.ok()) << report.status().message();
    return report.ok() ? *report : RunReport{};
  }
  int Runs() {
    std::string text = dir_.Read("out/runs");
    int n = 0;
    for (char c : text) n += c == '\n';
    return n;
  }

  TempDir dir_;
  bool initialized_ = false;
};

TEST_F(CacheTest, AWarmRerunOfAnUnchangedTreeRunsNothing) {
  RunReport first = Run();
  EXPECT_EQ(first.exit_code, ExitCode::kPass);
  EXPECT_EQ(Runs(), 2);
  RunReport second = Run();
  EXPECT_EQ(second.exit_code, ExitCode::kPass);
  EXPECT_EQ(Runs(), 2);
  EXPECT_TRUE(FindLeg(second.legs, "unit")->cached);
  EXPECT_EQ(FindLeg(second.legs, "unit")->tree_hash, first.tree_hash);
}

// `proofgate init`'s configure leg declares build/CMakeCache.txt: with build/ removed, its pass
// (and its dependents') is nothing to reuse; a glob output needs a match.
TEST_F(CacheTest, ALegWhoseOutputsAreGoneIsRunAgain) {
  dir_.Write("out/suites.json", R"({"schema_version": 1, "legs": {
      "build": {"run": "echo build >> out/runs; mkdir -p out/build && touch out/build/made.o",
                "outputs": ["out/build", "out/build/*.o"]},
      "unit": {"run": "echo unit >> out/runs", "needs": ["build"]}},
    "suites": {"default": ["unit"]}})");
  Run();
  EXPECT_EQ(Runs(), 2);
  EXPECT_TRUE(FindLeg(Run().legs, "unit")->cached);
  EXPECT_EQ(Runs(), 2) << "the outputs are there: a warm rerun";
  std::filesystem::remove(dir_.path() + "/out/build/made.o");
  RunReport glob_gone = Run();
  EXPECT_FALSE(FindLeg(glob_gone.legs, "build")->cached) << "out/build/*.o matches nothing";
  EXPECT_EQ(Runs(), 4) << "build and the unit that needs it ran again";
  std::filesystem::remove_all(dir_.path() + "/out/build");
  RunReport gone = Run();
  EXPECT_FALSE(FindLeg(gone.legs, "build")->cached);
  EXPECT_EQ(Runs(), 6);
}

TEST_F(CacheTest, ACachedPassNamesTheRunThatEarnedItAndItsLog) {
  RunReport first = Run();
  ASSERT_EQ(first.exit_code, ExitCode::kPass);
  RunReport second = Run();
  const LegResult* unit = FindLeg(second.legs, "unit");
  ASSERT_TRUE(unit->cached);
  EXPECT_EQ(unit->note.rfind("cached: passed in run " + first.run_id + " at ", 0), 0u)
      << unit->note;
  EXPECT_EQ(unit->log_path, FindLeg(first.legs, "unit")->log_path);
  EXPECT_NE(unit->note.find("(log: " + unit->log_path + ")"), std::string::npos) << unit->note;
}

TEST_F(CacheTest, EditingAFileMisses) {
  Run();
  dir_.Write("src/code.txt", "version 2\n");
  RunReport second = Run();
  EXPECT_EQ(Runs(), 4);
  EXPECT_FALSE(FindLeg(second.legs, "unit")->cached);
}

TEST_F(CacheTest, EditingTheLegMissesEvenWithTheSameTree) {
  RunReport first = Run();
  Configure("true", ", \"timeout_s\": 100");
  RunReport second = Run();
  EXPECT_EQ(second.tree_hash, first.tree_hash);
  EXPECT_TRUE(FindLeg(second.legs, "build")->cached);
  EXPECT_FALSE(FindLeg(second.legs, "unit")->cached);
}

TEST_F(CacheTest, ALegWhoseNeedRanAgainRunsAgain) {
  Run();
  Configure("true", "", "echo changed");
  RunReport second = Run();
  EXPECT_FALSE(FindLeg(second.legs, "build")->cached);
  EXPECT_FALSE(FindLeg(second.legs, "unit")->cached);
}

// unit failed after build A and passed after build B: going back to A must not reuse B's pass.
TEST_F(CacheTest, ACachedPassIsTiedToTheNeedsItRanWith) {
  Configure("grep -q B out/flavor", "", "echo A > out/flavor");
  EXPECT_EQ(Run().exit_code, ExitCode::kGateFailed);
  Configure("grep -q B out/flavor", "", "echo B > out/flavor");
  EXPECT_EQ(Run().exit_code, ExitCode::kPass);
  Configure("grep -q B out/flavor", "", "echo A > out/flavor");
  RunReport third = Run();
  EXPECT_TRUE(FindLeg(third.legs, "build")->cached);
  EXPECT_FALSE(FindLeg(third.legs, "unit")->cached);
}

TEST_F(CacheTest, AFailureIsNeverCached) {
  Configure("exit 1", "");
  EXPECT_EQ(Run().exit_code, ExitCode::kGateFailed);
  RunReport second = Run();
  EXPECT_EQ(second.exit_code, ExitCode::kGateFailed);
  EXPECT_FALSE(FindLeg(second.legs, "unit")->cached);
  EXPECT_TRUE(FindLeg(second.legs, "build")->cached);
}

TEST_F(CacheTest, NoCacheRunsEverything) {
  Run();
  Run(/*use_cache=*/false);
  EXPECT_EQ(Runs(), 4);
}

TEST_F(CacheTest, AChangedToolchainProbeMisses) {
  dir_.Write("out/toolchain.txt", "gcc 12\n");
  Run();
  dir_.Write("out/toolchain.txt", "gcc 13\n");
  RunReport second = Run();
  EXPECT_FALSE(FindLeg(second.legs, "build")->cached);
  EXPECT_EQ(Runs(), 4);
}

TEST_F(CacheTest, AChangedInputMissesEvenWhenGitIgnoresIt) {
  Configure("true", ", \"inputs\": [\"out/model/*.bin\"]");
  dir_.Write("out/model/a.bin", "1");
  Run();
  Run();
  EXPECT_EQ(Runs(), 2);
  dir_.Write("out/model/a.bin", "2");
  RunReport third = Run();
  EXPECT_TRUE(FindLeg(third.legs, "build")->cached);
  EXPECT_FALSE(FindLeg(third.legs, "unit")->cached);
}

TEST_F(CacheTest, ATreeChangedDuringTheRunIsStaleAndNotCached) {
  Configure("echo changed >> src/code.txt", "");
  RunReport first = Run();
  EXPECT_EQ(first.exit_code, ExitCode::kStale);
  EXPECT_NE(first.tree_hash, first.tree_hash_after);
  EXPECT_EQ(dir_.Read(".git/proofgate/cache.json"), "");
}

// Found on madler/zlib, whose CMake configure renames the source's zconf.h: the run was stale
// and its two hashes did not say why. Each path is named with how it changed, a mode too.
TEST_F(CacheTest, ATreeChangedDuringTheRunNamesItsPaths) {
  dir_.Write("src/old.txt", "old\n");
  Configure(
      "echo changed >> src/code.txt; rm src/old.txt; chmod +x preflight/suites.json; echo new > "
      "src/new.txt",
      "");
  RunReport report = Run();
  ASSERT_EQ(report.exit_code, ExitCode::kStale);
  std::vector<std::string> changes;
  for (const TreeChange& c : report.tree_changes) changes.push_back(c.path + " " + c.change);
  EXPECT_EQ(changes,
            (std::vector<std::string>{"preflight/suites.json changed", "src/code.txt changed",
                                      "src/new.txt added", "src/old.txt deleted"}));
  Configure("true", "");
  EXPECT_TRUE(Run().tree_changes.empty());
}

// `proofgate init`'s build folder, not ignored: what a leg declares it makes is no change to the
// tree, and the pass it earned is reused on the next run (a folder and a glob output).
TEST_F(CacheTest, UntrackedFilesUnderALegsOutputsAreNotAChangedTree) {
  dir_.Write("out/suites.json", R"({"schema_version": 1, "legs": {
      "build": {"run": "echo build >> out/runs; mkdir -p gen/sub dist-rel/x && echo $$ > gen/sub/a.o && echo $$ > dist-rel/x/b",
                "outputs": ["gen/", "dist-*"]}},
    "suites": {"default": ["build"]}})");
  RunReport first = Run();
  EXPECT_EQ(first.exit_code, ExitCode::kPass);
  EXPECT_TRUE(first.tree_changes.empty()) << first.tree_changes.front().path;
  EXPECT_EQ(first.tree_hash, first.tree_hash_after);
  RunReport second = Run();
  EXPECT_TRUE(FindLeg(second.legs, "build")->cached) << "made files leave the cache's key alone";
  EXPECT_EQ(second.tree_hash, first.tree_hash);
}

// A tracked file under an output still counts: a fixer that declares the sources it rewrites,
// or a checked-in generated file edited, changes the tree under test.
TEST_F(CacheTest, ATrackedFileUnderALegsOutputsIsStillHashed) {
  dir_.Write("out/suites.json", R"({"schema_version": 1, "legs": {
      "fix": {"run": "echo fixed >> src/code.txt", "outputs": ["src"]}},
    "suites": {"default": ["fix"]}})");
  RunReport report = Run();
  EXPECT_EQ(report.exit_code, ExitCode::kStale);
  ASSERT_EQ(report.tree_changes.size(), 1u);
  EXPECT_EQ(report.tree_changes[0].path, "src/code.txt");
}

// Outputs are named from the root (where preflight/ is), git's paths from the working tree.
TEST_F(CacheTest, OutputsOfARootBelowTheWorkingTreeAreFoundThere) {
  dir_.Write("app/preflight/suites.json", R"({"schema_version": 1, "legs": {
      "build": {"run": "mkdir -p build && echo $$ > build/a.o", "outputs": ["build"]}},
    "suites": {"default": ["build"]}})");
  git::CommitAll(dir_.path(), "app").value();
  PreflightOptions options;
  options.root = dir_.path() + "/app";
  auto report = RunPreflight(options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->exit_code, ExitCode::kPass);
  EXPECT_EQ(report->tree_hash, report->tree_hash_after);
}

// A typo in a probe fingerprints nothing: the run says so, naming it, and goes on.
TEST(CacheWarnings, AFailingToolchainProbeIsNamed) {
  TempDir dir;
  testing::MakeRepo(
      dir,
      R"({"schema_version": 1, "toolchain": [["sh", "-c", "exit 3"], ["no-such-compiler-x", "--version"],
      ["true"]],
    "legs": {"unit": {"run": "true"}}, "suites": {"default": ["unit"]}})");
  auto run = testing::RunProofgate(dir.path(), "preflight");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(
      run.err.find("toolchain probe `sh -c exit 3`: exit 3; what it said still keys the cache"),
      std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("toolchain probe `no-such-compiler-x --version`: "), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("toolchain probe `true`"), std::string::npos)
      << "a probe that works is no news";
}

TEST(DeclaredOutputs, AFolderCoversWhatIsUnderItAndAGlobTheFoldersItMatches) {
  EXPECT_TRUE(OutputCovers("build/", "build/lib/a.o"));
  EXPECT_TRUE(OutputCovers("./build", "build"));
  EXPECT_FALSE(OutputCovers("build", "build2/a.o"));
  EXPECT_TRUE(OutputCovers("dist-*", "dist-rel/x/b"));
  EXPECT_TRUE(OutputCovers("**/*.o", "src/deep/a.o"));
  EXPECT_FALSE(OutputCovers("*.o", "src/a.o"));
}

TEST_F(CacheTest, AMalformedCacheFileIsReplacedNotFatal) {
  Run();
  dir_.Write(".git/proofgate/cache.json", "{not json");
  EXPECT_EQ(Run().exit_code, ExitCode::kPass);
  EXPECT_EQ(Runs(), 4);
  Run();
  EXPECT_EQ(Runs(), 4);
}

TEST(InputGlob, DoubleStarMatchesAnyDepthAndStarStaysInASegment) {
  EXPECT_TRUE(GlobMatch("build/**/*.a", "build/x/y/lib.a"));
  EXPECT_TRUE(GlobMatch("build/**/*.a", "build/lib.a"));
  EXPECT_FALSE(GlobMatch("build/*.a", "build/x/lib.a"));
  EXPECT_FALSE(GlobMatch("*.gguf", ".hidden.gguf"));
}

TEST(InputGlob, ExpandWalksFromTheLiteralPrefixAndSorts) {
  TempDir dir;
  dir.Write("m/b.gguf", "");
  dir.Write("m/a.gguf", "");
  dir.Write("m/sub/c.gguf", "");
  dir.Write("other/d.gguf", "");
  EXPECT_EQ(ExpandGlobs(dir.path(), {"m/**/*.gguf", "m/a.gguf"}),
            (std::vector<std::string>{"m/a.gguf", "m/b.gguf", "m/sub/c.gguf"}));
}

// A link is listed under its own name, not its target's (std::filesystem::relative named
// `m/b.gguf -> a.gguf` as m/a.gguf, and the link's input went unhashed).
TEST(InputGlob, ALinkIsListedUnderItsOwnName) {
  TempDir dir;
  dir.Write("m/a.gguf", "");
  std::filesystem::create_symlink("a.gguf", dir.path() + "/m/b.gguf");
  EXPECT_EQ(ExpandGlobs(dir.path(), {"m/*.gguf"}),
            (std::vector<std::string>{"m/a.gguf", "m/b.gguf"}));
  EXPECT_EQ(ExpandGlobs(dir.path() + "/", {"m/*.gguf"}),
            (std::vector<std::string>{"m/a.gguf", "m/b.gguf"}));  // git's workdir
  EXPECT_EQ(ExpandGlobs(dir.path() + "/", {"*/a.gguf"}), (std::vector<std::string>{"m/a.gguf"}));
}

TEST(InputGlob, ALiteralFileIsItsOwnExpansionAndNothingLiesPastAFile) {
  TempDir dir;
  dir.Write("m/a.gguf", "");
  dir.Write("m/b.gguf", "");
  EXPECT_EQ(ExpandGlobs(dir.path(), {"m/a.gguf"}), (std::vector<std::string>{"m/a.gguf"}));
  EXPECT_EQ(ExpandGlobs(dir.path(), {"m/a.gguf/*"}), (std::vector<std::string>{}));
}

}  // namespace
}  // namespace pg
