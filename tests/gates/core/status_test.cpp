#include <gtest/gtest.h>

#include "gates/core/exit_code.h"
#include "gates/runner/leg_result.h"

namespace pg {
namespace {

TEST(Status, WithContextPrefixesTheMessageAndKeepsTheKind) {
  Status s = Status::Invalid("bad field").WithContext("suites.json:3:5");
  EXPECT_EQ(s.message(), "suites.json:3:5: bad field");
  EXPECT_EQ(s.kind(), ErrorKind::kInvalidInput);
}

RunReport ReportOf(std::initializer_list<Outcome> outcomes) {
  RunReport report;
  for (Outcome o : outcomes) {
    LegResult leg;
    leg.outcome = o;
    report.legs.push_back(leg);
  }
  return report;
}

TEST(LegVerdict, AFailureOutranksATimeoutWhichOutranksContention) {
  EXPECT_EQ(VerdictOf(ReportOf({Outcome::kTimeout, Outcome::kFail})), ExitCode::kGateFailed);
  EXPECT_EQ(VerdictOf(ReportOf({Outcome::kContended, Outcome::kTimeout})), ExitCode::kTimedOut);
  EXPECT_EQ(VerdictOf(ReportOf({Outcome::kPass, Outcome::kContended})), ExitCode::kContended);
  EXPECT_EQ(VerdictOf(ReportOf({Outcome::kPass, Outcome::kPass})), ExitCode::kPass);
}

TEST(LegVerdict, AnErrorThatCouldNotStartIsAFailedGate) {
  EXPECT_EQ(static_cast<int>(VerdictOf(ReportOf({Outcome::kError}))), 1);
}

TEST(LegVerdict, ATreeThatChangedDuringTheRunIsStale) {
  RunReport report = ReportOf({Outcome::kPass});
  report.tree_hash = "aaa";
  report.tree_hash_after = "bbb";
  EXPECT_EQ(static_cast<int>(VerdictOf(report)), 5);
}

// A leg skipped because its need timed out is explained by that timeout: the run is 3.
TEST(LegVerdict, ASkipYieldsToTheTimeoutThatCausedItButAloneFails) {
  EXPECT_EQ(VerdictOf(ReportOf({Outcome::kTimeout, Outcome::kSkipped})), ExitCode::kTimedOut);
  EXPECT_EQ(VerdictOf(ReportOf({Outcome::kPass, Outcome::kSkipped})), ExitCode::kGateFailed);
}

TEST(LegVerdict, AnInheritedFailureFailsUnlessAllowed) {
  RunReport report = ReportOf({Outcome::kPass, Outcome::kInherited});
  EXPECT_EQ(VerdictOf(report), ExitCode::kGateFailed);
  report.allow_inherited = true;
  EXPECT_EQ(VerdictOf(report), ExitCode::kPass);
}

TEST(LegVerdict, InterruptedOutranksEverything) {
  RunReport report = ReportOf({Outcome::kFail});
  report.interrupted = true;
  EXPECT_EQ(static_cast<int>(VerdictOf(report)), 130);
}

}  // namespace
}  // namespace pg
