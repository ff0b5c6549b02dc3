// One function decides every verb's exit code from its results (specs/exit-codes.md): a test
// per code, the precedence between classes, and README's table against the code's.
#include "gates/core/exit_code.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "gates/core/file_io.h"

namespace pg {
namespace {

using R = ResultClass;

ExitCode Of(std::vector<R> results, bool interrupted = false) {
  return RunExitCode(results, interrupted);
}

TEST(ExitCodes, NoResultsOrOnlyPassesIsZero) {
  EXPECT_EQ(Of({}), ExitCode::kPass);
  EXPECT_EQ(Of({R::kPass, R::kPass}), ExitCode::kPass);
}

TEST(ExitCodes, AFailureIsOneWhateverElseHappened) {
  EXPECT_EQ(Of({R::kPass, R::kFail}), ExitCode::kGateFailed);
  EXPECT_EQ(Of({R::kTimeout, R::kFail, R::kContended, R::kStale}), ExitCode::kGateFailed);
}

TEST(ExitCodes, UnprovenAloneIsOneButYieldsToWhatExplainsIt) {
  EXPECT_EQ(Of({R::kUnproven}), ExitCode::kGateFailed);
  EXPECT_EQ(Of({R::kUnproven, R::kStale}), ExitCode::kGateFailed);
  EXPECT_EQ(Of({R::kTimeout, R::kUnproven}), ExitCode::kTimedOut);
  EXPECT_EQ(Of({R::kContended, R::kUnproven}), ExitCode::kContended);
}

TEST(ExitCodes, ATimeoutIsThreeAndOutranksContention) {
  EXPECT_EQ(Of({R::kPass, R::kTimeout}), ExitCode::kTimedOut);
  EXPECT_EQ(Of({R::kContended, R::kTimeout}), ExitCode::kTimedOut);
}

TEST(ExitCodes, ContentionIsFourAndOutranksAStaleTree) {
  EXPECT_EQ(Of({R::kContended}), ExitCode::kContended);
  EXPECT_EQ(Of({R::kStale, R::kContended}), ExitCode::kContended);
}

TEST(ExitCodes, AStaleTreeIsFive) { EXPECT_EQ(Of({R::kPass, R::kStale}), ExitCode::kStale); }

TEST(ExitCodes, AnInterruptedRunIs130WhateverItsResults) {
  EXPECT_EQ(Of({R::kFail}, true), ExitCode::kInterrupted);
  EXPECT_EQ(Of({}, true), ExitCode::kInterrupted);
}

TEST(ExitCodes, InvalidInputIsTwoAndOtherErrorsSeventy) {
  EXPECT_EQ(ExitCodeFor(Status()), ExitCode::kPass);
  EXPECT_EQ(ExitCodeFor(Status::Invalid("x")), ExitCode::kInvalidInput);
  EXPECT_EQ(ExitCodeFor(Status::Io("x")), ExitCode::kInternal);
  EXPECT_EQ(ExitCodeFor(Status::Internal("x")), ExitCode::kInternal);
}

TEST(ExitCodes, OnlyPassIsNotAFailure) {
  for (R c : {R::kStale, R::kUnproven, R::kContended, R::kTimeout, R::kFail})
    EXPECT_TRUE(IsFailure(c));
  EXPECT_FALSE(IsFailure(R::kPass));
}

// The rows of README.md's "## Exit codes (proofgate)" table, "code|meaning" each.
std::vector<std::string> ReadmeRows() {
  auto text = ReadFile(std::string(PG_SOURCE_DIR) + "/README.md");
  std::vector<std::string> rows;
  if (!text.ok()) return {"README.md unreadable: " + text.status().message()};
  size_t at = text->find("## Exit codes (proofgate)");
  if (at == std::string::npos) return {"README.md has no \"## Exit codes (proofgate)\" section"};
  std::istringstream in(text->substr(at));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0 && !rows.empty()) break;
    if (line.rfind("| ", 0) != 0 || line.find("| code |") == 0) continue;
    size_t bar = line.find(" | ", 2);
    if (bar == std::string::npos || line.size() < bar + 5) continue;
    rows.push_back(line.substr(2, bar - 2) + "|" + line.substr(bar + 3, line.size() - bar - 5));
  }
  return rows;
}

TEST(ExitCodes, ReadmeTableIsTheCodeTable) {
  std::vector<std::string> expected;
  for (const ExitCodeMeaning& m : kExitCodes) {
    expected.push_back(std::to_string(static_cast<int>(m.code)) + "|" + std::string(m.meaning));
  }
  std::vector<std::string> readme = ReadmeRows();
  for (size_t i = 0; i < std::max(expected.size(), readme.size()); ++i) {
    EXPECT_EQ(i < readme.size() ? readme[i] : "(missing)",
              i < expected.size() ? expected[i] : "(extra)")
        << "README.md exit code row " << i + 1;
  }
}

}  // namespace
}  // namespace pg
