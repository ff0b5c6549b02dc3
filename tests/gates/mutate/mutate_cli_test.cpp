// `proofgate mutate` on a real CMake + GoogleTest project in a temp git repository.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "gates/config/json_source.h"
#include "gates/core/sha256.h"
#include "gates/git/git.h"
#include "gates/runner/process.h"
#include "tests/gates/support/mutate_fixture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

std::map<std::string, Json> ById(const std::string& json) {
  std::map<std::string, Json> out;
  Json doc = Json::parse(json, nullptr, false);
  if (doc.is_discarded()) return out;
  for (const Json& r : doc["results"]) out[r["id"].get<std::string>()] = r;
  return out;
}

class MutateCli : public ::testing::Test {
 protected:
  void SetUp() override { testing::MakeCalcProject(dir_); }
  std::string Outcome(const std::map<std::string, Json>& r, const std::string& id) {
    return r.count(id) ? r.at(id)["outcome"].get<std::string>() : "missing";
  }
  TempDir dir_;
};

TEST_F(MutateCli, EveryMutantEndsAsItsCaseClaims) {
  std::string user_calc = dir_.Read("calc.cpp");
  auto run = testing::RunProofgate(dir_.path(), "mutate --json --min-timeout 2 -j 2");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto r = ById(run.out);
  EXPECT_EQ(Outcome(r, "M1"), "red-as-claimed");
  EXPECT_EQ(Outcome(r, "M2"), "red-other");
  EXPECT_EQ(Outcome(r, "M3"), "survived");
  EXPECT_EQ(Outcome(r, "M4"), "unviable");
  EXPECT_EQ(Outcome(r, "M5"), "timeout");
  EXPECT_EQ(Outcome(r, "M6"), "red-other");
  EXPECT_EQ(Outcome(r, "C1"), "green-as-claimed");
  EXPECT_EQ(Outcome(r, "M9"), "red-as-claimed");  // a plain ctest test, read from ctest's JUnit
  ASSERT_EQ(r.size(), 10u) << run.out;
  EXPECT_EQ(r["M1"]["observed"], "clamp at 100");
  EXPECT_NE(r["M2"]["detail"].get<std::string>().find("Clamp.ClampsAtTheTop passed"),
            std::string::npos);
  EXPECT_NE(r["M4"]["detail"].get<std::string>().find("error:"), std::string::npos) << r["M4"];
  EXPECT_NE(r["M6"]["detail"].get<std::string>().find("not /^clamp at 99$/"), std::string::npos)
      << r["M6"];
  EXPECT_EQ(dir_.Read("calc.cpp"), user_calc);  // the user's tree is never written
  for (int k : {0, 1}) {
    EXPECT_EQ(dir_.Read(".git/proofgate/mutate/w" + std::to_string(k) + "/tree/calc.cpp"),
              user_calc);
    EXPECT_TRUE(git::Dirty(testing::ScratchTree(dir_, k)).value().empty());
  }
  std::string spec = dir_.Read("specs/calc.md");
  EXPECT_NE(spec.find("| M1 | calc.cpp | `if (v > hi) return hi;` → `if (v > hi) return v;` | "
                      "Clamp.ClampsAtTheTop | "
                      "red-as-claimed | clamp at 100 |"),
            std::string::npos)
      << spec;
  EXPECT_NE(
      spec.find(
          "| C1 | calc.cpp, calc_test.cpp | M7 + M8 | Add.AddsTwoNumbers | green-as-claimed |"),
      std::string::npos);
}

// A catalog's test reads an ignored, installed file (as oracle tests read node_modules): the
// scratch tree has it only through `carry`.
TEST(MutateCarry, ACatalogsCarriedPathsAreThereForItsTests) {
  TempDir dir;
  testing::MakeShellProject(dir);
  dir.Write(".gitignore", "deps/\n");
  dir.Write("deps/want.txt", "limit 100\n");
  dir.Write("test.sh", R"X(#!/bin/sh
tree=$1; out=$2/carry_test.json
want=$(cat "$tree/deps/want.txt" 2>/dev/null || echo "no deps")
if grep -qx "$want" "$tree/calc.txt"; then f=''; else f=', "failures": [{"failure": "t.sh:1\nwant '"$want"'"}]'; fi
printf '{"testsuites": [{"name": "Calc", "testsuite": [{"name": "Limit", "status": "RUN"%s}]}]}\n' "$f" > "$out"
)X");
  std::filesystem::remove(dir.path() + "/mutations/shell.json");
  dir.Write("mutations/carry.json", R"X({ "schema_version": 1, "carry": ["deps"],
  "configure": ["true"], "build_command": ["true"], "test_command": ["sh", "{tree}/test.sh", "{tree}", "{results}"],
  "mutations": [ { "id": "S1", "file": "calc.txt", "find": "limit 100", "replace": "limit 99",
                   "expect": [{ "test": "Calc.Limit", "message": "^want limit 100$" }] } ] })X");
  ASSERT_TRUE(git::CommitAll(dir.path(), "Carry deps").ok());
  auto run = testing::RunProofgate(dir.path(), "mutate --json");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  auto r = ById(run.out);
  EXPECT_EQ(r.count("S1") ? r["S1"]["outcome"].get<std::string>() : "missing", "red-as-claimed")
      << run.err;
}

