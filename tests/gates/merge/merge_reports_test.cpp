// `proofgate preflight --shard K/N`, `mutate --shard K/N` and `merge-reports`, as a CI matrix
// uses them: real runs in a real repository, their JSON kept in files, then merged.
#include <gtest/gtest.h>

#include <set>

#include "gates/config/json_source.h"
#include "gates/merge/shard_merge.h"
#include "gates/mutate/mutate_merge.h"
#include "tests/gates/support/mutate_fixture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

// "build" is needed by a and c, so it is not dealt: it runs wherever they do. The leaves
// a, b, c, lint are dealt a, c → shard 1 and b, lint → shard 2. "build" fails once out/flag
// exists (out/ is ignored: the tree hash stays).
const char kSuites[] = R"({"schema_version": 1,
  "legs": {
    "build": {"run": "test ! -e out/flag"},
    "a":     {"run": ["true"], "needs": ["build"]},
    "b":     {"run": ["true"]},
    "c":     {"run": ["true"], "needs": ["build"]},
    "lint":  {"run": ["true"]},
    "bad":   {"run": "exit 3"}
  },
  "suites": {"default": ["build", "a", "b", "c", "lint"], "red": ["a", "bad"]}})";

class MergeReports : public ::testing::Test {
 protected:
  void SetUp() override { testing::MakeRepo(dir_, kSuites); }
  // Runs `args` in the repository and keeps its stdout (the JSON report) as reports/<name>.
  std::string Keep(const std::string& name, const std::string& args, int want_exit = 0) {
    auto r = RunProofgate(dir_.path(), args);
    EXPECT_EQ(r.exit_code, want_exit) << args << "\n" << r.err;
    return reports_.Write(name, r.out);
  }
  testing::CliResult Merge(const std::string& files) {
    return RunProofgate(reports_.path(), "merge-reports " + files);
  }
  TempDir dir_, reports_;
};

// A shard 1 report relabelled as shard 2: the CLI would never write it, a CI mix-up could.
std::string AsShardTwo(std::string report) {
  report.replace(report.find("\"index\": 1"), 10, "\"index\": 2");
  return report;
}

std::vector<std::string> LegNames(const Json& doc) {
  std::vector<std::string> names;
  for (const Json& leg : doc["legs"]) names.push_back(leg["name"]);
  return names;
}

TEST_F(MergeReports, ShardsDealTheLegsNoOneNeedsRoundRobinAndRunTheirNeeds) {
  Json one = Json::parse(RunProofgate(dir_.path(), "preflight --shard 1/2 --json -q").out);
  Json two = Json::parse(RunProofgate(dir_.path(), "preflight --shard 2/2 --json -q").out);
  EXPECT_EQ(one["shard"]["assigned"], Json({"a", "c"}));
  EXPECT_EQ(LegNames(one), (std::vector<std::string>{"build", "a", "c"}));
  EXPECT_EQ(two["shard"]["assigned"], Json({"b", "lint"}));
  EXPECT_EQ(LegNames(two), (std::vector<std::string>{"b", "lint"}));
  EXPECT_EQ(two["shard"]["index"], 2);
  EXPECT_EQ(two["shard"]["count"], 2);
  auto empty = RunProofgate(dir_.path(), "preflight --shard 5/5 --color=never");
  EXPECT_EQ(empty.exit_code, 0) << empty.out;
  EXPECT_NE(empty.out.find("shard 5/5: no legs were dealt to this shard"), std::string::npos)
      << empty.out;
  auto table = RunProofgate(dir_.path(), "preflight --shard 2/2 --color=never");
  EXPECT_NE(table.out.find("shard 2/2: dealt b, lint\n"), std::string::npos) << table.out;
  auto bad = RunProofgate(dir_.path(), "preflight --shard 0/2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--shard 0/2: expected K/N with 1 <= K <= N"), std::string::npos)
      << bad.err;
}

