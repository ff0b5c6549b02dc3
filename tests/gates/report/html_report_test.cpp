// The HTML pages (specs/reports.md): self-contained, escaped, the timeline's geometry, sizes at
// scale, each verb's page, and a real headless Chromium loading one.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "gates/config/json_source.h"
#include "gates/contention/load_timeline.h"
#include "gates/mutate/mutate_html.h"
#include "gates/prove/prove_html.h"
#include "gates/report/writers.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

Snapshot Cpu(uint64_t busy, uint64_t idle, uint64_t steal = 0) {
  Snapshot s;
  s.cpus[0] = CpuTimes{busy, 0, 0, idle, 0, 0, 0, steal};
  return s;
}

TEST(LoadTimeline, ForeignIsBusyTimeNeitherALegsTreeNorTheRunners) {
  LoadTimeline t;
  Snapshot a = Cpu(100, 100), b = Cpu(160, 120, 20);
  a.trees[42] = 10, b.trees[42] = 30;       // the leg: 20 ticks
  a.runner_ticks = 5, b.runner_ticks = 15;  // proofgate: 10 ticks
  b.psi_cpu = 12.5;
  t.Add(a, 0);
  t.Add(b, 1);
  ASSERT_EQ(t.points().size(), 1u);
  const LoadPoint& p = t.points()[0];
  EXPECT_DOUBLE_EQ(p.t, 1);
  EXPECT_DOUBLE_EQ(p.foreign, 30.0 / 100);  // 60 busy - 20 leg - 10 runner, of 100 in all
  EXPECT_DOUBLE_EQ(p.steal, 20.0 / 100);
  EXPECT_EQ(p.psi_cpu, 12.5);
}

TEST(LoadTimeline, ALegReapedBetweenSamplesKeepsItsLastCpuAsItsOwn) {
  LoadTimeline t;
  Snapshot a = Cpu(100, 100), b = Cpu(160, 140);
  a.trees[42] = 100;  // b: the leg is gone, reaped with 150 ticks in all
  t.Add(a, 0);
  t.Reaped(42, 150);
  t.Add(b, 1);
  ASSERT_EQ(t.points().size(), 1u);
  EXPECT_DOUBLE_EQ(t.points()[0].foreign, 10.0 / 100);  // 60 busy - the leg's last 50
}

// A real run samples the machine all along, not only while a leg is metered: a point about
// every sample interval, in order, inside the run.
TEST(LoadTimeline, ARealRunRecordsAPointAboutEverySampleInterval) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {"nap": {"run": ["sleep", "1.2"]}},
                             "suites": {"default": ["nap"]}, "contention": {"sample_interval_s": 0.1}})");
  auto run = RunProofgate(dir.path(), "preflight --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Json doc = Json::parse(run.out);
  const Json& points = doc["load_timeline"];
  EXPECT_GE(points.size(), 8u) << points.dump();
  double last = 0;
  for (const Json& p : points) {
    EXPECT_GT(p["t"].get<double>(), last);
    last = p["t"].get<double>();
    EXPECT_GE(p["foreign"].get<double>(), 0.0);
    EXPECT_LE(p["foreign"].get<double>(), 1.0);
  }
  EXPECT_LE(last, doc["wall_s"].get<double>() + 0.5);
}

RunReport TwoAttemptRun() {
  RunReport report;
  report.wall_s = 10;
  report.tree_hash = "abc123";
  LegResult leg;
  leg.name = "bench";
  leg.outcome = Outcome::kPass;
  leg.started_s = 5, leg.wall_s = 2;
  leg.exit_code = 0;
  leg.output_tail = "<script>alert(1)</script> \xff bytes\n";
  Attempt first;
  first.outcome = Outcome::kFail, first.started_s = 0, first.wall_s = 2;
  leg.attempts = {first};
  report.legs = {leg};
  for (int i = 1; i <= 4; ++i)
    report.load_timeline.push_back(LoadPoint{2.0 * i, 0.1 * i, 0.0, std::nullopt});
  return report;
}

TEST(HtmlReport, APageNeedsNothingOutsideItself) {
  std::string page = RunReportHtml(TwoAttemptRun());
  std::regex link(R"re((src|href)\s*=\s*"([^"]*)")re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), link); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ((*it)[2].str().substr(0, 1), "#") << (*it)[0];
  }
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
  EXPECT_EQ(page.find("url(http"), std::string::npos);
  EXPECT_NE(page.find("<style>"), std::string::npos);
}

