// CI integration (specs/reports.md): workflow commands as GitHub's runner reads them, the step
// summary's limit, failure places in logs, GitLab Code Quality, and the CLI under --ci github.
#include "gates/report/ci_output.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "gates/config/json_source.h"
#include "gates/mutate/mutate_ci.h"
#include "gates/report/failure_places.h"
#include "tests/gates/support/mutate_fixture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

TEST(CiOutput, ValuesAreEscapedAsTheRunnerUnescapesThem) {
  EXPECT_EQ(WorkflowData("100% done\r\nnext: a,b"), "100%25 done%0D%0Anext: a,b");
  EXPECT_EQ(WorkflowProperty("src/a:b,c%.cpp"), "src/a%3Ab%2Cc%25.cpp");
  std::string line = GithubAnnotations(
      {{"error", "src/a.cpp", 12, "unit: A.B fail", "want 3\ngot 2", "failing-test"}});
  EXPECT_EQ(line, "::error file=src/a.cpp,line=12,title=unit%3A A.B fail::want 3%0Agot 2\n");
}

// Lines count from 1: the first line is a place, 0 (unknown) is none.
TEST(CiOutput, TheFirstLineIsALineAndZeroIsNone) {
  EXPECT_EQ(GithubAnnotations({{"error", "a.cpp", 1, "t", "m", "failing-test"}}),
            "::error file=a.cpp,line=1,title=t::m\n");
  EXPECT_EQ(GithubAnnotations({{"error", "a.cpp", 0, "t", "m", "failing-test"}}),
            "::error file=a.cpp,title=t::m\n");
}

// Found by mutate --generate (ci_output.cpp's survivors): each field of a Code Quality issue.
TEST(CiOutput, CodeQualityIssuesSayTheMessageTheSeverityAndLineOneAtLeast) {
  Json issues = Json::parse(CodeQualityJson({{"error", "a.cpp", 0, "t", "m", "failing-test"},
                                             {"warning", "b.cpp", 5, "u", "", "contended-leg"},
                                             {"error", "", 0, "no place", "", "failing-leg"}}));
  ASSERT_EQ(issues.size(), 2u) << issues.dump(2);
  EXPECT_EQ(issues[0]["description"], "t: m");
  EXPECT_EQ(issues[0]["severity"], "major");
  EXPECT_EQ(issues[0]["location"]["lines"]["begin"], 1);
  EXPECT_EQ(issues[1]["description"], "u");
  EXPECT_EQ(issues[1]["severity"], "minor");
  EXPECT_EQ(issues[1]["location"]["lines"]["begin"], 5);
  EXPECT_NE(issues[0]["fingerprint"], issues[1]["fingerprint"]);
}

// A contended leg is a warning, a failed leg without places one error naming it; places come
// from the whole log (the tail lost them) less proofgate's command lines, and are made
// relative to the root from the leg's cwd.
TEST(CiOutput, RunAnnotationsComeFromTheWholeLogAndNameLegsWithoutPlaces) {
  TempDir dir;
  dir.Write("unit.log", "$ ./unit --check\nsub/math_test.cpp:12: Failure\nwant 3\n...\n");
  RunReport report;
  report.root = dir.path();
  LegResult unit, lint, slow;
  unit.name = "unit";
  unit.outcome = Outcome::kFail;
  unit.argv = {"./unit", "--check"};
  unit.cwd = dir.path() + "/tests";
  unit.log_path = dir.path() + "/unit.log";
  unit.output_tail = "...\n";
  lint.name = "lint";
  lint.outcome = Outcome::kFail;
  lint.note = "exit 1";
  lint.output_tail = "style problems\n";
  slow.name = "slow";
  slow.outcome = Outcome::kContended;
  slow.note = "foreign load 80%";
  report.legs = {unit, lint, slow};
  std::vector<Annotation> a = RunAnnotations(report);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].file, "tests/sub/math_test.cpp");
  EXPECT_EQ(a[0].line, 12);
  EXPECT_EQ(a[0].title, "unit fail");
  EXPECT_EQ(a[1].level, "error");
  EXPECT_EQ(a[1].file, "");
  EXPECT_EQ(a[1].title, "leg lint fail");
  EXPECT_EQ(a[1].check, "failing-leg");
  EXPECT_EQ(a[2].level, "warning");
  EXPECT_EQ(a[2].title, "leg slow contended");
  EXPECT_EQ(a[2].message, "foreign load 80%");
}

