#include <gtest/gtest.h>

#include "gates/config/suite_config.h"
#include "gates/git/git.h"
#include "gates/range/ownership_gates.h"
#include "gates/range/range_gates.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

const TrailerRule kAssisted{"Assisted-by", "^[^<>]+ <[^<>@]+@[^<>]+>$", "AI-Assisted", "^true$"};

TEST(Ownership, ATrailerIsRequiredOnlyWhenItsConditionHolds) {
  EXPECT_TRUE(TrailerProblems("Fix the cache\n\nBody.\n", {kAssisted}).empty());
  EXPECT_TRUE(TrailerProblems("Fix\n\nAI-Assisted: false\n", {kAssisted}).empty());
  EXPECT_EQ(TrailerProblems("Fix\n\nAI-Assisted: true\n", {kAssisted}),
            std::vector<std::string>{
                "missing trailer \"Assisted-by\" (required when AI-Assisted: true)"});
  EXPECT_TRUE(
      TrailerProblems("Fix\n\nAI-Assisted: true\nAssisted-by: Agent <agent@example.invalid>\n",
                      {kAssisted})
          .empty());
}

// The condition is its own key's: another trailer whose value matches the pattern is no reason,
// and of two that are, the first is the one named.
TEST(Ownership, OnlyTheConditionsOwnKeyMakesARuleApplyAndTheFirstSuchTrailerIsNamed) {
  EXPECT_TRUE(TrailerProblems("Fix\n\nReviewed: true\n", {kAssisted}).empty());
  TrailerRule review{"Reviewed-by", "", "Risk", "^(high|medium)$"};
  EXPECT_EQ(TrailerProblems("Fix\n\nRisk: high\nRisk: medium\n", {review}),
            std::vector<std::string>{"missing trailer \"Reviewed-by\" (required when Risk: high)"});
}

TEST(Ownership, ATrailerValueMustMatchItsPattern) {
  EXPECT_EQ(TrailerProblems("Fix\n\nAI-Assisted: true\nAssisted-by: someone\n", {kAssisted}),
            std::vector<std::string>{
                "trailer \"Assisted-by: someone\" does not match /^[^<>]+ <[^<>@]+@[^<>]+>$/"});
}

TEST(Ownership, ARuleWithoutConditionAppliesToEveryCommitAndOnlyTheLastParagraphIsTrailers) {
  TrailerRule signoff{"Signed-off-by", "", "", ""};
  EXPECT_EQ(TrailerProblems("Fix\n\nSigned-off-by: A <a@b.c>\n\nA later paragraph.\n", {signoff}),
            std::vector<std::string>{"missing trailer \"Signed-off-by\""});
}

TEST(Ownership, OwedItemsNeedAnIssueOrAReasonForHavingNone) {
  std::string spec =
      "# S\n## Owed\n- fast path: #5\n- no owner: CUDA needs a GPU machine\n- later maybe\n  "
      "continued #77\n"
      "- nothing at all\n## Other\n- not owed\n";
  EXPECT_EQ(
      OwedProblems("specs/s.md", spec, {5}),
      (std::vector<std::string>{
          "specs/s.md:5: Owed \"later maybe   continued #77\" names #77, which is not an issue",
          "specs/s.md:7: Owed \"nothing at all\" has no owner (name an issue #N, or say "
          "\"no owner:\" and why)"}));
}

TEST(Ownership, ANoOwnerWithoutAReasonIsNoOwner) {
  EXPECT_EQ(OwedProblems("s.md", "## Owed\n- No owner:\n", {}).size(), 1u);
}

TEST(Ownership, IssueReferencesInMessagesMustExist) {
  EXPECT_TRUE(IssueRefProblems("Fix\n\nFixes #5\nRefs: #6\n", {5, 6}).empty());
  EXPECT_EQ(IssueRefProblems("Fix\n\nCloses #9 and mentions #10 in passing\n", {5}),
            std::vector<std::string>{"refers to #9, which is not an issue"});
}

