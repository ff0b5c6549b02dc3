// Reach (specs/mutate-generate.md): the schemata's green run records which tests execute which
// mutant, and a mutant then runs only those tests, the fastest first; one no test executes
// survives without a run.
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
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

const char kLoop[] = R"(int Twice(int v) { return v * 2; }
int Never(int v) { return v - 1; }
int main(int argc, char** argv) {
  int s = 0;
  for (int i = 0; i < 1000; ++i) s += Twice(i);
  if (argc > 5) s = Never(s);
  return argv[0][0] == 0 ? s : 0;
}
)";

// The arithmetic points of kLoop in a schema built with strict warnings, run once with
// PROOFGATE_REACHED: the points, how many lines the record has and (the start of) what it lists.
std::string Reached(const TempDir& dir, const std::string& name, bool c) {
  std::string file = dir.Write(name, kLoop), cc = c ? "cc" : "c++";
  dir.Write("compile_commands.json", R"([{"directory": ")" + dir.path() + R"(", "command": ")" +
                                         cc + " -c " + file + R"(", "file": ")" + file + R"("}])");
  auto parsed = FindPoints(dir.path(), file, {Operator::kArithmetic});
  if (!parsed.ok()) return parsed.status().message();
  Schema schema{name, c, {}};
  for (const Point& p : parsed->points) {
    schema.points.push_back(SchemaPointOf(p));
    schema.points.back().number = static_cast<int>(schema.points.size());
  }
  dir.Write("schema-" + name, RenderSchema(kLoop, schema, {}).text);
  std::vector<std::string> argv = {
      cc,        "-Wall", "-Wextra", "-Wconversion",  "-Wsign-conversion",
      "-Werror", "-o",    "prog",    "schema-" + name};
  if (!c)
    argv.insert(argv.begin() + 1,
                {"-Wold-style-cast", "-Wzero-as-null-pointer-constant", "-Wuseless-cast"});
  auto built = RunCapture(argv, dir.path(), 120);
  if (!built.ok() || built->exit.exit_code != 0)
    return "no build: " + (built.ok() ? built->output : "");
  std::string path = dir.path() + "/reached-" + name;
  auto ran =
      RunCapture({"env", std::string(kReachVariable) + "=" + path, "./prog"}, dir.path(), 30);
  if (!ran.ok() || ran->exit.exit_code != 0) return "no run";
  std::string listed;
  for (size_t i = 0; i < parsed->points.size(); ++i)
    listed += parsed->points[i].original + " " + std::to_string(i + 1) + "\n";
  std::string record = dir.Read("reached-" + name);
  size_t lines = static_cast<size_t>(std::count(record.begin(), record.end(), '\n'));
  return listed + std::to_string(lines) + " line(s):\n" + record.substr(0, 16);
}

// `v * 2` and `s += …` run a thousand times and are listed once each; `v - 1` never runs.
TEST(GenerateReached, TheSwitchListsEachPointItEvaluatesOnceInCAndCpp) {
  TempDir dir;
  EXPECT_EQ(Reached(dir, "loop.cpp", false), "* 1\n- 2\n+= 3\n2 line(s):\n3\n1\n");
  EXPECT_EQ(Reached(dir, "loop.c", true), "* 1\n- 2\n+= 3\n2 line(s):\n3\n1\n");
}