// The status line names the step a worker is in by its log's name, less ".log". The line is
// redrawn under each result line, and a mutant's last step before its result is the build that
// restores the scratch tree: "M1 restore-build" is drawn however fast each step ran (a
// periodic redraw would catch "M1 build" only where the build outlasts its period).
TEST_F(MutateCli, TheStatusLineNamesAMutantsStepWithoutItsLogSuffix) {
  auto run = testing::RunProofgate(dir_.path(), "mutate --progress tty --no-spec-update --id M1");
  EXPECT_NE(run.err.find("1/1 mutants done · M1 restore-build "), std::string::npos) << run.err;
}

// specs/exit-codes.md: a mutant's timeout ranks as a leg's does, above contention, below failure.
TEST_F(MutateCli, AMutantThatOnlyTimesOutExitsThreeAsALegTimeoutDoes) {
  auto run = testing::RunProofgate(dir_.path(), "mutate --min-timeout 2 --id M5");
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_NE(run.out.find("verdict: timeout (1 mutants"), std::string::npos) << run.out;
}

// The most common CMake shape: one ctest test runs a whole gtest executable. Expected tests
// are still gtest case names; the map sends them to that ctest test with a GTEST_FILTER.
TEST_F(MutateCli, CasesInsideOneCtestTestPerExecutableAreExpectedByTheirNames) {
  std::string cmake = dir_.Read("CMakeLists.txt");
  cmake.replace(cmake.find("gtest_discover_tests(calc_test)"), 31,
                "add_test(NAME calc_test COMMAND calc_test)");
  dir_.Write("CMakeLists.txt", cmake);
  ASSERT_TRUE(git::CommitAll(dir_.path(), "one ctest test for the executable").ok());
  auto run = testing::RunProofgate(
      dir_.path(), "mutate --json --no-spec-update --id M1 --id M3 --id C1 --id M9");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;  // M3 survives, as in the discovered layout
  auto r = ById(run.out);
  EXPECT_EQ(Outcome(r, "M1"), "red-as-claimed") << run.out << run.err;
  EXPECT_EQ(r["M1"]["observed"], "clamp at 100");
  EXPECT_EQ(Outcome(r, "M3"), "survived");
  EXPECT_EQ(Outcome(r, "C1"), "green-as-claimed");
  EXPECT_EQ(Outcome(r, "M9"), "red-as-claimed");  // the plain ctest test beside it
}

// A catalog may document a hole: M3 survives and says so; M1 is killed, so claiming that it
// survives is out of date, and the run says to update the catalog.
TEST_F(MutateCli, ADocumentedSurvivorPassesAsDocumentedAndFailsOnceATestKillsIt) {
  std::string catalog = dir_.Read("mutations/calc.json");
  for (const char* id : {"\"id\": \"M1\",", "\"id\": \"M3\","}) {
    catalog.replace(catalog.find(id), std::string(id).size(),
                    std::string(id) + " \"expect_outcome\": \"survived\",");
  }
  dir_.Write("mutations/calc.json", catalog);
  auto hole = testing::RunProofgate(dir_.path(), "mutate --json --no-spec-update --id M3");
  EXPECT_EQ(hole.exit_code, 0) << hole.out << hole.err;
  auto r = ById(hole.out);
  EXPECT_EQ(Outcome(r, "M3"), "survived");
  EXPECT_EQ(r["M3"]["as_claimed"], true);
  EXPECT_EQ(r["M3"]["expected_outcome"], "survived");
  auto closed = testing::RunProofgate(dir_.path(), "mutate --no-spec-update --id M1");
  EXPECT_EQ(closed.exit_code, 1) << closed.out << closed.err;
  EXPECT_NE(closed.out.find("expected survivor now killed (red-as-claimed): update the catalog"),
            std::string::npos)
      << closed.out;
  // A claim of unviable that builds says what it got, and why where there is a why.
  std::string unviable = catalog;
  for (int i = 0; i < 2; ++i) unviable.replace(unviable.find("\"survived\""), 10, "\"unviable\"");
  dir_.Write("mutations/calc.json", unviable);
  auto built = testing::RunProofgate(dir_.path(), "mutate --json --no-spec-update --id M1 --id M3");
  EXPECT_EQ(built.exit_code, 1) << built.out << built.err;
  auto u = ById(built.out);
  EXPECT_EQ(u["M1"]["detail"], "expected unviable, got red-as-claimed: update the catalog")
      << built.out;
  std::string why = u["M3"]["detail"];
  EXPECT_EQ(why.rfind("expected unviable, got survived: update the catalog (", 0), 0u) << why;
  EXPECT_GT(why.size(),
            std::string("expected unviable, got survived: update the catalog ()").size())
      << why;
  catalog.replace(catalog.find("\"survived\""), 10, "\"killed\"");
  dir_.Write("mutations/calc.json", catalog);
  auto bad = testing::RunProofgate(dir_.path(), "mutate --list");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("expect_outcome is \"red-as-claimed\" (the default), \"survived\" or "
                         "\"unviable\", got \"killed\""),
            std::string::npos)
      << bad.err;
}

