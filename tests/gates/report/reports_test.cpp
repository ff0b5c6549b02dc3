#include <gtest/gtest.h>

#include <pugixml.hpp>
#include <sstream>

#include "gates/config/json_source.h"
#include "gates/merge/shard_merge.h"
#include "gates/mutate/mutate_html.h"
#include "gates/mutate/mutate_report.h"
#include "gates/report/writers.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

RunReport Sample() {
  RunReport report;
  report.suites = {"default"};
  report.root = "/repo";
  report.config_path = "preflight/suites.json";
  report.run_id = "20261201T000000Z-1";
  report.started_at = "2026-12-01T00:00:00Z";
  report.tree_hash = report.tree_hash_after = "0123456789abcdef0123456789abcdef01234567";
  LegResult pass;
  pass.name = "build";
  pass.argv = {"cmake", "--build", "build"};
  pass.outcome = Outcome::kPass;
  pass.exit_code = 0;
  pass.wall_s = 12.5;
  LegResult fail;
  fail.name = "unit";
  fail.argv = {"ctest"};
  fail.outcome = Outcome::kFail;
  fail.exit_code = 8;
  fail.note = "exit status 8";
  fail.output_tail = "Expected <1> & got \"2\"\x01\n";
  fail.log_path = "/repo/.git/proofgate/logs/x/unit.log";
  LegResult skipped;
  skipped.name = "e2e";
  skipped.outcome = Outcome::kSkipped;
  skipped.note = "need \"unit\" did not pass";
  fail.load.samples = 4;
  fail.load.foreign_mean = 0.5;
  fail.load.loadavg1 = 3.25;
  fail.load.absent = {"psi_cpu"};
  LegResult perf;
  perf.name = "perf";
  perf.outcome = Outcome::kPass;
  perf.timing = true;
  perf.note = "contended first attempt";
  Attempt first;
  first.outcome = Outcome::kFail;
  first.note = "exit status 1 under foreign load (foreign 80%, steal 0%)";
  first.load.foreign_mean = first.load.foreign_max = 0.8;
  first.load.loadavg1 = 108.76;
  perf.attempts = {first};
  report.legs = {pass, fail, skipped, perf};
  report.exit_code = VerdictOf(report);
  return report;
}

TEST(Reports, JsonCarriesTheSchemaAndEveryLegField) {
  Json doc = Json::parse(RunReportJson(Sample()));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["verdict"], "fail");
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_EQ(doc["counts"]["fail"], 1);
  const Json& unit = doc["legs"][1];
  for (const char* key : {"name", "argv", "cwd", "outcome", "cached", "exit_code", "signal",
                          "wall_s", "cpu_s", "output_tail", "log", "tree_hash", "note"}) {
    EXPECT_TRUE(unit.contains(key)) << key;
  }
  EXPECT_EQ(unit["outcome"], "fail");
  EXPECT_EQ(unit["exit_code"], 8);
  EXPECT_TRUE(unit["signal"].is_null());
  EXPECT_EQ(doc["legs"][0]["argv"][1], "--build");
}

TEST(Reports, JsonCarriesLoadEvidenceWithAbsentSignalsAsNull) {
  Json doc = Json::parse(RunReportJson(Sample()));
  const Json& load = doc["legs"][1]["load"];
  EXPECT_EQ(load["samples"], 4);
  EXPECT_EQ(load["foreign_mean"], 0.5);
  EXPECT_EQ(load["loadavg1"], 3.25);
  EXPECT_TRUE(load["psi_cpu_avg10"].is_null());
  EXPECT_EQ(load["absent"], Json::array({"psi_cpu"}));
  const Json& perf = doc["legs"][3];
  ASSERT_EQ(perf["attempts"].size(), 1u);
  EXPECT_EQ(perf["attempts"][0]["outcome"], "fail");
  EXPECT_EQ(perf["attempts"][0]["load"]["foreign_mean"], 0.8);
}

TEST(Reports, MarkdownShowsALinePerLegThatRanUnderLoad) {
  std::string md = RunReportMarkdown(Sample());
  EXPECT_NE(
      md.find(
          "> ⚠️ **perf** ran under foreign load: foreign 80% (max 80%), steal 0%, load 108.76; "
          "contended first attempt"),
      std::string::npos)
      << md;
  EXPECT_EQ(md.find("**unit** ran under"), std::string::npos);
}

