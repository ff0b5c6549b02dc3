// --blame-base: a failure the base revision has too is reported `inherited`, with both runs.
#include "gates/runner/blame.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "gates/runner/log_scan.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

TEST(LogScan, FailingCasesComeFromGtestAndCtestLines) {
  std::string log =
      "[ RUN      ] Calc.Adds\n[  FAILED  ] Calc.Adds (3 ms)\n[  FAILED  ] 1 test, listed below:\n"
      "The following tests FAILED:\n\t  7 - Calc.Subtracts (Failed)\n\t  9 - Slow.One (Timeout)\n";
  EXPECT_EQ(FailingCases(log), (std::set<std::string>{"Calc.Adds", "Calc.Subtracts", "Slow.One"}));
  EXPECT_TRUE(FailingCases("all good\n").empty());
}

// A compiler's error line first; with none, the last line that says something (a linker's
// "collect2: ..." before the blank lines and the spaces a build tool ends with).
TEST(LogScan, TheFirstErrorIsTheFirstErrorLineElseTheLastNonBlankOne) {
  EXPECT_EQ(FirstError("[1/2] c++ a.cpp\na.cpp:3:1: error: boom\nb.cpp:4:1: error: later\n"),
            "a.cpp:3:1: error: boom");
  EXPECT_EQ(FirstError("[2/2] linking\nsomething failed\n\n  \t\r\n"), "something failed");
}

// A compiler, a linker, the build tool or CMake rejecting the code is a rejection; a failed
// build whose log has none of them failed running what it built (jsoncpp's POST_BUILD tests;
// a test's report that reads like a diagnostic, in a link step's output or indented).
TEST(LogScan, ACompilerLinkerOrBuildToolErrorIsARejectionAndATestsOutputIsNot) {
  for (const char* log :
       {"[1/2] c++ -c a.cpp\n../a.cpp:3:14: error: no match for 'operator+'\n",
        "a.c:3: error: expected ';'\n",
        "In file included from x.h:1:\nx.h:2:10: fatal error: y.h: No such file\n",
        "c++: error: unrecognized command-line option '-fnope'\n",
        "k.cu(12): error: identifier \"q\" is undefined\n",
        "/usr/bin/ld: a.o: in function `main':\na.cpp:(.text+0x1b): undefined reference to `f()'\n",
        "collect2: error: ld returned 1 exit status\n",
        "clang: error: linker command failed with exit code 1\n",
        "ninja: error: 'gen.h', needed by 'a.o', missing and no known rule to make it\n",
        "make[2]: *** No rule to make target 'b.c', needed by 'b.o'.  Stop.\n",
        "-- Configuring incomplete\nCMake Error at CMakeLists.txt:4 (add_executable):\n",
        "FAILED: CMakeFiles/calc.dir/calc.c.o \n/usr/bin/cc -o CMakeFiles/calc.dir/calc.c.o -c "
        "calc.c\n"
        "calc.c:1:1: error: expected identifier\nninja: build stopped: subcommand failed.\n"}) {
    EXPECT_TRUE(ToolRejected(log)) << log;
  }
  std::string post_build =
      "[7/8] Linking CXX executable bin/jsoncpp_test\nFAILED: bin/jsoncpp_test \n"
      "Testing ReaderTest/errors: OK\n../src/main.cpp(3013): !reader->parse(input, root)\n"
      "../src/main.cpp:3013: error: Failure in ReaderTest: 1 != 0\n"
      "130/131 tests passed (1 failure(s))\nninja: build stopped: subcommand failed.\n";
  EXPECT_FALSE(ToolRejected(post_build))
      << "a link step whose output is a test's (UnitTest++'s `file:line: error:`)";
  EXPECT_FALSE(
      ToolRejected("./t\n  t.c:5: error: add(2, 3) is -1\nmake: *** [Makefile:2: all] Error 1\n"))
      << "a test's indented report in make's log";
  EXPECT_EQ(FailedStep(post_build), "FAILED: bin/jsoncpp_test");
  EXPECT_EQ(FailedStep("FAILED: t\nboom\n"), "FAILED: t");
  EXPECT_EQ(FailedStep("make: *** [Makefile:3: all] Error 2\n"),
            "make: *** [Makefile:3: all] Error 2")
      << "no Ninja: FirstError's";
}

// A leg that exited with `code` and wrote `log` to <dir>/<name>.log.
LegResult ExitedWithLog(const TempDir& dir, const std::string& name, int code,
                        const std::string& log) {
  LegResult leg;
  leg.exit_code = code;
  leg.log_path = dir.Write(name + ".log", log);
  return leg;
}