TEST_F(MutateCli, ARedBaselineStopsBeforeAnyMutant) {
  std::string calc = dir_.Read("calc.cpp");  // an uncommitted edit that breaks Add
  calc.replace(calc.find("int Add(int a, int b) {"), 23, "int Add(int a, int b) { a += 1;");
  dir_.Write("calc.cpp", calc);
  auto run = testing::RunProofgate(dir_.path(), "mutate --id M1 --id M3");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.out.find("baseline not green: mutations/calc.json: baseline: Add.AddsTwoNumbers "
                         "fails on the unmutated tree"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("red-as-claimed"), std::string::npos);
}

TEST_F(MutateCli, UncommittedEditsAreWhatIsTestedAndAreLeftUntouched) {
  std::string edited = "// an uncommitted note\n" + dir_.Read("calc.cpp");
  dir_.Write("calc.cpp", edited);
  dir_.Write("notes.txt", "untracked\n");
  std::string before = Sha256Hex(dir_.Read("calc.cpp"));
  auto dirty_before = git::Dirty(dir_.path()).value();
  auto run = testing::RunProofgate(dir_.path(), "mutate --id M1 --no-spec-update");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Sha256Hex(dir_.Read("calc.cpp")), before);
  EXPECT_EQ(git::Dirty(dir_.path()).value(), dirty_before);
  EXPECT_EQ(dir_.Read(".git/proofgate/mutate/w0/tree/calc.cpp"), edited);
  EXPECT_EQ(dir_.Read(".git/proofgate/mutate/w0/tree/notes.txt"), "untracked\n");
}

// Ctrl-C while a mutant is being built: the build is stopped (its 60 s sleep killed, not
// waited out) and the file restored at once.
TEST_F(MutateCli, SigintMidBuildRestoresTheMutantAndExits130) {
  std::string catalog = dir_.Read("mutations/calc.json");
  const std::string build = "\"build\": [\"calc_test\", \"calc_check\"],";
  std::string pid_file = dir_.path() + "/sleep.pid";
  catalog.replace(catalog.find(build), build.size(),
                  // The pid goes in by rename: a reader polling for the file never sees it empty.
                  "\"build_command\": [\"sh\", \"-c\", \"grep -q SLOW {tree}/calc.cpp && { sleep "
                  "60 & echo $! > " +
                      pid_file + ".tmp && mv " + pid_file + ".tmp " + pid_file +
                      "; wait; }; cmake --build {build}\"],");
  catalog.replace(catalog.find("\"replace\": \"if (v > hi) return v;\""), 34,
                  "\"replace\": \"if (v > hi) return v; /*SLOW*/\"");
  dir_.Write("mutations/calc.json", catalog);
  TempDir logs;
  auto child = Child::Spawn({{PROOFGATE_BIN, "mutate", "--id", "M1", "--no-spec-update"},
                             dir_.path(),
                             {},
                             logs.path() + "/log",
                             ""});
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(testing::WaitForFile(pid_file, 90))
      << logs.Read("log");  // the mutant's build is running
  std::vector<pid_t> sleep = testing::ReadPids(pid_file);
  ASSERT_EQ(sleep.size(), 1u);
  kill(child->pid(), SIGINT);
  int status = 0;
  waitpid(child->pid(), &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 130) << logs.Read("log");
  bool died = testing::DiesWithin(sleep[0]);
  EXPECT_TRUE(died) << "the build's sleep outlived the interrupted mutate";
  if (!died) kill(sleep[0], SIGKILL);
  EXPECT_EQ(dir_.Read(".git/proofgate/mutate/w0/tree/calc.cpp"), dir_.Read("calc.cpp"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_.path() + "/.git/proofgate/mutate/journal"));
}

}  // namespace
}  // namespace pg