TEST(CiOutput, AtMostTenAnnotationsThenOneWarningCountsTheRest) {
  std::vector<Annotation> many(13, Annotation{"error", "a.cpp", 1, "t", "m", "c"});
  std::string out = GithubAnnotations(many);
  size_t errors = 0;
  for (size_t at = out.find("::error "); at != std::string::npos; at = out.find("::error ", at + 1))
    ++errors;
  EXPECT_EQ(errors, kMaxAnnotations);
  EXPECT_NE(out.find("::warning title=proofgate::3 more problems"), std::string::npos) << out;
}

TEST(CiOutput, FailurePlacesComeFromGtestCatch2PytestAndCompilerOutput) {
  std::string log =
      "[ RUN      ] Math.Adds\n"
      "tests/math_test.cpp:12: Failure\nExpected equality of these values:\n  1 + 1\n\n"
      "[  FAILED  ] Math.Adds (0 ms)\n"
      "tests/catch_test.cpp:40: FAILED:\n  REQUIRE( x == 2 )\n"
      "________________________ test_div ________________________\n"
      "tests/test_div.py:7: ZeroDivisionError\n"
      "src/calc.cpp:3:10: error: 'y' was not declared in this scope\n"
      "tests/math_test.cpp:12: Failure\n"  // the same place twice is one place
      "note: src/calc.cpp:9: this line merely mentions a place\n";
  std::vector<FailurePlace> places = FailurePlaces(log);
  ASSERT_EQ(places.size(), 4u);
  EXPECT_EQ(places[0].file, "tests/math_test.cpp");
  EXPECT_EQ(places[0].line, 12);
  EXPECT_EQ(places[0].test, "Math.Adds");
  EXPECT_EQ(places[0].message, "Expected equality of these values:\n  1 + 1");
  EXPECT_EQ(places[1].file, "tests/catch_test.cpp");
  EXPECT_EQ(places[1].message, "  REQUIRE( x == 2 )");
  EXPECT_EQ(places[2].file, "tests/test_div.py");
  EXPECT_EQ(places[2].test, "test_div");
  EXPECT_EQ(places[2].message, "ZeroDivisionError");
  EXPECT_EQ(places[3].file, "src/calc.cpp");
  EXPECT_EQ(places[3].line, 3);
  EXPECT_EQ(places[3].message, "'y' was not declared in this scope");
}

TEST(CiOutput, AStepSummaryPastTheLimitIsCutAtALineAndSaysWhatWasLeftOut) {
  std::string markdown;
  for (int i = 0; i < 1000; ++i) markdown += "| leg-" + std::to_string(i) + " | pass |\n";
  std::string fit = FitStepSummary(markdown, 4000, "report.html");
  EXPECT_LE(fit.size(), 4000u);
  size_t note = fit.find("\n\n> ✂️ proofgate cut this summary");
  ASSERT_NE(note, std::string::npos) << fit;
  EXPECT_EQ(markdown.compare(0, note + 1, fit, 0, note + 1),
            0);  // whole lines of the original, then the note
  std::string left = std::to_string(markdown.size() - note);
  EXPECT_NE(fit.find(left + " bytes left out; the whole report is report.html."), std::string::npos)
      << fit.substr(note);
  EXPECT_EQ(FitStepSummary("short\n", 4000, ""), "short\n");
}

