#include "gates/mutate/mutate_report.h"

#include <gtest/gtest.h>

#include <sstream>

#include "gates/config/json_source.h"
#include "gates/mutate/worker.h"

namespace pg {
namespace {

const char kSpec[] =
    "# Spec\n\n## Mutations\n<!-- proofgate:mutations -->\n| id | file |\n|---|---|\n"
    "| M2 | kept row from an earlier run |\n| M9 | a mutant no longer in the catalog |\n"
    "<!-- /proofgate:mutations -->\n\n## Owed\n- nothing\n";

Catalog TwoMutations() {
  Catalog c;
  c.path = "mutations/a.json";
  for (const char* id : {"M1", "M2", "M3"}) {
    Mutation m;
    m.id = id;
    m.file = "a.cpp";
    m.find = "x > 1";
    m.replace = "x >= 1";
    m.expect = {{"A.Test", "boom"}};
    c.mutations.push_back(m);
  }
  return c;
}

MutateReport OneResult() {
  MutantResult r;
  r.id = "M1", r.catalog = "mutations/a.json", r.files = "a.cpp", r.change = "x > 1 → x >= 1",
  r.tests = "A.Test";
  r.outcome = MutantOutcome::kRedAsClaimed;
  r.observed = "boom | bang";
  MutateReport report;
  report.results = {r};
  return report;
}

TEST(MutateReport, TheSpecTableGetsRunRowsKeepsOthersAndDropsRemovedIds) {
  auto text = UpdateSpecTable("specs/a.md", kSpec, TwoMutations(), OneResult(), "");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_NE(
      text->find("| M1 | a.cpp | `x > 1` → `x >= 1` | A.Test | red-as-claimed | boom \\| bang |"),
      std::string::npos)
      << *text;
  EXPECT_NE(text->find("| M2 | kept row from an earlier run |"), std::string::npos) << *text;
  EXPECT_NE(text->find("| M3 | a.cpp | `x > 1` → `x >= 1` | A.Test | not run yet |"),
            std::string::npos)
      << *text;
  EXPECT_EQ(text->find("M9"), std::string::npos);
  EXPECT_NE(text->find("<!-- /proofgate:mutations -->\n\n## Owed\n- nothing\n"),
            std::string::npos);  // the rest stays
}

// A spec that describes the markers in its prose keeps every word: only marker lines count.
TEST(MutateReport, MarkersQuotedInProseAreNotTheTable) {
  std::string spec = std::string(
                         "# Spec\n## Behaviour\n- the table sits between `<!-- proofgate:mutations "
                         "-->` markers\n") +
                     "## Gates\n```sh\ntrue\n```\n" + kSpec;
  auto text = UpdateSpecTable("specs/a.md", spec, TwoMutations(), OneResult(), "");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_NE(text->find("markers\n## Gates\n```sh\ntrue\n```\n# Spec\n\n## Mutations\n<!-- "
                       "proofgate:mutations -->\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("| M1 | a.cpp |"), std::string::npos);
}

// The commit a table was verified at lives on its marker line, and reads back as it was
// written; a table that names none (or a malformed one) reads back as none.
TEST(MutateReport, TheVerifiedCommitRoundTripsThroughTheMarkerLine) {
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  auto text = UpdateSpecTable("specs/a.md", kSpec, TwoMutations(), OneResult(), commit);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_NE(text->find("from mutations/a.json; verified at " + commit + "; do not edit -->"),
            std::string::npos)
      << *text;
  EXPECT_EQ(TableVerifiedAt(*text), commit);
  auto none = UpdateSpecTable("specs/a.md", *text, TwoMutations(), OneResult(), "");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(TableVerifiedAt(*none), "");
  std::string short_id = *text;
  short_id.replace(short_id.find(commit), 40, "0123456");
  EXPECT_EQ(TableVerifiedAt(short_id), "");
}

TEST(MutateReport, ASpecWithoutMarkersIsInvalidInputNamingIt) {
  auto text = UpdateSpecTable(
      "specs/a.md",
      "# Spec\nonly in prose: `<!-- proofgate:mutations -->` and `<!-- /proofgate:mutations -->`\n",
      TwoMutations(), OneResult(), "");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(
      text.status().message(),
      "specs/a.md: no <!-- proofgate:mutations --> ... <!-- /proofgate:mutations --> markers");
}

TEST(MutateReport, JsonCarriesOutcomeTimesAndTheExitCode) {
  MutateReport report = OneResult();
  report.results[0].build_s = 2, report.results[0].test_s = 1, report.results[0].total_s = 3.5;
  Json doc = Json::parse(MutateReportJson(report));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["results"][0]["outcome"], "red-as-claimed");
  EXPECT_EQ(doc["results"][0]["overhead_s"], 0.5);
  EXPECT_EQ(doc["exit_code"], 0);
}

TEST(MutateReport, ExitCodesSayWhatHappened) {
  MutateReport report = OneResult();
  EXPECT_EQ(MutateExitCode(report), 0);
  report.results[0].outcome = MutantOutcome::kUnviable;
  EXPECT_EQ(MutateExitCode(report), 1);
  report.interrupted = true;
  EXPECT_EQ(MutateExitCode(report), 130);
}

// A stop on an error keeps the code the process exits with (finished.json said 130 while the
// process exited 2), and an unviable generated mutant's NOTE is its compiler's error.
TEST(MutateReport, AnErrorsExitCodeAndAnUnviableGeneratedMutantsError) {
  MutateReport report = OneResult();
  report.error = "results/t.json: unreadable";
  report.error_exit_code = 2;
  EXPECT_EQ(MutateExitCode(report), 2);
  Json doc = Json::parse(MutateReportJson(report));
  EXPECT_EQ(doc["error"], "results/t.json: unreadable");
  EXPECT_EQ(doc["exit_code"], 2);
  MutantResult& r = report.results[0];
  r.generated = MutantResult::Generated{};
  r.outcome = MutantOutcome::kUnviable, r.observed = "",
  r.detail = "a.cpp:3:9: error: invalid operands";
  report.error.clear();
  std::ostringstream table;
  WriteMutateTable(report, table, false);
  EXPECT_NE(table.str().find("unviable"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("a.cpp:3:9: error: invalid operands"), std::string::npos)
      << table.str();
}

// A generated mutant's tests column names its tests while they are three or fewer, and counts
// them past that.
TEST(MutateReport, AGeneratedMutantNamesUpToThreeTestsAndCountsMore) {
  Mutation m;
  m.id = m.file = "a.cpp";
  MutantJob job;
  job.generated = true;
  job.mutations = {&m};
  job.tests = {"A.One", "A.Two", "A.Three"};
  MutantResult three;
  DescribeJob(job, &three);
  EXPECT_EQ(three.tests, "A.One, A.Two, A.Three");
  job.tests.push_back("A.Four");
  MutantResult four;
  DescribeJob(job, &four);
  EXPECT_EQ(four.tests, "4 tests");
}

}  // namespace
}  // namespace pg
