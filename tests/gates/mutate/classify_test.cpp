#include "gates/mutate/classify.h"

#include <gtest/gtest.h>

#include "gates/mutate/junit_results.h"

namespace pg {
namespace {

// Shaped as gtest 1.12 writes GTEST_OUTPUT=json (recorded from a real run).
std::string Report(const std::string& suite, const std::string& test, const std::string& failure) {
  std::string failures =
      failure.empty() ? "" : R"(, "failures": [{"failure": ")" + failure + R"(", "type": ""}])";
  return R"({"tests": 1, "name": "AllTests", "testsuites": [{"name": ")" + suite +
         R"(", "testsuite": [{"name": ")" + test +
         R"(", "file": "/tmp/f.cpp", "line": 2, "status": "RUN", "result": "COMPLETED", "classname": ")" +
         suite + "\"" + failures + "}]}]}";
}

std::map<std::string, TestResult> Results(std::initializer_list<std::string> reports) {
  std::map<std::string, TestResult> out;
  int i = 0;
  for (const std::string& r : reports)
    EXPECT_TRUE(AddGtestJson("r" + std::to_string(i++) + ".json", r, &out).ok());
  return out;
}

const std::vector<Expectation> kExpect = {{"Clamp.AtHundred", "^clamp at 100$"}};

TEST(Classify, TheExpectedTestFailingWithTheClaimedMessageIsRedAsClaimed) {
  auto r = Results(
      {Report("Clamp", "AtHundred",
              "/tmp/f.cpp:2\\nExpected equality of these values:\\n  1\\n  2\\nclamp at 100")});
  EXPECT_EQ(Classify(kExpect, r).outcome, MutantOutcome::kRedAsClaimed);
}

TEST(Classify, AFailureForAnotherReasonIsRedOtherAndSaysWhichMessage) {
  auto r =
      Results({Report("Clamp", "AtHundred",
                      "/tmp/f.cpp:2\\nlibfoo.so: cannot open shared object file\\nclamp at 1000")});
  Classification c = Classify(kExpect, r);
  EXPECT_EQ(c.outcome, MutantOutcome::kRedOther);
  EXPECT_EQ(c.detail,
            "Clamp.AtHundred failed with \"libfoo.so: cannot open shared object file / clamp at "
            "1000\", not "
            "/^clamp at 100$/");
}

// gtest 1.12's JSON writer escapes each byte above 0x7F as a code point ("×" is C3 97): the
// claim and the observed message see the test's own text.
TEST(Classify, GtestsEscapedBytesAreReadBackAsTheTestsText) {
  auto r = Results({Report("Clamp", "AtHundred",
                           "/tmp/f.cpp:2\\nlimit 5 \\u00C3\\u0097 3 \\u00E2\\u0086\\u0092 15")});
  Classification c = Classify({{"Clamp.AtHundred", "limit 5 × 3 → 15"}}, r);
  EXPECT_EQ(c.outcome, MutantOutcome::kRedAsClaimed) << c.detail;
  EXPECT_EQ(c.observed, "limit 5 × 3 → 15");
  // Code points past U+00FF are no such escape, and Latin-1 that is not UTF-8 stays as read.
  auto wide = Results({Report("Clamp", "AtHundred", "\\u2192 \\u00C3\\u0097")});
  EXPECT_EQ(wide.at("Clamp.AtHundred").messages.at(0), "→ Ã\u0097");
  auto latin1 = Results({Report("Clamp", "AtHundred", "\\u00E9t\\u00E9")});
  EXPECT_EQ(latin1.at("Clamp.AtHundred").messages.at(0), "été");
}

TEST(Classify, TheObservedMessageIsTheLineTheClaimMatched) {
  auto r = Results(
      {Report("Clamp", "AtHundred",
              "/tmp/f.cpp:2\\nExpected equality of these values:\\n  1\\n  2\\nclamp at 100")});
  EXPECT_EQ(Classify(kExpect, r).observed, "clamp at 100");
}

TEST(Classify, AComboClaimingADisarmIsGreenOnlyWhenEveryExpectedTestRanAndPassed) {
  EXPECT_EQ(ClassifyGreen(kExpect, Results({Report("Clamp", "AtHundred", "")})).outcome,
            MutantOutcome::kGreenAsClaimed);
  Classification missing = ClassifyGreen(kExpect, Results({Report("Other", "Test", "")}));
  EXPECT_EQ(missing.outcome, MutantOutcome::kNotGreen);
  EXPECT_EQ(missing.detail, "Clamp.AtHundred did not run");
  Classification red =
      ClassifyGreen(kExpect, Results({Report("Clamp", "AtHundred", "/f.cpp:1\\nboom")}));
  EXPECT_EQ(red.outcome, MutantOutcome::kNotGreen);
}

TEST(Classify, AnotherTestFailingWhileTheExpectedOnePassesIsRedOther) {
  auto r = Results({Report("Clamp", "AtHundred", ""), Report("Other", "Test", "/x.cpp:1\\nboom")});
  Classification c = Classify(kExpect, r);
  EXPECT_EQ(c.outcome, MutantOutcome::kRedOther);
  EXPECT_EQ(c.detail, "Clamp.AtHundred passed; Other.Test failed instead: \"boom\"");
}

// CTest's JUnit names a test's class after the test itself, and gtest's and pytest's JUnit
// give a case's short name beside its class: each failing case is named once, by its whole
// name, while a claim may still name it either way. Seen on this repository's own catalog: a
// red-other mutant listed "GeneratePoints.X.GeneratePoints.X failed instead".
TEST(Classify, AJunitCaseIsListedOnceByItsWholeName) {
  std::map<std::string, TestResult> r;
  ASSERT_TRUE(AddJunit("ctest.xml",
                       R"(<testsuite><testcase name="Clamp.AtHundred" classname="Clamp.AtHundred"/>
<testcase name="Other.Test" classname="Other.Test" status="fail"><failure message="Failed"/></testcase></testsuite>)",
                       &r)
                  .ok());
  ASSERT_TRUE(
      AddJunit("pytest.xml",
               R"(<testsuites><testsuite><testcase classname="tests.test_io" name="test_read">
<failure message="assert 1 == 2"/></testcase></testsuite></testsuites>)",
               &r)
          .ok());
  Classification c = Classify(kExpect, r);
  EXPECT_EQ(c.detail,
            "Clamp.AtHundred passed; Other.Test failed instead: \"Failed\"; "
            "tests.test_io.test_read failed instead: "
            "\"assert 1 == 2\"");
  EXPECT_TRUE(r.at("test_read").failed);
  EXPECT_EQ(ClassifyGreen({{"test_read", ""}}, r).detail,
            "Other.Test failed: \"Failed\"; tests.test_io.test_read failed: "
            "\"assert 1 == 2\"");
}

// CTest's JUnit gives a plain test's failure no message (recorded from ctest 3.25): the note
// quotes the output's line that says why, not "" (#64, seen on uriparser's and pugixml's runners).
TEST(Classify, APlainCtestFailureIsQuotedByItsOutputsFailureLine) {
  std::map<std::string, TestResult> r;
  ASSERT_TRUE(AddJunit("ctest.xml",
                       R"(<testsuite><testcase name="plain" classname="plain" status="fail">
<failure message=""/><system-out>running case alpha
Test alpha failed: x == 2 at tests/a.cpp:12
FAILURE: 1 out of 3 tests failed.
</system-out></testcase>
<testcase name="quiet" classname="quiet" status="fail"><failure message=""/><system-out>one
last words
</system-out></testcase></testsuite>)",
                       &r)
                  .ok());
  EXPECT_EQ(Classify(kExpect, r).detail,
            "Clamp.AtHundred did not run; plain failed instead: \"Test alpha failed: x == 2 at "
            "tests/a.cpp:12\"; quiet failed instead: \"last words\"");
  EXPECT_EQ(
      OutputFailureLine("Errors while running CTest\n50% tests passed, 1 tests failed out of 2\n"),
      "50% tests passed, 1 tests failed out of 2");
  // a line that counts no failure is none; Catch2's place comes with the lines that explain it
  EXPECT_EQ(OutputFailureLine("0 errors in the self test; no failures\nFAIL: p1(1) = 1, want 2\n"),
            "FAIL: p1(1) = 1, want 2");
  EXPECT_EQ(OutputFailureLine("all good so far\ntests/t.cpp:6: FAILED:\n  REQUIRE( x == 2 )\nwith "
                              "expansion:\n  1 == 2\n\n"),
            "tests/t.cpp:6: REQUIRE( x == 2 ) with expansion: 1 == 2");
}