// Lib.AddSlowly (first in ctest's order and by name) and Lib.Sum reach Add; Lib.Mul and a
// script that runs `tool` reach Mul; nothing reaches Never.
void MakeLibProject(const TempDir& dir) {
  dir.Write("CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.20)
project(reach CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(GTest REQUIRED)
enable_testing()
add_library(lib src/lib.cpp)
add_executable(lib_test tests/lib_test.cpp)
target_link_libraries(lib_test lib GTest::gtest GTest::gtest_main)
add_test(NAME lib_test COMMAND lib_test)
add_executable(tool tests/tool.cpp)
target_link_libraries(tool lib)
add_test(NAME via_script COMMAND sh -c "test \"$($<TARGET_FILE:tool>)\" = 12")
)");
  dir.Write("src/lib.cpp",
            "int Add(int a, int b) { return a + b; }\nint Mul(int a, int b) { return a * b; }\n"
            "int Never(int a) { return a - 1; }\n");
  dir.Write("tests/lib_test.cpp", R"(#include <gtest/gtest.h>
#include <chrono>
#include <thread>
int Add(int a, int b);
int Mul(int a, int b);
TEST(Lib, AddSlowly) { std::this_thread::sleep_for(std::chrono::milliseconds(400)); EXPECT_EQ(Add(2, 2), 4); }
TEST(Lib, Sum) { EXPECT_EQ(Add(1, 2), 3); }
TEST(Lib, Mul) { EXPECT_EQ(Mul(2, 3), 6); }
)");
  dir.Write("tests/tool.cpp",
            "#include <cstdio>\nint Mul(int a, int b);\nint main() { std::printf(\"%d\", Mul(3, "
            "4)); }\n");
  dir.Write(".gitignore", "build/\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "lib").ok());
}

const Json* ResultWith(const Json& doc, const std::string& original) {
  for (const Json& r : doc.at("results")) {
    if (r.at("generated").at("original") == original) return &r;
  }
  return nullptr;
}

std::vector<std::string> Sorted(const Json& tests) {
  std::vector<std::string> out = tests.get<std::vector<std::string>>();
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GenerateReached, AMutantRunsOnlyTheTestsThatExecutedItsPointACtestTestsCasesInOneProcess) {
  TempDir dir;
  MakeLibProject(dir);
  auto run = RunProofgate(dir.path(),
                          "mutate --generate src --operators arithmetic --json --reach-grain case");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  const Json *add = ResultWith(doc->root(), "+"), *mul = ResultWith(doc->root(), "*"),
             *never = ResultWith(doc->root(), "-");
  ASSERT_TRUE(add && mul && never) << run.out;
  EXPECT_EQ(add->at("outcome"), "killed");
  // Both are cases of lib_test (a plain add_test): one process runs them, in the executable's
  // order, where one process each cost a process start per case.
  EXPECT_EQ(add->at("observed"), "failed: Lib.AddSlowly");
  EXPECT_EQ(add->at("generated").at("tests"), Json::array({"Lib.Sum", "Lib.AddSlowly"}));
  std::vector<std::string> logs;
  for (const auto& f : std::filesystem::directory_iterator(add->at("logs").get<std::string>())) {
    if (f.path().filename().string().rfind("test", 0) == 0)
      logs.push_back(f.path().filename().string());
  }
  EXPECT_EQ(logs, std::vector<std::string>{"test.log"}) << "one test process for the two cases";
  std::string folder = add->at("id").get<std::string>();  // its id's '/' and ':' made '_'
  std::replace_if(
      folder.begin(), folder.end(), [](char c) { return c == '/' || c == ':'; }, '_');
  EXPECT_EQ(std::filesystem::path(add->at("logs").get<std::string>()).filename().string(), folder);
  EXPECT_EQ(mul->at("outcome"), "killed");
  EXPECT_EQ(Sorted(mul->at("generated").at("tests")),
            (std::vector<std::string>{"Lib.Mul", "via_script"}))
      << "a process the script spawned records for the script";
  EXPECT_EQ(never->at("outcome"), "survived");
  EXPECT_TRUE(never->at("generated").at("tests").empty()) << never->dump();
  EXPECT_EQ(never->at("test_s"), 0.0) << "no test ran for it";
  EXPECT_NE(never->at("detail").get<std::string>().find("no test reached it"), std::string::npos);
}

// lib_test's three cases, recorded whole when two points (Add's +, Mul's *) cannot save what a
// split costs, case by case when Lib.AddSlowly takes 3 s and every operator's points reach it.
TEST(GenerateReached, CasesAreRecordedOneByOneOnlyWhereThatPays) {
  TempDir dir;
  MakeLibProject(dir);
  auto cheap = RunProofgate(dir.path(), "mutate --generate src --operators arithmetic --json");
  auto doc = JsonSource::Parse("report", cheap.out);
  ASSERT_TRUE(doc.ok()) << cheap.out << cheap.err;
  const Json* add = ResultWith(doc->root(), "+");
  ASSERT_TRUE(add) << cheap.out;
  EXPECT_EQ(add->at("generated").at("tests"), Json::array({"lib_test"})) << cheap.err;
  EXPECT_NE(
      cheap.err.find("each alone to record which mutants it reaches (2 whole, 0 case by case)"),
      std::string::npos)
      << cheap.err;
  std::string test = dir.Read("tests/lib_test.cpp");
  test.replace(test.find("milliseconds(400)"), 17, "seconds(3)");
  dir.Write("tests/lib_test.cpp", test);
  ASSERT_TRUE(git::CommitAll(dir.path(), "slow").ok());
  auto slow =
      RunProofgate(dir.path(), "mutate --generate src --operators arithmetic,return --json");
  doc = JsonSource::Parse("report", slow.out);
  ASSERT_TRUE(doc.ok()) << slow.out << slow.err;
  add = ResultWith(doc->root(), "+");
  ASSERT_TRUE(add) << slow.out;
  EXPECT_EQ(add->at("generated").at("tests"), Json::array({"Lib.Sum", "Lib.AddSlowly"}))
      << slow.err;
  EXPECT_NE(slow.err.find("(1 whole, 1 case by case)"), std::string::npos) << slow.err;
  auto kept = RunProofgate(
      dir.path(), "mutate --generate src --operators arithmetic,return --json --reach-grain ctest");
  EXPECT_NE(kept.err.find("(2 whole, 0 case by case)"), std::string::npos) << kept.err;
  EXPECT_EQ(RunProofgate(dir.path(), "mutate --generate src --reach-grain cases").exit_code, 2);
}

// Lib.SlowOnce sleeps 3 s the first time only: the first recording run splits lib_test, a
// second one deciding afresh would not, and the two records would name different units.
TEST(GenerateReached, ASecondRecordingRunKeepsTheFirstOnesGrain) {
  TempDir dir, work;
  MakeLibProject(dir);
  std::string test = dir.Read("tests/lib_test.cpp");
  test.replace(test.find("milliseconds(400)"), 17, "milliseconds(1)");  // slow only the first time
  dir.Write("tests/lib_test.cpp",
            "#include <fstream>\n" + test +
                "TEST(Lib, SlowOnce) {\n  if (std::ifstream(\"slow.marker\")) return;\n"
                "  std::ofstream(\"slow.marker\") << 1;\n"
                "  std::this_thread::sleep_for(std::chrono::seconds(3));\n}\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "slow once").ok());
  auto run =
      RunProofgate(dir.path(),
                   "mutate --generate src --operators arithmetic,return --json --reach-runs 2 "
                   "--work-dir " +
                       work.path() + "/w");
  EXPECT_NE(run.err.find("(1 whole, 1 case by case)"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("reached different points"), std::string::npos) << run.err;
}

// Spin(3) takes 3 ms; `n - 1` → `n + 1` makes it sleep forever. Lib.Slow (3 s, never reaching
// Spin) sets the catalog's limit past 15 s; the mutant's own is its test's time × 5, floored.
TEST(GenerateReached, AMutantsLimitComesFromTheTestsThatReachedIt) {
  TempDir dir;
  MakeLibProject(dir);
  std::string cmake = dir.Read("CMakeLists.txt");
  cmake.replace(cmake.find("src/lib.cpp"), 11, "src/lib.cpp src/spin.cpp");
  dir.Write("CMakeLists.txt", cmake);
  dir.Write("src/spin.cpp",
            "#include <chrono>\n#include <thread>\nint Spin(int n) {\n  while (n > 0) {\n"
            "    std::this_thread::sleep_for(std::chrono::milliseconds(1));\n    n = n - 1;\n  }\n"
            "  return n;\n}\n");
  dir.Write("tests/lib_test.cpp",
            dir.Read("tests/lib_test.cpp") +
                "int Spin(int n);\nTEST(Lib, Spin) { EXPECT_EQ(Spin(3), 0); }\n"
                "TEST(Lib, Slow) { std::this_thread::sleep_for(std::chrono::seconds(3)); }\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "spin").ok());
  auto run = RunProofgate(dir.path(),
                          "mutate --generate src/spin.cpp --operators arithmetic --min-timeout 1 "
                          "--json --reach-grain case");
  EXPECT_EQ(run.exit_code, 3) << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  ASSERT_EQ(doc->root().at("results").size(), 1u) << run.out;
  const Json& spin = doc->root().at("results").at(0);
  EXPECT_EQ(spin.at("outcome"), "timeout") << spin.dump();
  EXPECT_EQ(spin.at("generated").at("tests"), Json::array({"Lib.Spin"}));
  std::string detail = spin.at("detail");
  EXPECT_NE(detail.find("past the mutant's limit of 1 s (5 × its tests' "), std::string::npos)
      << detail;
  EXPECT_NE(detail.find(" in the recording run, at least 1.0s)"), std::string::npos) << detail;
}

// Order.Second needs what Order.First leaves behind: green together, red alone. The run keeps
// its schemata (one build) and gives up reach, saying why.
TEST(GenerateReached, TestsThatOnlyPassTogetherKeepTheSchemataWithoutReach) {
  TempDir dir;
  MakeLibProject(dir);
  dir.Write("tests/lib_test.cpp", dir.Read("tests/lib_test.cpp") +
                                      "static int state = 0;\nTEST(Order, First) { state = 1; }\n"
                                      "TEST(Order, Second) { EXPECT_EQ(state, 1); }\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "order").ok());
  auto run = RunProofgate(dir.path(),
                          "mutate --generate src --operators arithmetic --json --reach-grain case");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("the tests fail one at a time (Order.Second fails on the unmutated tree"),
            std::string::npos)
      << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  const Json* never = ResultWith(doc->root(), "-");
  ASSERT_TRUE(never) << run.out;
  EXPECT_EQ(never->at("schema"), true) << "still in the schemata";
  EXPECT_EQ(never->at("generated").at("tests"), Json::array({"lib_test", "via_script"}))
      << "every test runs";
}

// proofgate mutating itself runs proofgate under a mutant's switch: the inner run's own
// schemata must see neither the outer mutant nor the outer reach file.
TEST(GenerateReached, ARunUnderAnotherRunsSwitchesKeepsItsOwn) {
  TempDir dir, outer;
  MakeLibProject(dir);
  setenv(kMutantVariable, "1", 1);
  setenv(kReachVariable, (outer.path() + "/reached").c_str(), 1);
  auto run = RunProofgate(dir.path(), "mutate --generate src --operators arithmetic --json");
  unsetenv(kMutantVariable);
  unsetenv(kReachVariable);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  EXPECT_EQ(doc->root().at("baseline_problem"), "");
  EXPECT_EQ(run.err.find("read the sources"), std::string::npos)
      << "mutant 1 (Add's +) stayed off in the schemata: " << run.err;
  EXPECT_EQ(doc->root().at("results").size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(outer.path() + "/reached")) << outer.Read("reached");
}

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