TEST(Reports, JunitIsWellFormedXmlWithOneCasePerLeg) {
  pugi::xml_document doc;
  std::string xml = RunReportJunit(Sample());
  pugi::xml_parse_result parsed = doc.load_string(xml.c_str());
  ASSERT_TRUE(parsed) << parsed.description() << "\n" << xml;
  pugi::xml_node suite = doc.child("testsuites").child("testsuite");
  EXPECT_EQ(suite.attribute("tests").as_int(), 4);
  EXPECT_EQ(suite.attribute("failures").as_int(), 1);
  EXPECT_EQ(suite.attribute("skipped").as_int(), 1);
  pugi::xml_node unit = suite.find_child_by_attribute("testcase", "name", "unit");
  ASSERT_TRUE(unit);
  EXPECT_EQ(std::string(unit.child("failure").attribute("message").value()), "fail: exit status 8");
  EXPECT_EQ(std::string(unit.child("failure").text().get()), "Expected <1> & got \"2\"\n");
  EXPECT_TRUE(suite.find_child_by_attribute("testcase", "name", "e2e").child("skipped"));
}

TEST(Reports, MarkdownHasARowPerLegAndTheFailingTail) {
  std::string md = RunReportMarkdown(Sample());
  EXPECT_NE(md.find("### proofgate preflight: fail"), std::string::npos);
  EXPECT_NE(md.find("| unit | ❌ fail | 0ms | 0ms | exit status 8 |"), std::string::npos) << md;
  EXPECT_NE(md.find("<summary>unit: output tail</summary>"), std::string::npos);
}

TEST(Reports, TableEndsWithTheVerdictLine) {
  std::ostringstream out;
  WriteRunTable(Sample(), out, /*color=*/false);
  EXPECT_NE(out.str().find("unit   fail     0ms     0ms     exit status 8; log "
                           "/repo/.git/proofgate/logs/x/unit.log"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("verdict: fail (2 passed, 1 failed, 0 timed out, 1 skipped) suite "
                           "default, tree 0123456789ab"),
            std::string::npos)
      << out.str();
}

// What merge-reports reads back is what the report wrote: every attempt, the first included.
TEST(Reports, JsonReadsBackEveryAttemptOfALeg) {
  auto doc = JsonSource::Parse("run.json", RunReportJson(Sample()));
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  auto back = RunReportFromJson(*doc);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->legs.size(), 4u);
  const LegResult& perf = back->legs[3];
  ASSERT_EQ(perf.attempts.size(), 1u);
  EXPECT_EQ(perf.attempts[0].outcome, Outcome::kFail);
  EXPECT_EQ(perf.attempts[0].note, "exit status 1 under foreign load (foreign 80%, steal 0%)");
  EXPECT_DOUBLE_EQ(perf.attempts[0].load.loadavg1.value_or(0), 108.76);
}

TEST(Reports, TableNamesBothTreesWhenTheTreeChangedDuringTheRun) {
  RunReport report = Sample();
  report.tree_hash_after = "fedcba9876543210fedcba9876543210fedcba98";
  std::ostringstream out;
  WriteRunTable(report, out, /*color=*/false);
  EXPECT_NE(out.str().find(
                "the tree changed while the suite ran (0123456789ab -> fedcba987654): the verdict "
                "describes no single tree\n"),
            std::string::npos)
      << out.str();
}

// Five paths at most in the table (and every one of them in --json, read back as written).
TEST(Reports, TheTreesChangesAreNamedUpToFiveAndCountedPastThat) {
  RunReport report = Sample();
  report.tree_hash_after = "fedcba9876543210fedcba9876543210fedcba98";
  for (int i = 1; i <= 7; ++i)
    report.tree_changes.push_back({"f" + std::to_string(i), i == 1 ? "deleted" : "added"});
  std::ostringstream out;
  WriteRunTable(report, out, /*color=*/false);
  EXPECT_NE(
      out.str().find(
          "(0123456789ab -> fedcba987654: f1 deleted, f2 added, f3 added, f4 added, f5 added and 2 "
          "more): the verdict describes no single tree\n"),
      std::string::npos)
      << out.str();
  auto doc = JsonSource::Parse("run.json", RunReportJson(report));
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  auto back = RunReportFromJson(*doc);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->tree_changes.size(), 7u);
  EXPECT_EQ(back->tree_changes[6].path + " " + back->tree_changes[6].change, "f7 added");
  report.tree_changes.resize(5);
  std::ostringstream five;
  WriteRunTable(report, five, /*color=*/false);
  EXPECT_NE(five.str().find("f5 added): the verdict"), std::string::npos) << five.str();
}

MutateReport MutateSample() {
  MutateReport report;
  MutantResult red, survived;
  red.id = "M1", red.catalog = "mutations/a.json", red.outcome = MutantOutcome::kRedAsClaimed,
  red.observed = "clamp at 100";
  survived.id = "M2", survived.catalog = "mutations/a.json",
  survived.outcome = MutantOutcome::kSurvived;
  survived.detail = "Clamp.Top passed";
  report.results = {red, survived};
  return report;
}

