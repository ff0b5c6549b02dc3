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
#include "tests/gates/generate/lib_project.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::MakeLibProject;
using testing::ResultWith;
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

}  // namespace
}  // namespace pg
