// `proofgate mutate --generate` on a real CMake + GoogleTest project: which tests reach a file,
// what a run reports, and what it refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "gates/config/json_source.h"
#include "gates/generate/test_reach.h"
#include "gates/git/git.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

// range.cpp is reached by range_test, unused.cpp by unused_test, and a shell test reaches
// everything (proofgate cannot see what it runs).
void MakeRangeProject(const TempDir& dir) {
  dir.Write("CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.20)
project(gen CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(GTest REQUIRED)
enable_testing()
add_library(range src/range.cpp src/distance.cpp)
target_include_directories(range PUBLIC src)
add_library(unused src/unused.cpp)
add_executable(range_test tests/range_test.cpp)
target_link_libraries(range_test range GTest::gtest GTest::gtest_main)
add_test(NAME range_test COMMAND range_test)
add_executable(unused_test tests/unused_test.cpp)
target_link_libraries(unused_test unused GTest::gtest GTest::gtest_main)
add_test(NAME unused_test COMMAND unused_test)
add_test(NAME script COMMAND sh -c "exit 0")
)");
  dir.Write("src/range.h", "bool InRange(int v, int lo, int hi);\n");
  dir.Write(
      "src/range.cpp",
      "#include \"range.h\"\nbool InRange(int v, int lo, int hi) { return v >= lo && v <= hi; }\n");
  dir.Write("src/unused.cpp", "int Unused(int a) { return a + 1; }\n");
  // `b - a` of two pointers: its mutant `b + a` does not compile, in a schema or alone. In a
  // template, where only the instantiation knows the operands are pointers, it is a mutant.
  dir.Write("src/distance.cpp",
            "template <class It> long Gap(It a, It b) {\n  return b - a;\n}\n"
            "long Distance(const int* a, const int* b) { return Gap(a, b); }\n");
  dir.Write("tests/range_test.cpp", R"(#include <gtest/gtest.h>
#include "range.h"
TEST(Range, Inside) { EXPECT_TRUE(InRange(0, 0, 3)); }
TEST(Range, Outside) { EXPECT_FALSE(InRange(4, 0, 3)); }
long Distance(const int* a, const int* b);
TEST(Range, Distance) { int v[4]; EXPECT_EQ(Distance(v, v + 3), 3); }
)");
  dir.Write("tests/unused_test.cpp", R"(#include <gtest/gtest.h>
int Unused(int a);
TEST(Unused, AddsOne) { EXPECT_EQ(Unused(1), 2); }
)");
  dir.Write(".gitignore", "build/\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "range").ok());
}

const Json* ResultWith(const Json& doc, const std::string& original) {
  for (const Json& r : doc.at("results")) {
    if (r.contains("generated") && r.at("generated").at("original") == original) return &r;
  }
  return nullptr;
}

// --no-reach: every test whose executable links the file runs (what reach then narrows).
TEST(GenerateCli, KilledAndSurvivedAreTheVerdictsOfTheTestsThatReachTheFile) {
  TempDir dir;
  MakeRangeProject(dir);
  auto before = git::WorkingTreeHash(dir.path());
  auto run = RunProofgate(
      dir.path(), "mutate --generate src/range.cpp --operators relational --json --no-reach");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  ASSERT_EQ(doc->root().at("results").size(), 2u) << run.out;
  const Json* ge = ResultWith(doc->root(), ">=");
  const Json* le = ResultWith(doc->root(), "<=");
  ASSERT_TRUE(ge && le) << run.out;
  EXPECT_EQ(ge->at("outcome"), "killed") << "InRange(0, 0, 3) is false with v > lo";
  EXPECT_EQ(le->at("outcome"), "survived") << "no test has v == hi";
  EXPECT_EQ(le->at("generated").at("tests"), Json::array({"range_test", "script"}))
      << "unused_test cannot reach it";
  EXPECT_EQ(le->at("generated").at("line"), 2);
  EXPECT_DOUBLE_EQ(doc->root().at("mutation_score").get<double>(), 0.5);
  EXPECT_EQ(git::WorkingTreeHash(dir.path()).value(), before.value())
      << "the user's tree is never written";
  auto table = RunProofgate(dir.path(), "mutate --generate src/range.cpp --operators relational");
  EXPECT_NE(table.out.find("mutation score = killed / (killed + survived) = 1 / 2 = 50.0%"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("+bool InRange(int v, int lo, int hi) { return v >= lo && v < hi; }\n"),
            std::string::npos)
      << "a survivor is shown with its diff:\n"
      << table.out;
}

TEST(GenerateCli, SarifListsEachSurvivorAtItsPlace) {
  TempDir dir;
  MakeRangeProject(dir);
  auto run = RunProofgate(
      dir.path(), "mutate --generate src/range.cpp --operators relational --sarif out.sarif");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto doc = JsonSource::Parse("out.sarif", dir.Read("out.sarif"));
  ASSERT_TRUE(doc.ok()) << dir.Read("out.sarif");
  EXPECT_EQ(doc->root().at("version"), "2.1.0");
  const Json& results = doc->root().at("runs").at(0).at("results");
  ASSERT_EQ(results.size(), 1u) << "the survivor only, not the killed mutant: " << results.dump(2);
  const Json& where = results.at(0).at("locations").at(0).at("physicalLocation");
  EXPECT_EQ(where.at("artifactLocation").at("uri"), "src/range.cpp");
  EXPECT_EQ(where.at("region").at("startLine"), 2);
  EXPECT_EQ(where.at("region").at("startColumn"), 59) << "the <= of v <= hi";
  EXPECT_EQ(results.at(0).at("ruleId"), "surviving-mutant");
  EXPECT_NE(results.at(0)
                .at("partialFingerprints")
                .at("proofgateMutantId/v1")
                .get<std::string>()
                .find("src/range.cpp:2:59:relational:"),
            std::string::npos);
}

TEST(GenerateCli, SummaryShowsTheScoreAndEachSurvivorsDiff) {
  TempDir dir;
  MakeRangeProject(dir);
  auto run = RunProofgate(dir.path(),
                          "mutate --generate src/range.cpp --operators relational --summary s.md");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  std::string md = dir.Read("s.md");
  EXPECT_NE(md.find("## proofgate mutate: fail"), std::string::npos) << md;
  EXPECT_NE(md.find("Mutation score (killed / (killed + survived)): 50.0%"), std::string::npos)
      << md;
  EXPECT_NE(md.find("\n| mutant | outcome | change | why |\n|---|---|---|---|\n| src/range.cpp:"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("```diff\n--- a/src/range.cpp\n+++ b/src/range.cpp\n@@ -2,1 +2,1 @@\n"),
            std::string::npos)
      << md;
}

// `return {}` in Make's body default-constructs It, whose defaulted constructor -Weffc++ then
// rejects on its own line, outside every point (as in cxxopts' header). Halving the file's
// points finds that one: it gets a build of its own, the file keeps its other points.
// `other`: a second library, its file schematized beside lib's; `lib`: lib's file.
void MakeEffcProject(TempDir& dir, bool other, const std::string& lib = "src/lib.cpp") {
  std::string libs = other ? "add_library(other src/other.cpp)\n" : "";
  dir.Write("CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.20)\nproject(it CXX)\nenable_testing()\n"
            "add_library(lib \"" +
                lib + "\")\ntarget_compile_options(lib PRIVATE -Weffc++ -Werror)\n" + libs +
                "add_executable(t tests/t.cpp)\ntarget_link_libraries(t lib" +
                (other ? " other" : "") + ")\nadd_test(NAME t COMMAND t)\n");
  std::string it =
      "#include <string>\nstruct It {\n  It() = default;\n  explicit It(int v) : v_(v), s_() {}\n  "
      "int v_;\n"
      "  std::string s_;\n};\n";
  dir.Write(lib,
            it + "It Make(int v) { return It(v); }\nint Add(int a, int b) { return a + b; }\n");
  if (other) dir.Write("src/other.cpp", "int Sub(int a, int b) { return a - b; }\n");
  dir.Write("tests/t.cpp", it + "It Make(int v);\nint Add(int a, int b);\n" +
                               (other ? "int Sub(int a, int b);\n" : "") +
                               "int main() { return Make(2).v_ == 2 && Add(1, 2) == 3" +
                               (other ? " && Sub(3, 1) == 2" : "") + " ? 0 : 1; }\n");
  dir.Write(".gitignore", "build/\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "it").ok());
}

TEST(GenerateCli, AnErrorOutsideEveryPointCostsTheFileOnlyThePointThatCausesIt) {
  TempDir dir;
  MakeEffcProject(dir, false);
  auto run = RunProofgate(dir.path(), "mutate --generate src --operators return,arithmetic --json");
  EXPECT_NE(run.err.find("schemata: 2 mutant(s) in one build of 1 schematized file(s)"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("1 left to one build each (1 found by halving a file's points"),
            std::string::npos)
      << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  std::map<std::string, const Json*> by_line;
  for (const Json& r : doc->root().at("results")) {
    by_line[std::to_string(r.at("generated").at("line").get<int>()) +
            r.at("generated").at("operator").get<std::string>()] = &r;
  }
  ASSERT_EQ(by_line.size(), 3u) << run.out;
  EXPECT_EQ(by_line["8return"]->at("schema"), false) << "Make's `return {}`, the cause";
  EXPECT_EQ(by_line["8return"]->at("outcome"), "unviable") << "its own build has the same error";
  EXPECT_EQ(by_line["9return"]->at("schema"), true);
  EXPECT_EQ(by_line["9arithmetic"]->at("schema"), true);
  EXPECT_EQ(by_line["9arithmetic"]->at("outcome"), "killed");
}

// A file whose name holds a space: `ninja -t inputs` quotes it, and the compiler's places
// hold the space. Its mutants are reached and its schema's error is halved as any other's.
TEST(GenerateCli, AFileWhoseNameHoldsASpaceIsReachedAndItsSchemaSearched) {
  TempDir dir;
  MakeEffcProject(dir, false, "src/my lib.cpp");
  auto run = RunProofgate(dir.path(), "mutate --generate src --operators return,arithmetic --json");
  EXPECT_NE(run.err.find("1 left to one build each (1 found by halving a file's points"),
            std::string::npos)
      << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  std::map<std::string, std::string> outcomes;
  for (const Json& r : doc->root().at("results")) outcomes[r.at("id")] = r.at("outcome");
  ASSERT_EQ(outcomes.size(), 3u) << run.out << run.err;
  EXPECT_EQ(outcomes.begin()->first.rfind("src/my lib.cpp:8:", 0), 0u) << outcomes.begin()->first;
  EXPECT_EQ(outcomes.begin()->second, "unviable");
  EXPECT_EQ(std::next(outcomes.begin())->second, "killed");
  EXPECT_EQ(outcomes.rbegin()->second, "killed");
}

// The halving's probes build lib's object alone: other.cpp, rewritten each round too, is
// compiled by the whole builds only, the first and the last. A later run's one build leaves no
// log of the earlier run's probes beside its own.
TEST(GenerateCli, AHalvingsProbesBuildOnlyWhatFailedAndARunKeepsOnlyItsOwnSchemaLogs) {
  TempDir dir;
  MakeEffcProject(dir, true);
  auto run = RunProofgate(dir.path(), "mutate --generate src --operators return,arithmetic");
  ASSERT_NE(run.err.find("found by halving a file's points"), std::string::npos) << run.err;
  std::string logs = dir.path() + "/.git/proofgate/mutate/w0/logs/schema-build-";
  int builds = 0;
  while (std::filesystem::exists(logs + std::to_string(builds) + ".log")) ++builds;
  logs.erase(0, dir.path().size() + 1);
  ASSERT_GE(builds, 3) << "a whole build, a probe at least, the last build";
  for (int b = 0; b < builds; ++b) {
    std::string log = dir.Read(logs + std::to_string(b) + ".log");
    bool whole = b == 0 || b == builds - 1;
    EXPECT_NE(log.find("lib.cpp.o"), std::string::npos) << b << ": " << log;
    EXPECT_EQ(log.find("other.cpp.o") != std::string::npos, whole) << b << ": " << log;
  }
  auto again = RunProofgate(dir.path(), "mutate --generate src --operators arithmetic");
  EXPECT_NE(again.err.find("schemata: 2 mutant(s) in one build"), std::string::npos) << again.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/" + logs + "0.log"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/" + logs + "1.log"))
      << "the first run's probe";
}

// `proofgate init` writes a CMake configure without the compile database libclang reads: a
// generated run asks for it anyway.
TEST(GenerateCli, ASuitesConfigureThatDoesNotExportCompileCommandsStillGetsThem) {
  TempDir dir;
  MakeRangeProject(dir);
  testing::WriteConfigure(dir, R"(["cmake", "-S", "{tree}", "-B", "{build}", "-G", "Ninja"])");
  auto run =
      RunProofgate(dir.path(), "mutate --generate src/range.cpp --operators relational --list");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("src/range.cpp:2:"), std::string::npos) << run.out << run.err;
}

// The schemata's run with no mutant on is the baseline: the tests run once before the mutants,
// not once on the unmutated tree and again in the schemata. `script` runs for every mutant and
// notes each run (--no-reach: reach would leave it out, as it executes no point); the killed
// mutant stops at range_test, first in ctest's order.
TEST(GenerateCli, ASchemataRunPaysForOneBaselineTestRun) {
  TempDir dir, out;
  MakeRangeProject(dir);
  std::string cmake = dir.Read("CMakeLists.txt");
  cmake.replace(cmake.find("sh -c \"exit 0\""), 14,
                "sh -c \"echo run >> " + out.path() + "/runs\"");
  dir.Write("CMakeLists.txt", cmake);
  ASSERT_TRUE(git::CommitAll(dir.path(), "count the runs").ok());
  auto run =
      RunProofgate(dir.path(), "mutate --generate src/range.cpp --operators relational --no-reach");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("in the schemata with no mutant on"), std::string::npos) << run.err;
  EXPECT_EQ(out.Read("runs"), "run\nrun\n") << "the baseline, then the survivor's run";
}

// A red tree is still a red baseline when the schemata are what ran first: the unmutated tree's
// own run says so, naming the failing case (not its ctest test), and no mutant runs.
TEST(GenerateCli, ARedTreeStopsAsARedBaselineThoughTheSchemataRanFirst) {
  TempDir dir;
  MakeRangeProject(dir);
  dir.Write("tests/range_test.cpp", dir.Read("tests/range_test.cpp") +
                                        "TEST(Range, Red) { EXPECT_TRUE(InRange(9, 0, 3)); }\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "red").ok());
  auto run =
      RunProofgate(dir.path(), "mutate --generate src/range.cpp --operators relational --json");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  EXPECT_NE(doc->root()
                .at("baseline_problem")
                .get<std::string>()
                .find("Range.Red fails on the unmutated tree"),
            std::string::npos)
      << run.out;
  EXPECT_TRUE(doc->root().at("results").empty()) << run.out;
}

// CMake's default generator has no `ninja -t inputs`: its file API says what each test links.
TEST(GenerateCli, AMakefilesBuildSelectsTestsThroughCmakesFileApi) {
  TempDir dir;
  MakeRangeProject(dir);
  testing::WriteConfigure(dir,
                          R"(["cmake", "-S", "{tree}", "-B", "{build}", "-G", "Unix Makefiles"])");
  auto run = RunProofgate(
      dir.path(), "mutate --generate src/range.cpp --operators relational --json --no-reach");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  const Json* le = ResultWith(doc->root(), "<=");
  ASSERT_TRUE(le) << run.out;
  EXPECT_EQ(le->at("generated").at("tests"), Json::array({"range_test", "script"}))
      << "unused_test cannot reach it";
  EXPECT_NE(
      run.err.find(
          "1 test(s) run for every mutant: not an executable the build describes (first: script)"),
      std::string::npos)
      << run.err;
}

TEST(GenerateCli, InDiffListsOnlyMutantsOnChangedLinesAndNoneChecksNothing) {
  TempDir dir;
  MakeRangeProject(dir);
  dir.Write("src/range.cpp", dir.Read("src/range.cpp") + "int Twice(int v) { return v * 2; }\n");
  auto listed = RunProofgate(dir.path(), "mutate --generate --in-diff HEAD --list");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  size_t lines = 0;
  for (size_t at = 0; (at = listed.out.find('\n', at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, 3u) << "the body of Twice, its * and its 2 only:\n" << listed.out;
  EXPECT_EQ(listed.out.find("src/range.cpp:2:"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("src/range.cpp:3:29:arithmetic:"), std::string::npos) << listed.out;
  auto none = RunProofgate(dir.path(), "mutate --generate --in-diff HEAD --operators call");
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_NE(none.err.find("checked nothing"), std::string::npos) << none.err;
  EXPECT_EQ(
      RunProofgate(dir.path(), "mutate --generate --in-diff HEAD --operators call --allow-empty")
          .exit_code,
      0);
}

// Outcome by id, and whether it ran in the schemata.
std::map<std::string, std::pair<std::string, bool>> Outcomes(const std::string& json) {
  std::map<std::string, std::pair<std::string, bool>> out;
  auto doc = JsonSource::Parse("report", json);
  if (!doc.ok()) return out;
  for (const Json& r : doc->root().at("results"))
    out[r.at("id")] = {r.at("outcome"), r.at("schema")};
  return out;
}

TEST(GenerateCli, SchemataGiveEachMutantTheOutcomeOfItsOwnBuild) {
  TempDir dir;
  MakeRangeProject(dir);
  auto schema = RunProofgate(dir.path(), "mutate --generate src --json");
  auto alone = RunProofgate(dir.path(), "mutate --generate src --json --no-schemata");
  auto with = Outcomes(schema.out), without = Outcomes(alone.out);
  ASSERT_GE(with.size(), 8u) << schema.out << schema.err;
  ASSERT_EQ(with.size(), without.size());
  size_t in_schema = 0;
  for (const auto& [id, outcome] : with) {
    EXPECT_EQ(outcome.first, without[id].first) << id;
    EXPECT_FALSE(without[id].second) << id << " ran alone with --no-schemata";
    in_schema += outcome.second ? 1 : 0;
    if (id.find("src/distance.cpp:2:") == 0 && id.find(":arithmetic:") != std::string::npos) {
      EXPECT_FALSE(outcome.second) << "its schema did not compile: it ran alone";
      EXPECT_EQ(outcome.first, "unviable");
    }
  }
  EXPECT_EQ(in_schema, with.size() - 1) << "all but the pointer difference ran in the schemata\n"
                                        << schema.err;
  EXPECT_NE(schema.err.find("left to one build each"), std::string::npos) << schema.err;
}

// Worker 0 searches for the points its schemata can hold (the template's `b + a` fails the
// first build); worker 1 applies what it settled on and builds once.
TEST(GenerateCli, ASecondWorkerBuildsTheSchemataWorkerZeroSettledOnce) {
  TempDir dir;
  MakeRangeProject(dir);
  auto run = RunProofgate(dir.path(), "mutate --generate src --json -j 2");
  ASSERT_FALSE(Outcomes(run.out).empty()) << run.err;
  std::string logs = dir.path() + "/.git/proofgate/mutate/";
  EXPECT_TRUE(std::filesystem::exists(logs + "w0/logs/schema-build-1.log"))
      << "worker 0 needed a second build";
  EXPECT_TRUE(std::filesystem::exists(logs + "w1/logs/schema-build-0.log")) << run.err;
  EXPECT_FALSE(std::filesystem::exists(logs + "w1/logs/schema-build-1.log"))
      << "worker 1 searched again";
}

TEST(GenerateCli, SuitesJsonExcludesFilesFromGeneration) {
  TempDir dir;
  MakeRangeProject(dir);
  auto all = RunProofgate(dir.path(), "mutate --generate src --list");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("src/unused.cpp:1:"), std::string::npos) << all.out;
  dir.Write("preflight/suites.json",
            R"({"schema_version": 1, "legs": {"t": {"run": "true"}}, "suites": {"default": ["t"]},
    "generate": {"exclude": ["src/unused*"]}})");
  auto some = RunProofgate(dir.path(), "mutate --generate src --list");
  ASSERT_EQ(some.exit_code, 0) << some.err;
  EXPECT_EQ(some.out.find("src/unused.cpp"), std::string::npos) << "excluded:\n" << some.out;
  EXPECT_NE(some.out.find("src/range.cpp:2:"), std::string::npos) << some.out;
}

// Tests built only when asked (yaml-cpp's YAML_CPP_BUILD_TESTS): the build registers none, and
// the run says that rather than that no test reaches each file.
TEST(GenerateCli, ABuildThatRegistersNoTestSaysSoAndChecksNothing) {
  TempDir dir;
  MakeRangeProject(dir);
  std::string cmake = dir.Read("CMakeLists.txt");
  dir.Write("CMakeLists.txt",
            cmake.substr(0, cmake.find("enable_testing()")) + "add_library(range src/range.cpp)\n");
  auto run = RunProofgate(dir.path(), "mutate --generate src");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("the build registers no ctest test, so no file is reached"),
            std::string::npos)
      << run.err;
  EXPECT_NE(
      run.err.find("never registers runs through suites.json's \"commands\": {\"test_command\""),
      std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("no test reaches"), std::string::npos) << run.err;
}

TEST(GenerateCli, BadFlagsAreNamedBeforeAnythingBuilds) {
  TempDir dir;
  dir.Write("a.txt", "a\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "a").ok());
  auto bogus = RunProofgate(dir.path(), "mutate --generate --operators relational,bogus");
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("--operators: unknown operator \"bogus\""), std::string::npos)
      << bogus.err;
  auto path = RunProofgate(dir.path(), "mutate --generate nosuch/dir");
  EXPECT_EQ(path.exit_code, 2);
  EXPECT_NE(path.err.find("--generate nosuch/dir: not a file or directory inside"),
            std::string::npos)
      << path.err;
  dir.Write("src/util.py",
            "def f():\n    return 1\n");  // more-itertools: it spoke of compile_commands.json
  auto python = RunProofgate(dir.path(), "mutate --generate src/util.py");
  EXPECT_EQ(python.exit_code, 2);
  EXPECT_NE(python.err.find(
                "--generate src/util.py: mutate --generate makes mutants of C and C++ sources"),
            std::string::npos)
      << python.err;
  auto base = RunProofgate(dir.path(), "mutate --generate --in-diff no-such-ref");
  EXPECT_EQ(base.exit_code, 2);
  EXPECT_NE(base.err.find("--in-diff no-such-ref"), std::string::npos) << base.err;
}

TEST(GenerateReach, OnlyTheTestsWhoseExecutableLinksAFileRunForIt) {
  TempDir dir;
  MakeRangeProject(dir);
  std::string build = dir.path() + "/build";
  ASSERT_EQ(RunCapture({"cmake", "-S", dir.path(), "-B", build, "-G", "Ninja"}, dir.path(), 300)
                ->exit.exit_code,
            0);
  ASSERT_EQ(RunCapture({"cmake", "--build", build}, dir.path(), 600)->exit.exit_code, 0);
  auto listing = RunCapture({"ctest", "--test-dir", build, "--show-only=json-v1"}, dir.path(), 60);
  auto tests = ParseCtestTests(listing->output);
  ASSERT_TRUE(tests.ok());
  std::string range = dir.path() + "/src/range.cpp", unused = dir.path() + "/src/unused.cpp";
  auto reach = TestsReaching(build, *tests, {range, unused});
  ASSERT_TRUE(reach.ok()) << reach.status().message();
  EXPECT_EQ(reach->For(range), (std::vector<std::string>{"range_test", "script"}));
  EXPECT_EQ(reach->For(unused), (std::vector<std::string>{"script", "unused_test"}));
  EXPECT_NE(reach->notice.find("1 test(s) run for every mutant"), std::string::npos)
      << reach->notice;
}

}  // namespace
}  // namespace pg