// #64: a 0.1 s run has no timeline point, but its legs were sampled: the page says why it has no
// timeline, and says /proc could not be sampled only when nothing was.
TEST(HtmlReport, ARunShorterThanOneSampleIntervalIsNotCalledUnsampled) {
  RunReport report = TwoAttemptRun();
  report.load_timeline.clear();
  report.legs[0].load.samples = 1;
  std::string page = RunReportHtml(report);
  EXPECT_NE(page.find("the run ended within one sampling interval"), std::string::npos) << page;
  EXPECT_EQ(page.find("could not be sampled"), std::string::npos) << page;
  report.legs[0].load.samples = 0;
  report.legs[0].attempts[0].load.samples = 1;  // an earlier attempt's sample counts too
  EXPECT_EQ(RunReportHtml(report).find("could not be sampled"), std::string::npos);
  report.legs[0].attempts[0].load.samples = 0;
  EXPECT_NE(RunReportHtml(report).find("/proc could not be sampled"), std::string::npos);
}

// span 10 s over 900 px from x = 200: 90 px a second.
TEST(HtmlReport, TimelineDrawsEachAttemptAndTheQuietWaitAndTheLoadOnOneAxis) {
  std::string page = RunReportHtml(TwoAttemptRun());
  EXPECT_NE(page.find("<rect class=\"o-fail\" x=\"200.0\" y=\"2.0\" width=\"180.0\""),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<rect class=\"quiet\" x=\"380.0\" y=\"2.0\" width=\"270.0\""),
            std::string::npos);
  EXPECT_NE(page.find("<rect class=\"o-pass\" x=\"650.0\" y=\"2.0\" width=\"180.0\""),
            std::string::npos);
  // The load chart sits under the legs (y from 26 to 136): 10% at 2 s, 40% at 8 s.
  EXPECT_NE(page.find("<polyline class=\"foreign\" points=\"380.0,125.0 560.0,114.0 740.0,103.0 "
                      "920.0,92.0 \"/>"),
            std::string::npos);
  // A tick a second (1 × 10^0 for a 10 s span), each at its time's x: 5 s at 200 + 5 × 90.
  std::regex tick("<line x1=\"([0-9.]+)\" x2=\"[0-9.]+\" y1=\"0\"");
  std::vector<std::string> ticks;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), tick); it != std::sregex_iterator();
       ++it)
    ticks.push_back((*it)[1]);
  ASSERT_EQ(ticks.size(), 11u) << page;
  EXPECT_EQ(ticks[0], "200.0");
  EXPECT_EQ(ticks[5], "650.0");
  EXPECT_EQ(ticks[10], "1100.0");
}

TEST(HtmlReport, OutputIsEscapedAndInvalidUtf8Replaced) {
  std::string page = RunReportHtml(TwoAttemptRun());
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt; \xef\xbf\xbd bytes"),
            std::string::npos);
}

// A tree that changed while the run ran is named in the facts; an unchanged one is not.
TEST(HtmlReport, TheFactsNameATreeThatChangedDuringTheRun) {
  RunReport report = TwoAttemptRun();
  report.tree_hash_after = report.tree_hash;
  EXPECT_EQ(RunReportHtml(report).find("changed during the run"), std::string::npos);
  report.tree_hash_after = "def456";
  EXPECT_NE(RunReportHtml(report).find("<code>def456</code> (changed during the run)"),
            std::string::npos);
  report.tree_changes = {{"gen/<v>.h", "added"}};
  EXPECT_NE(RunReportHtml(report).find("(changed during the run: gen/&lt;v&gt;.h added)"),
            std::string::npos);
}

// A cached leg ran in an earlier run: its row draws no bar in this run's time.
TEST(HtmlReport, ACachedLegDrawsNoBarInThisRunsTimeline) {
  RunReport report = TwoAttemptRun();
  report.legs[0].attempts.clear();
  std::string drawn = RunReportHtml(report);
  EXPECT_NE(drawn.find("<rect class=\"o-pass\""), std::string::npos) << drawn;
  report.legs[0].cached = true;
  std::string cached = RunReportHtml(report);
  EXPECT_EQ(cached.find("<rect class=\"o-pass\""), std::string::npos) << cached;
}

