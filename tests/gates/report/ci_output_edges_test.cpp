// The edges of what CI output measures and cuts (specs/reports.md), each found by `mutate
// --generate` on gates/report/ci_output.cpp as a survivor: a place outside the root, the
// whole log's size limit, the annotation count, the step summary's room.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gates/config/json_source.h"
#include "gates/report/ci_output.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

const std::string kNote = "\n\n> ✂️ proofgate cut this summary";

LegResult FailedLeg(const std::string& cwd, const std::string& tail) {
  LegResult leg;
  leg.name = "unit";
  leg.outcome = Outcome::kFail;
  leg.cwd = cwd;
  leg.output_tail = tail;
  return leg;
}

// GitHub can only place a file of the repository: one outside it keeps the path the log gave.
TEST(CiOutputEdges, APlaceOutsideTheRootKeepsThePathTheLogGave) {
  RunReport report;
  report.root = "/repo";
  report.legs = {FailedLeg("/repo", "/elsewhere/x_test.cpp:3: Failure\nboom\n")};
  std::vector<Annotation> a = RunAnnotations(report);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].file, "/elsewhere/x_test.cpp");
}

// The whole log is read when it is under 16 MiB; one of exactly 16 MiB is not, and the
// places come from the tail.
TEST(CiOutputEdges, ALogOfSixteenMebibytesIsNotReadAndTheTailGivesThePlaces) {
  TempDir dir;
  std::string log = "log_test.cpp:1: Failure\nfrom the log\n";
  log.resize(std::size_t{16} << 20, '\n');
  RunReport report;
  report.root = dir.path();
  LegResult leg = FailedLeg(dir.path(), "tail_test.cpp:2: Failure\nfrom the tail\n");
  leg.log_path = dir.Write("unit.log", log);
  report.legs = {leg};
  std::vector<Annotation> a = RunAnnotations(report);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].file, "tail_test.cpp");
}

TEST(CiOutputEdges, ExactlyTheMostAnnotationsNeedNoWarning) {
  std::vector<Annotation> most(kMaxAnnotations, Annotation{"error", "a.cpp", 1, "t", "m", "c"});
  std::string out = GithubAnnotations(most);
  EXPECT_EQ(out.find("::warning"), std::string::npos) << out;
}

// A summary of exactly the limit is whole; with no room beyond the note, nothing of the summary
// comes before it, whether its first line is one character or it has no line end at all.
TEST(CiOutputEdges, ASummaryOfTheLimitIsWholeAndNoRoomLeavesTheNoteAlone) {
  std::string exact(99, 'a');
  exact += "\n";
  EXPECT_EQ(FitStepSummary(exact, 100, ""), exact);
  std::string fit = FitStepSummary("a\n" + std::string(500, 'b') + "\n", 20, "");
  EXPECT_EQ(fit.rfind(kNote, 0), 0u) << fit;
  fit = FitStepSummary(std::string(5000, 'c'), 4000, "");
  EXPECT_EQ(fit.rfind(kNote, 0), 0u) << fit.substr(0, 80);
}

std::uintmax_t AppendTo(const std::string& path, const std::string& markdown) {
  setenv("GITHUB_STEP_SUMMARY", path.c_str(), 1);
  Status appended = AppendStepSummary(markdown, "");
  unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_TRUE(appended.ok()) << appended.message();
  std::error_code ec;
  return std::filesystem::file_size(path, ec);
}

// A file past GitHub's limit (earlier steps wrote more) gets nothing; one with exactly 200
// bytes left gets what fits; a new file takes a summary of exactly the limit whole.
TEST(CiOutputEdges, TheStepSummaryIsLeftAlonePastTheLimitAndFilledToIt) {
  TempDir dir;
  std::string over = dir.Write("over.md", std::string(kStepSummaryLimit + 10, 'a'));
  EXPECT_EQ(AppendTo(over, "new\n"), kStepSummaryLimit + 10);
  std::string edge = dir.Write("edge.md", std::string(kStepSummaryLimit - 200, 'a'));
  EXPECT_EQ(AppendTo(edge, "new\n"), kStepSummaryLimit - 196);
  std::string whole(kStepSummaryLimit - 1, 'm');
  whole += "\n";
  EXPECT_EQ(AppendTo(dir.path() + "/new.md", whole), kStepSummaryLimit);
  EXPECT_EQ(dir.Read("new.md").find(kNote), std::string::npos);
}

TEST(CiOutputEdges, CodeQualityFingerprintsAreThirtyTwoHexDigits) {
  Json issues = Json::parse(CodeQualityJson({{"error", "a.cpp", 3, "t", "m", "failing-test"}}));
  ASSERT_EQ(issues.size(), 1u);
  std::string fingerprint = issues[0]["fingerprint"];
  EXPECT_EQ(fingerprint.size(), 32u);
  EXPECT_EQ(fingerprint.find_first_not_of("0123456789abcdef"), std::string::npos) << fingerprint;
}

}  // namespace
}  // namespace pg