// Found on json-c/json-c, whose scratch copy had lost 24 test scripts: CTest's JUnit marks a
// test it could not run `notrun`, as it marks a skip, and ctest exits 8. Only a SKIP_
// property's notrun (or a disabled test) is a skip; the others failed.
TEST(Classify, ATestCtestCouldNotRunFailsAndASkipDoesNot) {
  std::map<std::string, TestResult> r;
  ASSERT_TRUE(AddJunit("ctest.xml", R"(<testsuite>
<testcase name="skipper" classname="skipper" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/></testcase>
<testcase name="off" classname="off" status="disabled"><system-out>Disabled</system-out></testcase>
<testcase name="missing" classname="missing" status="notrun"><skipped message="Unable to find executable"/>
<system-out>Unable to find executable: /nowhere.sh</system-out></testcase>
<testcase name="needs" classname="needs" status="notrun"><skipped message="Required Files Missing"/></testcase>
</testsuite>)",
                       &r)
                  .ok());
  EXPECT_EQ(r.count("skipper") + r.count("off"), 0u);
  ASSERT_TRUE(r.count("missing"));
  EXPECT_TRUE(r.at("missing").failed);
  EXPECT_EQ(r.at("missing").messages,
            (std::vector<std::string>{"Unable to find executable: /nowhere.sh"}));
  ASSERT_TRUE(r.count("needs"));
  EXPECT_TRUE(r.at("needs").failed);
  EXPECT_EQ(r.at("needs").messages, (std::vector<std::string>{"Required Files Missing"}));
}