TEST(CiOutput, TheStepSummaryAppendsWithinWhatEarlierStepsLeft) {
  TempDir dir;
  std::string path = dir.Write("summary.md", std::string(kStepSummaryLimit - 1000, 'a') + "\n");
  setenv("GITHUB_STEP_SUMMARY", path.c_str(), 1);
  std::string markdown;
  for (int i = 0; i < 200; ++i) markdown += "line " + std::to_string(i) + "\n";
  ASSERT_TRUE(AppendStepSummary(markdown, "").ok());
  unsetenv("GITHUB_STEP_SUMMARY");
  std::string text = dir.Read("summary.md");
  EXPECT_LE(text.size(), kStepSummaryLimit);
  EXPECT_NE(text.find("line 0\n"), std::string::npos);
  EXPECT_NE(text.find("bytes left out"), std::string::npos);
}

TEST(CiOutput, AutoMeansGithubUnderGithubActionsAndNothingElsewhere) {
  unsetenv("GITLAB_CI");
  setenv("GITHUB_ACTIONS", "true", 1);
  EXPECT_EQ(ResolveCi("auto").value(), CiSystem::kGithub);
  EXPECT_EQ(ResolveCi("none").value(), CiSystem::kNone);
  unsetenv("GITHUB_ACTIONS");
  EXPECT_EQ(ResolveCi("auto").value(), CiSystem::kNone);
  setenv("GITLAB_CI", "true", 1);
  EXPECT_EQ(ResolveCi("auto").value(), CiSystem::kGitlab);
  unsetenv("GITLAB_CI");
  EXPECT_EQ(ResolveCi("jenkins").status().kind(), ErrorKind::kInvalidInput);
}

const char kSuites[] = R"({"schema_version": 1,
  "legs": {
    "ok":   {"run": ["true"]},
    "unit": {"run": "printf '[ RUN      ] Math.Adds\n::error::forged by the test\n%s/sub/math_test.cpp:12: Failure\nwant 3\n' \"$PWD\"; exit 1"}
  },
  "suites": {"default": ["ok", "unit"]}})";

// A real run under --ci github: the failing leg's log in a group (its own "::error::" line kept
// as text), an annotation at the failing line (an absolute path, made relative to the
// repository), the summary appended.
TEST(CiOutput, APreflightRunUnderGithubPrintsGroupsAnnotationsAndAppendsTheSummary) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  std::string summary = dir.path() + "/out/summary.md";
  dir.Write("out/summary.md", "earlier step\n");
  setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  auto run = RunProofgate(dir.path(), "preflight --ci github --json");
  unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("::group::unit (fail)\n::stop-commands::proofgate-"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("::endgroup::\n"), std::string::npos);
  EXPECT_NE(
      run.err.find("::error file=sub/math_test.cpp,line=12,title=unit%3A Math.Adds fail::want 3\n"),
      std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("::group::ok (pass)\n"), std::string::npos);  // every leg that ran, folded
  EXPECT_EQ(Json::parse(run.out)["verdict"], "fail");                  // stdout is still the report
  std::string text = dir.Read("out/summary.md");
  EXPECT_EQ(text.rfind("earlier step\n### proofgate preflight: fail", 0), 0u) << text;
}

TEST(CiOutput, WithoutCiNoWorkflowCommandIsPrinted) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  setenv("GITHUB_ACTIONS", "true", 1);
  auto off = RunProofgate(dir.path(), "preflight --ci none");
  unsetenv("GITHUB_ACTIONS");
  auto plain = RunProofgate(dir.path(), "preflight");
  EXPECT_EQ(off.err.find("::error"), std::string::npos) << off.err;
  EXPECT_EQ(off.err.find("::group"), std::string::npos);
  EXPECT_EQ(plain.err.find("::group"), std::string::npos) << plain.err;
}