TEST(Ownership, SnapshotsAreListsOfIssuesOrNumbersAndBadOnesAreNamed) {
  EXPECT_EQ(
      ParseIssueSnapshot("i.json", R"([{"number": 3, "title": "x"}, {"number": 10}])").value(),
      (std::set<long>{3, 10}));
  EXPECT_EQ(ParseIssueSnapshot("i.json", R"({"issues": [4, 5]})").value(), (std::set<long>{4, 5}));
  auto bad = ParseIssueSnapshot("i.json", "[{\"number\": 3},\n {\"title\": \"no number\"}]");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "i.json:2:2: an issue needs an integer \"number\"");
}

TEST(Ownership, TrailerRulesAreCheckedWhenSuitesJsonIsRead) {
  auto config = ParseSuiteConfig("suites.json", R"({"schema_version": 1, "legs": {}, "suites": {},
 "range": {"trailers": [{"require": "Assisted-by", "pattern": "(unclosed"}]}})");
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("suites.json:2:"), std::string::npos)
      << config.status().message();
  EXPECT_NE(config.status().message().find("invalid regex"), std::string::npos)
      << config.status().message();
}

// The two gates on a real repository through the CLI, configured in suites.json.
TEST(Ownership, RangeGatesReadTheirRulesAndSnapshotFromSuitesJson) {
  TempDir dir;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {}, "suites": {}, "range": {
    "trailers": [{"require": "Assisted-by", "when": {"AI-Assisted": "^true$"}}], "issues": "issues.json"}})");
  std::string base = git::WalkRange(dir.path(), "HEAD").value().back().id;
  dir.Write("issues.json", R"([{"number": 1}])");
  dir.Write("specs/a.md", "# A\n## Owed\n- the rest: #1\n");
  ASSERT_TRUE(
      git::CommitAll(dir.path(), "Add spec a\n\nAI-Assisted: true\nAssisted-by: Agent <a@b.c>\n")
          .ok());
  auto ok =
      testing::RunProofgate(dir.path(), "range " + base + "..HEAD --gate trailers,owed-owners");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  dir.Write("specs/a.md", "# A\n## Owed\n- the rest\n");
  ASSERT_TRUE(git::CommitAll(dir.path(),
                             "Drop the owner\n\nRefs #2 for the context.\n\nAI-Assisted: true\n")
                  .ok());
  auto bad =
      testing::RunProofgate(dir.path(), "range " + base + "..HEAD --gate trailers,owed-owners");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("trailers  FAIL  Drop the owner\n    missing trailer \"Assisted-by\" "
                         "(required when AI-Assisted: true)"),
            std::string::npos)
      << bad.out;
  EXPECT_NE(
      bad.out.find(
          "refers to #2, which is not an issue; specs/a.md:3: Owed \"the rest\" has no owner"),
      std::string::npos)
      << bad.out;
  auto missing = testing::RunProofgate(
      dir.path(), "range " + base + "..HEAD --gate owed-owners --issues nope.json");
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

// A snapshot outside the repository (a CI job's download) is named by its absolute path.
TEST(Ownership, AnAbsoluteIssuesPathIsReadWhereItIs) {
  TempDir dir, elsewhere;
  testing::MakeRepo(dir, R"({"schema_version": 1, "legs": {}, "suites": {}})");
  std::string base = git::WalkRange(dir.path(), "HEAD").value().back().id;
  elsewhere.Write("snapshot.json", R"([{"number": 7}])");
  dir.Write("specs/a.md", "# A\n## Owed\n- the rest: #7\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "Add spec a").ok());
  auto run =
      testing::RunProofgate(dir.path(), "range " + base + "..HEAD --gate owed-owners --issues " +
                                            elsewhere.path() + "/snapshot.json");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
}

}  // namespace
}  // namespace pg