TEST(Classify, NothingFailingIsSurvived) {
  auto r = Results({Report("Clamp", "AtHundred", "")});
  EXPECT_EQ(Classify(kExpect, r).outcome, MutantOutcome::kSurvived);
}

TEST(Classify, AnExpectedTestThatNeverRanIsNotRedAsClaimed) {
  auto r = Results({Report("Other", "Test", "/x.cpp:1\\nboom")});
  Classification c = Classify(kExpect, r);
  EXPECT_EQ(c.outcome, MutantOutcome::kRedOther);
  EXPECT_NE(c.detail.find("Clamp.AtHundred did not run"), std::string::npos);
}

TEST(Classify, EveryExpectedTestMustBeRedAsClaimed) {
  std::vector<Expectation> two = {{"Clamp.AtHundred", "^clamp at 100$"},
                                  {"Clamp.AtZero", "^clamp at 0$"}};
  auto r =
      Results({Report("Clamp", "AtHundred", "/f:1\\nclamp at 100"), Report("Clamp", "AtZero", "")});
  EXPECT_EQ(Classify(two, r).outcome, MutantOutcome::kRedOther);
}

TEST(Classify, NotAGtestReportIsANamedError) {
  std::map<std::string, TestResult> out;
  Status s = AddGtestJson("results/x.json", "{\"hello\": 1}", &out);
  EXPECT_EQ(s.message(), "results/x.json: not a gtest JSON report");
}

}  // namespace
}  // namespace pg