TEST_F(MergeReports, MergedShardsGiveOneRunsVerdictWithEveryLegOnce) {
  std::string one = Keep("1.json", "preflight --shard 1/2 --json -q");
  std::string two = Keep("2.json", "preflight --shard 2/2 --json -q");
  auto merged = Merge("2.json 1.json --json");  // any order: shard order is read from the files
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  Json doc = Json::parse(merged.out);
  EXPECT_EQ(LegNames(doc), (std::vector<std::string>{"build", "a", "c", "b", "lint"}));
  EXPECT_EQ(doc["verdict"], "pass");
  EXPECT_EQ(doc["counts"]["pass"], 5);
  EXPECT_EQ(doc["merged_from"], Json({"1.json", "2.json"}));
  EXPECT_TRUE(doc["shard"].is_null());
  // Its HTML timeline says why it plots no load (each shard sampled its own machine).
  auto html = Merge("2.json 1.json --html merged.html");
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_NE(reports_.Read("merged.html").find("Merged from 2 shards"), std::string::npos);
  Keep("whole.json", "preflight --json -q --html " + reports_.path() + "/whole.html");
  EXPECT_EQ(reports_.Read("whole.html").find("Merged from"), std::string::npos);

  Keep("r1.json", "preflight red --shard 1/2 --json -q", 0);
  Keep("r2.json", "preflight red --shard 2/2 --json -q", 1);
  auto red = Merge("r1.json r2.json --color=never");
  EXPECT_EQ(red.exit_code, 1) << red.err;
  EXPECT_NE(red.out.find("bad    fail"), std::string::npos) << red.out;
  EXPECT_NE(red.out.find("verdict: fail (2 passed, 1 failed"), std::string::npos) << red.out;
}

TEST_F(MergeReports, ALegThatDisagreesAcrossShardsKeepsItsWorstOutcome) {
  Keep("1.json", "preflight --shard 1/2 --json -q");
  dir_.Write("out/flag", "");
  // Shard 2 does not run build; one that does: shard 1 again, now failing, relabelled below.
  Keep("2.json", "preflight --shard 1/2 --json -q --no-cache", 1);
  auto twice = Merge("1.json 2.json");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("shard 1/2 given twice: 1.json and 2.json"), std::string::npos)
      << twice.err;
  // As shards 1 and 2 of one run: the second file says it is shard 2.
  reports_.Write("2.json", AsShardTwo(reports_.Read("2.json")));
  auto merged = Merge("1.json 2.json --json");
  EXPECT_EQ(merged.exit_code, 1) << merged.err;
  Json doc = Json::parse(merged.out);
  EXPECT_EQ(doc["legs"][0]["name"], "build");
  EXPECT_EQ(doc["legs"][0]["outcome"], "fail");
  EXPECT_EQ(doc["legs"][0]["note"], "exit status 1; shards disagree: 1 pass, 2 fail");
}

TEST_F(MergeReports, RefusesMissingForeignAndUnreadableReportsAndStaleShards) {
  Keep("1.json", "preflight --shard 1/2 --json -q");
  Keep("whole.json", "preflight --json -q");
  auto missing = Merge("1.json");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "merge-reports: shard 2/2 missing\n");
  auto unsharded = Merge("1.json whole.json");
  EXPECT_EQ(unsharded.exit_code, 2);
  EXPECT_NE(unsharded.err.find("whole.json: not a shard"), std::string::npos) << unsharded.err;
  reports_.Write("junk.json", "{\"tool\": \"other\"}");
  auto junk = Merge("1.json junk.json");
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_NE(junk.err.find("junk.json: not a proofgate JSON report"), std::string::npos) << junk.err;
  std::string typo = reports_.Read("whole.json");
  typo.replace(typo.find("\"foreign_mean\": "), 16, "\"foreign_mean\": \"high\", \"x\": ");
  reports_.Write("typo.json", typo);
  auto wrong = Merge("typo.json");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("typo.json:"), std::string::npos) << wrong.err;
  EXPECT_NE(wrong.err.find("field \"foreign_mean\" must be a number"), std::string::npos)
      << wrong.err;
  reports_.Write("broken.json", "{\"tool\": ");
  auto broken = Merge("broken.json");
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.err.find("broken.json:1:"), std::string::npos) << broken.err;
  std::string other = AsShardTwo(reports_.Read("1.json"));
  std::string mutate = other;
  mutate.replace(mutate.find("\"verb\": \"preflight\""), 19, "\"verb\": \"mutate\"");
  reports_.Write("mutate.json", mutate);
  auto mixed = Merge("1.json mutate.json");
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_EQ(mixed.err,
            "merge-reports: mutate.json: verb \"mutate\" differs from 1.json's \"preflight\"\n");
  other.replace(other.find("\"toolchain\": \""), 14, "\"toolchain\": \"elsewhere ");
  reports_.Write("toolchain.json", other);
  auto toolchain = Merge("1.json toolchain.json");
  EXPECT_EQ(toolchain.exit_code, 2);
  EXPECT_NE(toolchain.err.find("toolchain.json: its toolchain fingerprint differs from 1.json's"),
            std::string::npos)
      << toolchain.err;
  dir_.Write("tracked.txt", "a change to the tree");
  Keep("2.json", "preflight --shard 2/2 --json -q");
  auto stale = Merge("1.json 2.json");
  EXPECT_EQ(stale.exit_code, 5);
  EXPECT_NE(stale.err.find("stale: 2.json ran on tree "), std::string::npos) << stale.err;
}