// A tail keeps only a log's end: the failing cases are read from the whole log, and from the
// tail only when the log cannot be read.
TEST(SameFailure, CasesComeFromTheWholeLogAndFromTheTailWhenTheLogIsGone) {
  TempDir dir;
  LegResult a = ExitedWithLog(dir, "a", 1, "[  FAILED  ] Calc.A (0 ms)\n...\n");
  LegResult b = ExitedWithLog(dir, "b", 1, "[  FAILED  ] Calc.B (0 ms)\n...\n");
  a.output_tail = b.output_tail = "...\n";
  EXPECT_FALSE(SameFailure(a, "", b, ""));
  a.log_path = b.log_path = dir.path() + "/gone.log";
  a.output_tail = "[  FAILED  ] Calc.A (0 ms)\n";
  b.output_tail = "[  FAILED  ] Calc.B (0 ms)\n";
  EXPECT_FALSE(SameFailure(a, "", b, ""));
  b.output_tail = a.output_tail;
  EXPECT_TRUE(SameFailure(a, "", b, ""));
}

// Paths under each run's own root are the same place: the first errors match without them.
TEST(SameFailure, FirstErrorsAreComparedWithoutEachRunsRoot) {
  TempDir dir;
  LegResult a = ExitedWithLog(dir, "a", 2, "/work/head/src/x.cpp:3: error: boom\n");
  LegResult b = ExitedWithLog(dir, "b", 2, "/tmp/base/src/x.cpp:3: error: boom\n");
  EXPECT_TRUE(SameFailure(a, "/work/head", b, "/tmp/base"));
  EXPECT_FALSE(SameFailure(a, "/work/head", b, "/tmp/other"));
}

// The leg prints a gtest-style FAILED line for each name in failing.txt (or, for a build-like
// failure, the compiler-style line in broken.txt) and fails when there is any.
class Blame : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::MakeRepo(dir_, R"({"schema_version": 1, "legs": {"unit": {"run":
      "if [ -s broken.txt ]; then cat broken.txt; exit 2; fi; while read t; do echo \"[  FAILED  ] $t (0 ms)\"; done < failing.txt; test ! -s failing.txt"}},
      "suites": {"default": ["unit"]}})");
    Commit("Calc.Old\n", "");
    base_ = git::ResolveCommit(dir_.path(), "HEAD").value();
  }
  void Commit(const std::string& failing, const std::string& broken) {
    dir_.Write("failing.txt", failing);
    dir_.Write("broken.txt", broken);
    ASSERT_TRUE(git::CommitAll(dir_.path(), "State").ok());
  }
  Json Unit(const std::string& args, int* exit_code) {
    auto run = testing::RunProofgate(dir_.path(), "preflight --json " + args);
    *exit_code = run.exit_code;
    Json doc = Json::parse(run.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << run.out << run.err;
    for (const Json& leg : doc.is_discarded() ? Json::array() : doc["legs"]) {
      if (leg["name"] == "unit") return leg;
    }
    return Json::object();
  }
  TempDir dir_;
  std::string base_;
};

TEST_F(Blame, TheSameFailingCasesOnTheBaseAreInherited) {
  Commit("Calc.Old\n", "");  // unrelated change, same failure
  int rc = 0;
  Json unit = Unit("--blame-base " + base_, &rc);
  EXPECT_EQ(unit["outcome"], "inherited") << unit.dump(2);
  EXPECT_NE(unit["note"].get<std::string>().find("fails the same way on " + base_ + " (Calc.Old)"),
            std::string::npos);
  EXPECT_FALSE(unit["base_log"].is_null());
  EXPECT_EQ(rc, 1);  // still a failure unless allowed
  Unit("--blame-base " + base_ + " --allow-inherited", &rc);
  EXPECT_EQ(rc, 0);
}

// Found by mutate --generate (blame.cpp's survivors): the base's run says what it runs, and
// writes its logs apart, so the change's own log still holds the change's output.
TEST_F(Blame, TheBaseRunIsAnnouncedAndKeepsItsLogsApart) {
  Commit("Calc.Old\nCalc.New\n", "");
  TempDir logs;
  auto run = testing::RunProofgate(
      dir_.path(), "preflight --json --log-dir " + logs.path() + " --blame-base " + base_);
  EXPECT_NE(run.err.find("blame-base: running unit on " + base_ + " ("), std::string::npos)
      << run.err;
  Json doc = Json::parse(run.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << run.out;
  std::string log, base_log;
  for (const Json& leg : doc["legs"]) {
    if (leg["name"] != "unit") continue;
    log = leg.value("log", "");
    base_log = leg.value("base_log", "");
  }
  ASSERT_FALSE(log.empty()) << doc.dump(2);
  EXPECT_NE(log, base_log);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("Calc.New"), std::string::npos) << log << ":\n" << text;
}