// A shard of a sharded run says which; an unsharded run has no such fact.
TEST(HtmlReport, TheFactsNameTheShardOfAShardedRunOnly) {
  RunReport report = TwoAttemptRun();
  EXPECT_EQ(RunReportHtml(report).find("<dt>shard</dt>"), std::string::npos);
  report.shard_index = 2, report.shard_count = 3;
  EXPECT_NE(RunReportHtml(report).find("<dt>shard</dt><dd>2 of 3</dd>"), std::string::npos);
  report.shard_index = 1, report.shard_count = 1;  // --shard 1/1, as the table and the JSON say it
  EXPECT_NE(RunReportHtml(report).find("<dt>shard</dt><dd>1 of 1</dd>"), std::string::npos);
}

// A mutant's logs are a fact of its details only where it kept them.
TEST(HtmlReport, AMutantsLogsAreNamedWhereItHasThem) {
  MutateReport report;
  report.results.resize(2);
  report.results[0].id = "M1", report.results[0].outcome = MutantOutcome::kRedAsClaimed;
  report.results[0].log_dir = "/work/logs/M1";
  report.results[1].id = "M2", report.results[1].outcome = MutantOutcome::kRedAsClaimed;
  std::string page = MutateReportHtml(report);
  EXPECT_NE(page.find("<code>/work/logs/M1</code>"), std::string::npos);
  size_t logs = 0;
  for (size_t at = page.find(">logs<"); at != std::string::npos; at = page.find(">logs<", at + 1))
    ++logs;
  EXPECT_EQ(logs, 1u) << page;
}

TEST(HtmlReport, FiveHundredLegsWithFourKibTailsStayUnderThreeMib) {
  RunReport report;
  report.wall_s = 600;
  for (int i = 0; i < 500; ++i) {
    LegResult leg;
    leg.name = "leg-" + std::to_string(i);
    leg.argv = {"ctest", "-R", "^Suite" + std::to_string(i) + "\\."};
    leg.outcome = i % 7 == 0 ? Outcome::kFail : Outcome::kPass;
    leg.started_s = i, leg.wall_s = 30;
    leg.output_tail = std::string(4096, 'x');
    report.legs.push_back(leg);
  }
  for (int i = 0; i < 2400; ++i)
    report.load_timeline.push_back(LoadPoint{i * 0.25, 0.5, 0.01, 3.0});
  size_t size = RunReportHtml(report).size();
  EXPECT_LT(size, 3u << 20) << size;
  EXPECT_GT(size, 500u * 4096);  // every tail is in it
}

MutantResult Generated(int i, MutantOutcome outcome) {
  MutantResult r;
  r.id =
      "src/file" + std::to_string(i % 40) + ".cpp:" + std::to_string(i) + ":7:relational:0123abcd";
  r.catalog = "(generated)";
  r.change = "a < b → a <= b";
  r.outcome = outcome;
  r.generated = MutantResult::Generated{"src/file.cpp",
                                        "relational",
                                        "<",
                                        "<=",
                                        "--- a/src/file.cpp\n+++ b/src/file.cpp\n@@ -10,1 +10,1 "
                                        "@@\n-  if (a < b) return;\n+  if (a <= b) return;\n",
                                        i,
                                        7,
                                        {"Suite.TestOne", "Suite.TestTwo", "Other.Test"}};
  return r;
}

TEST(HtmlReport, TwoThousandGeneratedMutantsStayUnderFourMib) {
  MutateReport report;
  for (int i = 0; i < 2000; ++i)
    report.results.push_back(
        Generated(i, i % 4 ? MutantOutcome::kKilled : MutantOutcome::kSurvived));
  size_t size = MutateReportHtml(report).size();
  EXPECT_LT(size, 4u << 20) << size;
}

TEST(HtmlReport, MutatePageListsSurvivorsFirstWithTheirDiffsAndTheScore) {
  MutateReport report;
  report.results = {Generated(1, MutantOutcome::kKilled), Generated(2, MutantOutcome::kSurvived)};
  std::string page = MutateReportHtml(report);
  size_t survivor = page.find("<tr class=\"bad\"><td><a href=\"#m-src/file2.cpp:2:7");
  size_t killed = page.find("<tr class=\"ok\"><td><a href=\"#m-src/file1.cpp:1:7");
  ASSERT_NE(survivor, std::string::npos) << page;
  ASSERT_NE(killed, std::string::npos);
  EXPECT_LT(survivor, killed);
  EXPECT_NE(page.find("+  if (a &lt;= b) return;"), std::string::npos);
  EXPECT_NE(page.find("50% (killed / (killed + survived))"), std::string::npos);
}

