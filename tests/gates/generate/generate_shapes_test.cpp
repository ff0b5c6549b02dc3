// Generated and declared mutants on projects that are not CMake + ctest: a Make project built in
// its own tree under bear and tested by `make test`, a Meson project, and a tree that says
// nothing of how it is built.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

bool OnPath(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

// add() is checked by the test program; twice() only at 0, so its mutants survive. The test
// program and its objects are built in the tree, as Make projects do; git ignores neither.
void MakeMakeProject(const TempDir& dir) {
  dir.Write("Makefile", "all: t\nt: calc.c t.c\n\tcc -o t calc.c t.c\ntest: t\n\t./t\n");
  dir.Write("calc.c",
            "int add(int a, int b) { return a + b; }\nint twice(int a) { return a * 2; }\n");
  dir.Write("t.c", R"(#include <stdio.h>
int add(int, int);
int twice(int);
int main(void) {
  if (add(2, 3) != 5 || twice(0) != 0) { puts("FAIL"); return 1; }
  return 0;
}
)");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "calc").ok());
}

const Json* ResultWith(const Json& doc, const std::string& original,
                       const std::string& replacement) {
  for (const Json& r : doc.at("results")) {
    const Json& g = r.at("generated");
    if (g.at("original") == original && g.at("replacement") == replacement) return &r;
  }
  return nullptr;
}

TEST(GenerateShapes, AMakeProjectBuiltUnderBearGetsItsMutantsJudgedByItsTestCommand) {
  if (!OnPath("bear") || !OnPath("cc"))
    GTEST_SKIP() << "needs bear and cc (scripts/install-deps installs them)";
  TempDir dir;
  MakeMakeProject(dir);
  auto init = RunProofgate(dir.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  ASSERT_NE(dir.Read("preflight/suites.json").find(R"("build_command": ["bear", "--", "make"])"),
            std::string::npos)
      << dir.Read("preflight/suites.json");
  auto run = RunProofgate(dir.path(), "mutate --generate calc.c --operators arithmetic --json");
  EXPECT_EQ(run.exit_code, 1) << "twice()'s mutants survive\n" << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  const Json* minus = ResultWith(doc->root(), "+", "-");
  ASSERT_TRUE(minus) << run.out;
  EXPECT_EQ(minus->at("outcome"), "killed") << run.out;
  EXPECT_EQ(minus->at("observed"), "the test command exited 2") << "make reports ./t's failure";
  EXPECT_EQ(minus->at("generated").at("tests"), Json::array({"(test_command)"}));
  const Json* divide = ResultWith(doc->root(), "*", "/");
  ASSERT_TRUE(divide) << run.out;
  EXPECT_EQ(divide->at("outcome"), "survived") << run.out;
  EXPECT_NE(run.err.find("each mutant runs the whole test command"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("run for every mutant"), std::string::npos)
      << "no notice about tests no build describes\n"
      << run.err;
}

// A Meson project as `init` sets it up: a declared catalog names meson's test (its JUnit report
// copied into {results}); generated mutants come from the database Meson writes, whose file
// paths are relative to its directory.
TEST(GenerateShapes, AMesonProjectsDeclaredAndGeneratedMutantsRunThroughMesonTest) {
  if (!OnPath("meson") || !OnPath("cc"))
    GTEST_SKIP() << "needs meson and cc (scripts/install-deps installs them)";
  TempDir dir;
  dir.Write("meson.build",
            "project('calc', 'c')\nlib = static_library('calc', 'calc.c')\n"
            "test('calc', executable('t', 't.c', link_with: lib))\n");
  dir.Write(".gitignore", "build/\n");
  dir.Write("mutations/m.json",
            R"({"schema_version": 1, "mutations": [{"id": "M1", "file": "calc.c",
 "find": "a + b", "replace": "a - b", "expect": [{"test": "calc", "message": "^FAIL$"}]}]})");
  MakeMakeProject(dir);
  auto init = RunProofgate(dir.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  ASSERT_TRUE(git::CommitAll(dir.path(), "init").ok());
  auto declared = RunProofgate(dir.path(), "mutate");
  EXPECT_EQ(declared.exit_code, 0) << declared.out << declared.err;
  EXPECT_NE(declared.out.find("M1  red-as-claimed"), std::string::npos)
      << declared.out << declared.err;
  auto run = RunProofgate(dir.path(), "mutate --generate calc.c --operators arithmetic --json");
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  const Json* minus = ResultWith(doc->root(), "+", "-");
  ASSERT_TRUE(minus) << run.out << run.err;
  EXPECT_EQ(minus->at("outcome"), "killed");
  EXPECT_EQ(minus->at("observed"), "failed: calc") << "the case meson's report names";
}

// open-source-parsers/jsoncpp's shape: the build runs the test program it links (a POST_BUILD
// step), so a mutant built alone that breaks add() fails its build, not at the compiler: it is
// killed, as its schemata run says, not unviable. twice()'s survive either way.
TEST(GenerateShapes, ABuildThatRunsItsOwnTestsKillsTheMutantItBuilt) {
  TempDir dir;
  dir.Write("CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.20)\nproject(calc C)\nenable_testing()\n"
            "add_library(calc calc.c)\nadd_executable(t t.c)\ntarget_link_libraries(t calc)\n"
            "add_custom_command(TARGET t POST_BUILD COMMAND t)\nadd_test(NAME t COMMAND t)\n");
  dir.Write(".gitignore", "build/\n");
  MakeMakeProject(dir);
  ASSERT_EQ(RunProofgate(dir.path(), "init").exit_code, 0);
  ASSERT_TRUE(git::CommitAll(dir.path(), "init").ok());
  std::string alone;
  for (const std::string mode : {"--no-schemata", ""}) {
    auto run =
        RunProofgate(dir.path(), "mutate --generate calc.c --operators arithmetic --json " + mode);
    if (alone.empty()) alone = run.out;
    auto doc = JsonSource::Parse("report", run.out);
    ASSERT_TRUE(doc.ok()) << mode << "\n" << run.out << run.err;
    const Json* minus = ResultWith(doc->root(), "+", "-");
    ASSERT_TRUE(minus) << run.out << run.err;
    EXPECT_EQ(minus->at("outcome"), "killed") << mode << "\n" << minus->dump();
    const Json* divide = ResultWith(doc->root(), "*", "/");
    ASSERT_TRUE(divide) << run.out << run.err;
    EXPECT_EQ(divide->at("outcome"), "survived") << mode << "\n" << divide->dump();
  }
  EXPECT_NE(alone.find("the build failed running what it built: FAILED: t\""), std::string::npos)
      << alone;
}

// A Make project whose suites.json has legs only: every verb that builds a scratch copy says
// what to set instead of running CMake there.
TEST(MutateShapes, ATreeWithoutCMakeAndWithoutCommandsIsToldWhatToSet) {
  TempDir dir;
  dir.Write("preflight/suites.json",
            R"({"schema_version": 1, "legs": {"test": {"run": ["make", "test"]}},
 "suites": {"default": ["test"]}})");
  dir.Write("mutations/m.json",
            R"({"schema_version": 1, "mutations": [{"id": "M1", "file": "calc.c",
 "find": "a + b", "replace": "a - b", "expect": [{"test": "t"}]}]})");
  MakeMakeProject(dir);
  for (const std::string args : {"mutate", "mutate --generate calc.c", "prove --base HEAD"}) {
    auto run = RunProofgate(dir.path(), args);
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.out << run.err;
    EXPECT_NE(run.err.find("no CMakeLists.txt at the root, and neither"), std::string::npos)
        << args << "\n"
        << run.err;
    EXPECT_NE(
        run.err.find(
            R"(set "commands": {"configure": [...], "build_command": [...], "test_command": [...]})"),
        std::string::npos)
        << args << "\n"
        << run.err;
  }
}

}  // namespace
}  // namespace pg