TEST_F(Blame, ANewFailingCaseIsTheChangesOwn) {
  Commit("Calc.Old\nCalc.New\n", "");
  int rc = 0;
  Json unit = Unit("--blame-base " + base_ + " --allow-inherited", &rc);
  EXPECT_EQ(unit["outcome"], "fail");
  EXPECT_NE(unit["note"].get<std::string>().find("not inherited from " + base_ +
                                                 ": fails differently there"),
            std::string::npos)
      << unit.dump(2);
  EXPECT_EQ(rc, 1);
}

TEST_F(Blame, AFailureTheBaseDoesNotHaveIsTheChangesOwn) {
  dir_.Write("failing.txt", "");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Green base").ok());
  std::string green = git::ResolveCommit(dir_.path(), "HEAD").value();
  Commit("Calc.Old\n", "");
  int rc = 0;
  Json unit = Unit("--blame-base " + green, &rc);
  EXPECT_EQ(unit["outcome"], "fail");
  EXPECT_NE(unit["note"].get<std::string>().find("passes there"), std::string::npos)
      << unit.dump(2);
}

// Found by mutate --generate (blame.cpp's survivors): a leg that passed on the base while
// printing the same failing case (a runner that retries) did not fail there, so the change's
// failure is its own; the note adds "not inherited" to what the leg said, "; " between.
TEST_F(Blame, ALegThatPassedOnTheBaseWithTheSameFailingCaseIsNotInherited) {
  // The base run uses the change's suites.json: the exit status comes from a file of the tree.
  dir_.Write("preflight/suites.json", R"J({"schema_version": 1, "legs": {"unit": {"run":
    "echo '[  FAILED  ] Calc.Old (0 ms)'; exit $(cat code.txt)"}}, "suites": {"default": ["unit"]}})J");
  dir_.Write("code.txt", "0\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "passes, printing a failed case").ok());
  std::string passed = git::ResolveCommit(dir_.path(), "HEAD").value();
  dir_.Write("code.txt", "1\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "fails").ok());
  int rc = 0;
  Json unit = Unit("--blame-base " + passed, &rc);
  EXPECT_EQ(unit["outcome"], "fail") << unit.dump(2);
  std::string note = unit.value("note", "");
  std::string own = "not inherited from " + passed + ": passes there";
  EXPECT_TRUE(note == own || note.find("; " + own) != std::string::npos) << note;
}

TEST_F(Blame, WithoutTestCasesTheSameExitCodeAndFirstErrorAreInherited) {
  Commit("", "src/a.cpp:3:1: error: expected ';'\n");
  std::string broken_base = git::ResolveCommit(dir_.path(), "HEAD").value();
  dir_.Write("notes.txt", "unrelated\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Unrelated").ok());
  int rc = 0;
  EXPECT_EQ(Unit("--blame-base " + broken_base, &rc)["outcome"], "inherited");
  Commit("", "src/b.cpp:9:1: error: another error\n");
  EXPECT_EQ(Unit("--blame-base " + broken_base, &rc)["outcome"], "fail");
}

// Found by `mutate --generate` (a survivor: `||` → `&&`): failing cases on one side only is a
// different failure, even when the exit code and the first error line are the same.
TEST_F(Blame, FailingCasesOnOneSideOnlyAreNeverTheSameFailure) {
  Commit("", "error: boom\n");
  std::string broken_base = git::ResolveCommit(dir_.path(), "HEAD").value();
  Commit("", "error: boom\n[  FAILED  ] Calc.New (0 ms)\n");
  int rc = 0;
  Json unit = Unit("--blame-base " + broken_base, &rc);
  EXPECT_EQ(unit["outcome"], "fail") << unit.dump(2);
}

TEST_F(Blame, GateOntoBlamesTheRevisionItMergesInto) {
  ASSERT_TRUE(git::SwitchBranch(dir_.path(), "main", /*create=*/true).ok());
  ASSERT_TRUE(git::SwitchBranch(dir_.path(), "feature", /*create=*/true).ok());
  dir_.Write("feature.txt", "feature\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Feature work").ok());
  auto run = testing::RunProofgate(dir_.path(), "gate --onto main --blame-base --json");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.out.find("\"outcome\": \"inherited\""), std::string::npos) << run.out;
  EXPECT_EQ(testing::RunProofgate(dir_.path(), "gate --onto main --blame-base --allow-inherited")
                .exit_code,
            0);
}

}  // namespace
}  // namespace pg
