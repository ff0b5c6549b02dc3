// proofgate init on the shapes beside the four walks: a failed configure, the cache key's
// toolchain and build directory, an unignored build/, several projects under one root, npm.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

// A configure that fails (a dependency missing here) finds no executable: init still writes the
// ctest legs, and says why it found none.
TEST(InitShapes, AConfigureThatFailsIsNamedAndTheCtestLegsStay) {
  TempDir dir;
  dir.Write("CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\n"
            "message(FATAL_ERROR \"Foo 1.2 not found\")\nadd_executable(calc_test main.cpp)\n");
  dir.Write("main.cpp", "int main() { return 0; }\n");
  auto init = RunProofgate(dir.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_NE(init.out.find("init: a CMake project"), std::string::npos) << init.out;
  EXPECT_NE(init.out.find("note: init configured the project to look for test executables: cmake's "
                          "configure failed: "
                          "CMake Error at CMakeLists.txt:3 (message):\n"),
            std::string::npos)
      << init.out;
  EXPECT_NE(dir.Read("preflight/suites.json").find("\"ctest\", \"--test-dir\""), std::string::npos);
}

// init wrote no toolchain probe: after `CXX=clang++` (or with build/ removed) every leg was a
// cached pass in 8 ms. The probe's output and the configure leg's build/CMakeCache.txt are in
// the key now. (`project(p NONE)`: no compiler to find, so the configure takes a second.)
TEST(InitShapes, TheToolchainAndTheBuildDirectoryAreInTheCacheKey) {
  TempDir dir;
  dir.Write("CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.16)\nproject(p NONE)\nenable_testing()\n"
            "add_test(NAME t COMMAND true)\n");
  dir.Write(".gitignore", "build/\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "p").ok());
  ASSERT_EQ(RunProofgate(dir.path(), "init").exit_code, 0);
  std::string suites = dir.Read("preflight/suites.json");
  EXPECT_NE(suites.find(R"("outputs": ["build/CMakeCache.txt"])"), std::string::npos) << suites;
  EXPECT_NE(suites.find(R"("toolchain": [["sh", "-c", )"), std::string::npos) << suites;
  ASSERT_TRUE(git::CommitAll(dir.path(), "suites").ok());
  auto cached = [&](const std::string& env) {
    auto run = RunCapture({"sh", "-c", env + " " + PROOFGATE_BIN + " preflight --json 2>/dev/null"},
                          dir.path(), 120);
    EXPECT_TRUE(run.ok() && run->exit.exit_code == 0) << (run.ok() ? run->output : "");
    auto doc = Json::parse(run.ok() ? run->output : "{}", nullptr, false);
    int n = 0;
    for (const Json& leg : doc.value("legs", Json::array()))
      n += leg.value("cached", false) ? 1 : 0;
    return n;
  };
  EXPECT_EQ(cached("CXX=c++"), 0);
  EXPECT_EQ(cached("CXX=c++"), 3) << "a warm rerun";
  EXPECT_EQ(cached("CXX=clang++"), 0) << "another compiler: no leg's pass is reused";
  EXPECT_EQ(cached("CXX=clang++"), 3);
  std::filesystem::remove_all(dir.path() + "/build");
  EXPECT_EQ(cached("CXX=clang++"), 0) << "build/ removed: configure runs again, and what needs it";
}

// A first hour without a stale verdict: git does not ignore build/, so the first preflight's
// own configure changed the tree while it ran (`stale`, exit 5). init excludes it locally.
TEST(InitShapes, ABuildDirectoryGitDoesNotIgnoreIsExcludedAndTheFirstRunIsNotStale) {
  TempDir dir;
  dir.Write("CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.16)\nproject(p NONE)\nenable_testing()\n"
            "add_test(NAME t COMMAND true)\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "p").ok());
  auto init = RunProofgate(dir.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_NE(init.out.find("note: build/ was not ignored by git: added /build/ to " + dir.path() +
                          "/.git/info/exclude"),
            std::string::npos)
      << init.out;
  EXPECT_NE(dir.Read(".git/info/exclude").find("\n/build/\n"), std::string::npos)
      << dir.Read(".git/info/exclude");
  auto dirty = git::Dirty(dir.path());
  ASSERT_TRUE(dirty.ok());
  std::vector<std::string> paths = *dirty;
  for (const std::string& changed : paths) {
    EXPECT_TRUE(changed.rfind("preflight/", 0) == 0 || changed.rfind("mutations/", 0) == 0)
        << changed << ": only what init wrote, no tracked file";
  }
  auto first = RunProofgate(dir.path(), "preflight");
  EXPECT_EQ(first.exit_code, 0) << first.out << first.err;
}

// Two directories under a root with no build files, each a project: init names both and
// writes nothing; started in one of them (or deeper), it takes that one, its commands
// pointed there (make -C, npm --prefix). A root with its own build files wins wherever
// init starts.
TEST(InitShapes, SeveralProjectsUnderTheRootAreNamedAndTheOneInitStartsInIsTaken) {
  TempDir dir;
  dir.Write("tool/Makefile", "all:\n\ttrue\ncheck:\n\ttrue\n");
  dir.Write("web/package.json", "{\"name\": \"web\", \"scripts\": {\"test\": \"node t.js\"}}\n");
  dir.Write("web/src/t.js", "");
  dir.Write(".hidden/meson.build", "project('x')\n");
  dir.Write("build/meson.build", "project('x')\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());  // the root is the repository's
  auto several = RunProofgate(dir.path(), "init");
  EXPECT_EQ(several.exit_code, 2) << several.out << several.err;
  EXPECT_NE(
      several.err.find("one in each of tool/ (Make), web/ (npm): run init in the one to gate"),
      std::string::npos)
      << several.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/preflight/suites.json"));
  auto web = RunProofgate(dir.path(), "-C " + dir.path() + "/web/src init");
  ASSERT_EQ(web.exit_code, 0) << web.out << web.err;
  EXPECT_NE(web.out.find("note: the build files are in web/"), std::string::npos) << web.out;
  EXPECT_NE(dir.Read("preflight/suites.json").find(R"("run": ["npm", "--prefix", "web", "test"])"),
            std::string::npos)
      << dir.Read("preflight/suites.json");
  std::filesystem::remove(dir.path() + "/preflight/suites.json");
  auto tool = RunProofgate(dir.path(), "-C " + dir.path() + "/tool init");
  ASSERT_EQ(tool.exit_code, 0) << tool.out << tool.err;
  EXPECT_NE(dir.Read("preflight/suites.json").find(R"("run": ["make", "-C", "tool", "check"])"),
            std::string::npos)
      << dir.Read("preflight/suites.json");
  std::filesystem::remove(dir.path() + "/preflight/suites.json");
  dir.Write("package.json", "{\"name\": \"root\", \"scripts\": {\"test\": \"node t.js\"}}\n");
  auto root = RunProofgate(dir.path(), "-C " + dir.path() + "/tool init");
  ASSERT_EQ(root.exit_code, 0) << root.out << root.err;
  EXPECT_NE(dir.Read("preflight/suites.json").find(R"("run": ["npm", "test"])"), std::string::npos)
      << dir.Read("preflight/suites.json");
}

// npm: `npm test` alone, or after `npm ci` where a lockfile pins what it installs.
TEST(InitShapes, AnNpmProjectRunsCiBeforeItsTestScriptOnlyWithALockfile) {
  for (bool locked : {false, true}) {
    TempDir dir;
    dir.Write("package.json", "{\"name\": \"calc\", \"scripts\": {\"test\": \"node test.js\"}}\n");
    if (locked) dir.Write("package-lock.json", "{\"lockfileVersion\": 3}\n");
    auto init = RunProofgate(dir.path(), "init");
    ASSERT_EQ(init.exit_code, 0) << init.err;
    EXPECT_NE(init.out.find("init: a npm project"), std::string::npos) << init.out;
    std::string suites = dir.Read("preflight/suites.json");
    std::string test = locked ? R"("test": {"run": ["npm", "test"], "needs": ["install"]})"
                              : R"("test": {"run": ["npm", "test"]})";
    EXPECT_NE(suites.find(test), std::string::npos) << suites;
    EXPECT_EQ(suites.find(R"("install": {"run": ["npm", "ci"]})") != std::string::npos, locked)
        << suites;
  }
}

}  // namespace
}  // namespace pg