// Each part of a report's "shard" field is checked before it is read: one missing is named,
// never a JSON exception.
TEST(MergeReportsShard, AShardFieldMissingItsIndexOrCountIsNamed) {
  const std::string head = R"({"tool": "proofgate", "verb": "preflight", "shard": )";
  for (const char* shard :
       {R"({"index": 1})", R"({"count": 2})", R"({"index": "1", "count": 2})", "[1, 2]"}) {
    auto doc = JsonSource::Parse("r.json", head + shard + "}");
    ASSERT_TRUE(doc.ok()) << doc.status().message();
    auto header = ReadShardHeader(*doc);
    ASSERT_FALSE(header.ok()) << shard;
    EXPECT_NE(
        header.status().message().find("field \"shard\" must be {\"index\": K, \"count\": N}"),
        std::string::npos)
        << shard << ": " << header.status().message();
  }
  auto good = JsonSource::Parse("r.json", head + R"({"index": 2, "count": 3}})");
  ASSERT_TRUE(good.ok());
  auto header = ReadShardHeader(*good);
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->index, 2);
  EXPECT_EQ(header->count, 3);
}

TEST(MergeReportsMutate, ShardsMergeIntoTheReportOfOneRun) {
  TempDir dir, reports;
  testing::MakeShellProject(dir);
  auto whole = RunProofgate(dir.path(), "mutate -q --no-spec-update --json");
  auto one = RunProofgate(dir.path(), "mutate -q --no-spec-update --json --shard 1/2");
  auto two = RunProofgate(dir.path(), "mutate -q --no-spec-update --json --shard 2/2");
  reports.Write("1.json", one.out);
  reports.Write("2.json", two.out);
  auto merged = RunProofgate(reports.path(), "merge-reports 1.json 2.json --json");
  ASSERT_EQ(merged.exit_code, whole.exit_code) << merged.err;
  Json want = Json::parse(whole.out), got = Json::parse(merged.out);
  ASSERT_EQ(got["results"].size(), want["results"].size());
  std::set<std::string> want_ids, got_ids;
  for (const Json& r : want["results"])
    want_ids.insert(r["id"].get<std::string>() + " " + r["outcome"].get<std::string>());
  for (const Json& r : got["results"])
    got_ids.insert(r["id"].get<std::string>() + " " + r["outcome"].get<std::string>());
  EXPECT_EQ(got_ids, want_ids);
  EXPECT_EQ(got["tree_hash"], want["tree_hash"]);
  // Shard 1's results again, labelled shard 2: the same mutants in two shards.
  reports.Write("1-as-2.json", AsShardTwo(one.out));
  auto twice = RunProofgate(reports.path(), "merge-reports 1.json 1-as-2.json");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("is in two shards (1.json and 1-as-2.json)"), std::string::npos)
      << twice.err;
}

// Each shard's red baseline is named with its shard, in shard order, one after another.
TEST(MergeReportsMutate, EachShardsBaselineProblemIsNamedWithItsShard) {
  std::vector<MutateReport> shards(3);
  for (int i = 0; i < 3; ++i) shards[i].shard_index = i + 1, shards[i].shard_count = 3;
  shards[0].baseline_problem = "A.Test fails";
  shards[2].baseline_problem = "the build failed";
  auto merged = MergeMutateReports(shards, {"1.json", "2.json", "3.json"});
  ASSERT_TRUE(merged.ok()) << merged.status().message();
  EXPECT_EQ(merged->baseline_problem, "shard 1: A.Test fails; shard 3: the build failed");
}

}  // namespace
}  // namespace pg