TEST(CiOutput, StaleAnchorsBecomeCodeQualityIssuesAtTheirDocumentLine) {
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  dir.Write("a.cpp", "int a;\nint b;\n");
  dir.Write("README.md", "# Doc\n\nSee `a.cpp:1` `int b;` and `a.cpp:1` `int a;`.\n");
  auto run =
      RunProofgate(dir.path(), "anchors check README.md --codequality out/cq.json --ci github");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  Json issues = Json::parse(dir.Read("out/cq.json"));
  ASSERT_EQ(issues.size(), 1u) << issues.dump();
  EXPECT_EQ(issues[0]["check_name"], "stale-anchor");
  EXPECT_EQ(issues[0]["location"]["path"], "README.md");
  EXPECT_EQ(issues[0]["location"]["lines"]["begin"], 3);
  EXPECT_EQ(issues[0]["fingerprint"].get<std::string>().size(), 32u);
  EXPECT_NE(run.err.find("::error file=README.md,line=3,title=stale anchor a.cpp%3A1::"),
            std::string::npos)
      << run.err;
}

// A generated mutant that timed out is not a hole in the tests (they did not let it pass): only
// survivors of generated mutants are annotated.
TEST(CiOutput, SurvivorsAndMutantsNotAsClaimedAreAnnotatedKilledAndTimedOutOnesAreNot) {
  MutateReport report;
  MutantResult killed, survived, declared, timeout;
  killed.id = "g1", killed.outcome = MutantOutcome::kKilled;
  killed.generated =
      MutantResult::Generated{"src/a.cpp", "relational", "<", "<=", "", 3, 9, {"T.A"}};
  survived = killed;
  survived.id = "g2", survived.outcome = MutantOutcome::kSurvived;
  declared.id = "M4", declared.files = "calc.cpp, calc_test.cpp", declared.change = "x → y";
  declared.outcome = MutantOutcome::kRedOther, declared.detail = "Calc.A passed";
  timeout = killed;
  timeout.id = "g3", timeout.outcome = MutantOutcome::kTimeout;
  report.results = {killed, survived, declared, timeout};
  std::vector<Annotation> a = MutateAnnotations(report);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].file, "src/a.cpp");
  EXPECT_EQ(a[0].line, 3);
  EXPECT_EQ(a[0].check, "surviving-mutant");
  EXPECT_EQ(a[1].file, "calc.cpp");
  EXPECT_EQ(a[1].title, "mutant M4 red-other");
  Json cq = Json::parse(CodeQualityJson(a));
  EXPECT_EQ(cq.size(), 2u);
}

// mutate writes every report file on a real (shell) project: the page lists each mutant, the
// Code Quality file the one not as claimed.
TEST(CiOutput, MutateWritesItsPageCodeQualityAndSummary) {
  TempDir dir;
  testing::MakeShellProject(dir);
  dir.Write("mutations/extra.json",
            R"({"schema_version": 1, "configure": ["true"], "build_command": ["true"],
    "test_command": ["sh", "{tree}/test.sh", "{tree}", "{results}"],
    "mutations": [{"id": "SX", "file": "test.sh", "find": "#!/bin/sh", "replace": "#!/bin/sh\n# nothing",
                   "expect": [{"test": "Calc.Limit", "message": "^want limit 100$"}]}]})");
  TempDir out;  // outside the tree: mutate tests what the tree holds
  auto run = RunProofgate(dir.path(), "mutate --no-spec-update --min-timeout 5 --html " +
                                          out.path() + "/m.html --codequality " + out.path() +
                                          "/cq.json --summary " + out.path() + "/s.md --ci github");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  std::string page = out.Read("m.html");
  for (const char* id : {"S1", "S2", "S3", "S12", "SX"})
    EXPECT_NE(page.find("id=\"m-" + std::string(id) + "\""), std::string::npos) << id;
  Json cq = Json::parse(out.Read("cq.json"));
  ASSERT_EQ(cq.size(), 1u) << cq.dump();
  EXPECT_EQ(cq[0]["location"]["path"], "test.sh");
  EXPECT_NE(run.err.find("::error file=test.sh,title=mutant SX survived::"), std::string::npos)
      << run.err;
  EXPECT_NE(out.Read("s.md").find("SX"), std::string::npos);
}

}  // namespace
}  // namespace pg