TEST(HtmlReport, ProvePageShowsRedBeforeGreenAfterAndWhatBroke) {
  ProveReport report;
  report.base_id = "1111", report.head_id = "2222";
  report.fail_to_pass = {{"Calc.NewCase", "fail", "pass", "proven", "", "Expected 2"},
                         {"Calc.Weak", "pass", "pass", "not proven", "green before", ""}};
  report.broken = {{"Calc.Old", "pass", "fail", "broken", "exit 1", ""}};
  report.pass_to_pass_checked = 3;
  std::string page = ProveReportHtml(report);
  EXPECT_NE(page.find("<tr class=\"ok\"><td><code>Calc.NewCase</code></td><td><span class=\"badge "
                      "o-fail\">fail</span>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<tr class=\"bad\"><td><code>Calc.Weak</code>"), std::string::npos);
  EXPECT_NE(page.find("<td>red before: Expected 2</td>"), std::string::npos)
      << page;  // why it was red
  EXPECT_NE(page.find("Broken (passed on the base)"), std::string::npos);
  EXPECT_NE(page.find("red before 1/2, green after 2/2, pass-to-pass 2/3"), std::string::npos);
}

std::string Chromium() {
  for (const char* path :
       {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}) {
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

const char kSuites[] = R"({"schema_version": 1,
  "legs": {
    "ok":   {"run": ["true"]},
    "unit": {"run": "printf '[ RUN      ] Math.Adds\nsrc/math_test.cpp:12: Failure\nExpected: 3\n'; exit 1"}
  },
  "suites": {"default": ["ok", "unit"]}})";

// The page a real run writes, in a real browser: it loads with nothing on the console, its DOM
// names each leg with its outcome, and a screenshot is taken (look at it once:
// $TMPDIR/proofgate-page.png is kept when PROOFGATE_KEEP_SCREENSHOT is set).
TEST(HtmlReport, ChromiumLoadsARunsPageWithoutConsoleErrors) {
  std::string chromium = Chromium();
  if (chromium.empty())
    GTEST_SKIP() << "no Chromium installed (scripts/install-deps installs Debian's chromium)";
  TempDir dir;
  testing::MakeRepo(dir, kSuites);
  auto run = RunProofgate(dir.path(), "preflight --html out/page.html");
  ASSERT_EQ(run.exit_code, 1) << run.err;
  std::string page = dir.path() + "/out/page.html";
  std::string shot = std::getenv("PROOFGATE_KEEP_SCREENSHOT") ? "/tmp/proofgate-page.png"
                                                              : dir.path() + "/out/page.png";
  std::vector<std::string> common = {chromium,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--enable-logging=stderr",
                                     "--v=0",
                                     "--user-data-dir=" + dir.path() + "/out/profile",
                                     "--window-size=1280,1000"};
  std::vector<std::string> dump = common, picture = common;
  dump.insert(dump.end(), {"--dump-dom", "file://" + page});
  picture.insert(picture.end(), {"--screenshot=" + shot, "file://" + page});
  auto dom = RunCapture(dump, dir.path(), 60);
  ASSERT_TRUE(dom.ok()) << dom.status().message();
  EXPECT_EQ(dom->exit.exit_code, 0) << dom->output;
  EXPECT_EQ(dom->output.find("CONSOLE"), std::string::npos)
      << dom->output;  // no error, no message at all
  EXPECT_NE(dom->output.find("<b>unit</b> <span class=\"badge o-fail\">fail</span>"),
            std::string::npos)
      << dom->output;
  EXPECT_NE(dom->output.find("<b>ok</b> <span class=\"badge o-pass\">pass</span>"),
            std::string::npos);
  EXPECT_NE(dom->output.find("<svg id=\"timeline\""), std::string::npos);
  auto pic = RunCapture(picture, dir.path(), 60);
  ASSERT_TRUE(pic.ok()) << pic.status().message();
  std::error_code ec;
  EXPECT_GT(std::filesystem::file_size(shot, ec), 10000u) << pic->output;
}

}  // namespace
}  // namespace pg
