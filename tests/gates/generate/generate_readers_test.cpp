// Reach beside tests that read the sources (their survivors judged in their own build), skipped
// tests, timing-dependent reach and where the work directory may be.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "gates/config/json_source.h"
#include "gates/generate/file_points.h"
#include "gates/generate/point.h"
#include "gates/git/git.h"
#include "gates/mutate/reach.h"
#include "gates/mutate/schema.h"
#include "gates/mutate/worker.h"
#include "gates/runner/capture.h"
#include "tests/gates/generate/lib_project.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::MakeLibProject;
using testing::ResultWith;
using testing::RunProofgate;
using testing::TempDir;

// `reader` runs Mul(1, 1), which `*` and `/` agree on, and checks that lib.cpp still says
// `return a * b;`: in the schemata (which rewrite that line) it is red with no mutant on.
TEST(GenerateReached, ATestThatReadsTheSourcesJudgesSurvivorsInTheirOwnBuild) {
  TempDir dir;
  dir.Write("CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.20)
project(reader CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
add_library(lib src/lib.cpp)
add_executable(reader tests/reader.cpp)
target_link_libraries(reader lib)
target_compile_definitions(reader PRIVATE SRC="${CMAKE_SOURCE_DIR}/src/lib.cpp")
add_test(NAME reader COMMAND reader)
)");
  dir.Write("src/lib.cpp", "int Mul(int a, int b) { return a * b; }\n");
  dir.Write("tests/reader.cpp", R"(#include <fstream>
#include <iterator>
#include <string>
int Mul(int a, int b);
int main() {
  std::ifstream in(SRC);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return Mul(1, 1) == 1 && text.find("return a * b;") != std::string::npos ? 0 : 1;
}
)");
  dir.Write(".gitignore", "build/\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "reader").ok());
  auto run = RunProofgate(dir.path(), "mutate --generate src --operators arithmetic --json");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(
      run.err.find(
          "1 test(s) fail in the schemata but pass on the unmutated tree (they read the sources; "
          "first: reader)"),
      std::string::npos)
      << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  ASSERT_EQ(doc->root().at("results").size(), 1u) << run.out;
  const Json& mul = doc->root().at("results").at(0);
  EXPECT_EQ(mul.at("outcome"), "killed")
      << "in its own build, its text is not `return a * b;`: " << mul.dump();
  EXPECT_EQ(mul.at("schema"), false);
  EXPECT_NE(mul.at("detail").get<std::string>().find("survived the schemata's tests"),
            std::string::npos)
      << mul.dump();
}

// lib_test gains `cases` and Lib.ReadsItsSource, which passes while src/lib.cpp holds `text`.
void AddSourceReader(const TempDir& dir, const std::string& cases, const std::string& text) {
  dir.Write(
      "CMakeLists.txt",
      dir.Read("CMakeLists.txt") +
          "target_compile_definitions(lib_test PRIVATE SRC=\"${CMAKE_SOURCE_DIR}/src/lib.cpp\")\n");
  dir.Write("tests/lib_test.cpp", "#include <fstream>\n#include <iterator>\n#include <string>\n" +
                                      dir.Read("tests/lib_test.cpp") + cases +
                                      "TEST(Lib, ReadsItsSource) {\n  std::ifstream in(SRC);\n"
                                      "  std::string text((std::istreambuf_iterator<char>(in)), "
                                      "std::istreambuf_iterator<char>());\n"
                                      "  EXPECT_NE(text.find(\"" +
                                      text + "\"), std::string::npos);\n}\n");
}

// A whole run that fails is recorded case by case whatever it costs: the case that reads the
// sources (red in the schemata only) is then known by name, and lib_test's other cases still
// judge mutants in the schemata.
TEST(GenerateReached, ACaseThatReadsTheSourcesIsFoundByName) {
  TempDir dir;
  MakeLibProject(dir);
  AddSourceReader(dir, "", "return a * b;");
  ASSERT_TRUE(git::CommitAll(dir.path(), "reader").ok());
  auto run = RunProofgate(dir.path(), "mutate --generate src --operators arithmetic --json");
  EXPECT_NE(run.err.find("(they read the sources; first: Lib.ReadsItsSource)"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("(1 whole, 1 case by case)"), std::string::npos) << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  const Json* add = ResultWith(doc->root(), "+");
  ASSERT_TRUE(add) << run.out;
  EXPECT_EQ(add->at("outcome"), "killed");
  EXPECT_EQ(add->at("schema"), true) << add->dump();
}

// Lib.ReadsItsSource is red in the schemata only (it checks Never's text); Order.Second is red
// alone on the unmutated tree as well. Each is judged on its own: the reader is still found,
// and the tests run together in the schemata without it, where before every mutant got a
// build of its own. Its ctest test (one process for its cases) judges survivors in theirs.
TEST(GenerateReached, AReaderIsFoundBesideATestThatIsRedAlone) {
  TempDir dir;
  MakeLibProject(dir);
  AddSourceReader(dir,
                  "static int state = 0;\nTEST(Order, First) { state = 1; }\nTEST(Order, Second) { "
                  "EXPECT_EQ(state, 1); }\n",
                  "return a - 1;");
  ASSERT_TRUE(git::CommitAll(dir.path(), "reader").ok());
  auto run = RunProofgate(dir.path(),
                          "mutate --generate src --operators arithmetic --json --reach-grain case");
  EXPECT_NE(
      run.err.find(
          "1 test(s) fail in the schemata but pass on the unmutated tree (they read the sources; "
          "first: Lib.ReadsItsSource)"),
      std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("the tests fail one at a time (Order.Second fails on the unmutated tree"),
            std::string::npos)
      << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  const Json *mul = ResultWith(doc->root(), "*"), *never = ResultWith(doc->root(), "-");
  ASSERT_TRUE(mul && never) << run.out;
  EXPECT_EQ(mul->at("outcome"), "killed") << "via_script, in the schemata: " << mul->dump();
  EXPECT_EQ(mul->at("schema"), true) << mul->dump();
  EXPECT_EQ(never->at("outcome"), "killed") << "the reader, in its own build: " << never->dump();
  EXPECT_EQ(never->at("schema"), false) << never->dump();
  EXPECT_NE(never->at("detail").get<std::string>().find("survived the schemata's tests"),
            std::string::npos)
      << never->dump();
}

// gtest_discover_tests makes each case a ctest test; a skipped one (a tool missing in the
// scratch tree) has no result, and is no red baseline for mutants found in the build itself.
TEST(GenerateReached, ASkippedTestIsNoRedBaseline) {
  TempDir dir;
  MakeLibProject(dir);
  std::string cmake = dir.Read("CMakeLists.txt");
  const std::string whole = "add_test(NAME lib_test COMMAND lib_test)";
  cmake.replace(cmake.find(whole), whole.size(),
                "include(GoogleTest)\ngtest_discover_tests(lib_test)");
  dir.Write("CMakeLists.txt", cmake);
  dir.Write("tests/lib_test.cpp", dir.Read("tests/lib_test.cpp") +
                                      "TEST(Lib, Skipped) { GTEST_SKIP() << \"no tool\"; }\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "skip").ok());
  for (const char* flags : {"", " --no-schemata"}) {
    auto run = RunProofgate(
        dir.path(), std::string("mutate --generate src --operators arithmetic --json") + flags);
    auto doc = JsonSource::Parse("report", run.out);
    ASSERT_TRUE(doc.ok()) << run.out << run.err;
    EXPECT_EQ(doc->root().at("baseline_problem"), "") << flags;
    EXPECT_EQ(doc->root().at("results").size(), 3u) << flags << run.err;
  }
}

std::map<std::string, std::string> OutcomesOf(const std::string& json) {
  std::map<std::string, std::string> out;
  auto doc = JsonSource::Parse("report", json);
  if (!doc.ok()) return out;
  for (const Json& r : doc->root().at("results")) out[r.at("id")] = r.at("outcome");
  return out;
}

// Every operator's mutants of the project: the same outcome whether each ran every test whose
// executable links lib.cpp or only the tests that executed it.
TEST(GenerateReached, ReachChangesNoOutcome) {
  TempDir dir;
  MakeLibProject(dir);
  auto reach = RunProofgate(dir.path(), "mutate --generate src --json");
  auto all = RunProofgate(dir.path(), "mutate --generate src --json --no-reach");
  auto with = OutcomesOf(reach.out), without = OutcomesOf(all.out);
  ASSERT_GE(with.size(), 6u) << reach.out << reach.err;
  EXPECT_EQ(with, without) << all.err;
  EXPECT_NE(reach.err.find("each alone to record which mutants it reaches"), std::string::npos)
      << reach.err;
  EXPECT_EQ(all.err.find("each alone to record"), std::string::npos) << all.err;
}

// `wander` takes a path that depends on an earlier run (a marker file in its working
// directory, the build's): the first recording run reaches only Inc, a later run only Twice.
// One record leaves Twice's mutant "no test reached it"; two find the test that kills it.
TEST(GenerateReached, ASecondRecordingRunFindsWhatATimingDependentTestReachesLater) {
  TempDir dir;
  dir.Write("CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.20)
project(wander CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
add_library(lib src/lib.cpp)
add_executable(wander tests/wander.cpp)
target_link_libraries(wander lib)
add_test(NAME wander COMMAND wander)
)");
  dir.Write("src/lib.cpp",
            "int Inc(int x) { return x + 1; }\nint Twice(int x) { return x * 2; }\n");
  dir.Write("tests/wander.cpp", R"(#include <fstream>
int Inc(int x);
int Twice(int x);
int main() {
  if (std::ifstream("wander.marker")) return Twice(3) == 6 ? 0 : 1;
  std::ofstream("wander.marker") << "ran\n";
  return Inc(1) == 2 ? 0 : 1;
}
)");
  dir.Write(".gitignore", "build/\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "wander").ok());
  auto twice = [&](const std::string& flags) -> std::string {
    auto run =
        RunProofgate(dir.path(), "mutate --generate src --operators arithmetic --json " + flags);
    auto doc = JsonSource::Parse("report", run.out);
    if (!doc.ok()) return "no report: " + run.err;
    for (const Json& r : doc->root().at("results")) {
      if (r.at("generated").at("original") == "*")
        return r.at("outcome").get<std::string>() + ": " + run.err;
    }
    return "no mutant of Twice: " + run.out;
  };
  TempDir work;
  std::string once = twice("--work-dir " + work.path() + "/once");
  EXPECT_EQ(once.substr(0, once.find(':')), "survived") << once;
  std::string two = twice("--work-dir " + work.path() + "/two --reach-runs 2");
  EXPECT_EQ(two.substr(0, two.find(':')), "killed") << two;
  EXPECT_NE(two.find("1 test(s) reached different points on the 2 recording runs (first: wander)"),
            std::string::npos)
      << two;
  auto both = RunProofgate(dir.path(), "mutate --generate src --reach-runs 2 --no-reach");
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_EQ(RunProofgate(dir.path(), "mutate --generate src --reach-runs 0").exit_code, 2);
}

// Found by the test above's first draft: a work directory inside the tree copied itself into
// each scratch tree until the path was too long. Refused unless git ignores it.
TEST(GenerateReached, AWorkDirectoryInsideTheTreeMustBeIgnored) {
  TempDir dir;
  MakeLibProject(dir);
  auto inside =
      RunProofgate(dir.path(), "mutate --generate src --work-dir " + dir.path() + "/scratch");
  EXPECT_EQ(inside.exit_code, 2) << inside.err;
  EXPECT_NE(inside.err.find("/scratch: inside the repository and not ignored by git"),
            std::string::npos)
      << inside.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/scratch"));
  dir.Write(".gitignore", dir.Read(".gitignore") + "scratch/\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "ignore scratch").ok());
  auto ignored =
      RunProofgate(dir.path(), "mutate --generate src --operators arithmetic --work-dir " +
                                   dir.path() + "/scratch");
  EXPECT_EQ(ignored.exit_code, 1) << ignored.err;  // the lib project's survivor
}

}  // namespace
}  // namespace pg