// Found by this repository's own catalog: a test whose output cut a character in two (RP36's
// mutant) made nlohmann's dump throw, and the mutate run aborted mid-run. Bytes that are not
// UTF-8 are written as U+FFFD in every JSON report, and the rest of the text is kept.
TEST(Reports, BytesThatAreNotUtf8AreReplacedInTheJsonReportsNotFatal) {
  const std::string broken = "last line: \xC3.", replaced = "last line: \xEF\xBF\xBD.";
  MutateReport mutate = MutateSample();
  mutate.results[1].detail = broken;
  std::string mutate_json = MutateReportJson(mutate);
  EXPECT_NE(mutate_json.find(replaced), std::string::npos) << mutate_json;
  RunReport run = Sample();
  run.legs[0].output_tail = broken;
  std::string run_json = RunReportJson(run), line = LegJsonLine(run.legs[0]);
  EXPECT_NE(run_json.find(replaced), std::string::npos) << run_json;
  EXPECT_NE(line.find(replaced), std::string::npos) << line;
}

TEST(Reports, MutateJunitFailsEachMutantNotAsClaimed) {
  pugi::xml_document doc;
  std::string xml = MutateReportJunit(MutateSample());
  pugi::xml_parse_result parsed = doc.load_string(xml.c_str());
  ASSERT_TRUE(parsed) << parsed.description() << "\n" << xml;
  pugi::xml_node suite = doc.child("testsuites").child("testsuite");
  EXPECT_EQ(suite.attribute("tests").as_int(), 2);
  EXPECT_EQ(suite.attribute("failures").as_int(), 1);
  EXPECT_FALSE(suite.find_child_by_attribute("testcase", "name", "M1").child("failure"));
  pugi::xml_node m2 = suite.find_child_by_attribute("testcase", "name", "M2");
  EXPECT_EQ(std::string(m2.child("failure").attribute("message").value()),
            "survived: Clamp.Top passed");
}

// Each mutant's outcome is green where it is as claimed and red where it is not, on a terminal.
TEST(Reports, MutateTableColoursEachOutcomeByWhetherItIsAsClaimed) {
  std::ostringstream colored, plain;
  WriteMutateTable(MutateSample(), colored, /*color=*/true);
  WriteMutateTable(MutateSample(), plain, /*color=*/false);
  EXPECT_NE(colored.str().find("M1  \033[32mred-as-claimed"), std::string::npos) << colored.str();
  EXPECT_NE(colored.str().find("M2  \033[31msurvived"), std::string::npos) << colored.str();
  EXPECT_EQ(plain.str().find('\033'), std::string::npos) << plain.str();
}

// The page's title carries the verdict's class: red when a mutant is not as claimed.
TEST(Reports, MutateHtmlTitleIsRedOnlyWhenAMutantIsNotAsClaimed) {
  MutateReport all_claimed = MutateSample();
  all_claimed.results.pop_back();
  EXPECT_NE(MutateReportHtml(all_claimed).find("<h1 class=\"ok\">proofgate mutate: pass"),
            std::string::npos);
  EXPECT_NE(MutateReportHtml(MutateSample()).find("<h1 class=\"bad\">proofgate mutate: fail"),
            std::string::npos);
}

// `proofgate load`'s line: a share as a percentage, a value with two decimals, a signal this
// machine lacks as absent.
TEST(Reports, ALoadReadingNamesEachSignalOrSaysItIsAbsent) {
  LoadEvidence e;
  e.foreign_mean = 0.5, e.steal_mean = 0.0, e.loadavg1 = 1.25, e.throttled_s = 0.0;
  EXPECT_EQ(LoadReadingText(e),
            "foreign=50% busy=absent steal=0% loadavg=1.25 psi_cpu=absent psi_io=absent "
            "psi_memory=absent throttled_s=0.00\n");
}

// A CI step parsing --json reads why a run ended before its report; a report is one document.
TEST(Reports, AnErrorBeforeTheReportIsAJsonDocumentToo) {
  testing::TempDir dir;
  testing::MakeRepo(
      dir, R"({"schema_version": 1, "legs": {"a": {"run": "true", "bogus": 1}}, "suites": {}})");
  auto bad = testing::RunProofgate(dir.path(), "preflight --json");
  EXPECT_EQ(bad.exit_code, 2);
  auto doc = JsonSource::Parse("stdout", bad.out);
  ASSERT_TRUE(doc.ok()) << bad.out;
  EXPECT_EQ(doc->root().at("verb"), "preflight");
  EXPECT_EQ(doc->root().at("exit_code"), 2);
  EXPECT_NE(doc->root().at("error").get<std::string>().find("unknown field \"bogus\""),
            std::string::npos)
      << bad.out;
  dir.Write(
      "preflight/suites.json",
      R"({"schema_version": 1, "legs": {"a": {"run": "true"}}, "suites": {"default": ["a"]}})");
  auto good = testing::RunProofgate(dir.path(), "preflight --json");
  auto report = JsonSource::Parse("stdout", good.out);
  ASSERT_TRUE(report.ok()) << "one document, the report\n" << good.out;
  EXPECT_FALSE(report->root().contains("error")) << good.out;
}

}  // namespace
}  // namespace pg
