// Deciding what a mutant did from the expected tests' machine-readable results: red for the
// claimed reason, red for another, or survived. (Unviable and timeout are the runner's.)
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gates/mutate/catalog.h"

namespace pg {

struct TestResult {
  bool failed = false;
  std::vector<std::string> messages;  // each failure's text
  bool alias =
      false;  // the same case again under its short name (JUnit's `name` without its class)
  bool output_only = false;  // its report gave no message of its own: its messages are its output's
};

// Merges gtest JSON reports (GTEST_OUTPUT=json: one file per test process) into results by
// "Suite.Name"; a file that is not a gtest report is kInvalidInput naming it.
Status AddGtestJson(const std::string& name, const std::string& text,
                    std::map<std::string, TestResult>* results);

// A failure's text on one line, as reports quote it: the first message, gtest's leading
// "file:line" dropped, its lines joined with " / ", cut at 240 characters.
std::string OneLineFailure(const std::vector<std::string>& messages);

// The line of a test's output that says why it failed, for a report that gives no message of its
// own (CTest's JUnit for a plain test): the first line that reads as a failure ("failed",
// "error", "assert", "expected", ...; not CTest's own summary), else the last non-empty line.
std::string OutputFailureLine(const std::string& output);

// kKilled is a generated mutant's: some test it reaches failed (it claims no test or message).
enum class MutantOutcome {
  kRedAsClaimed,
  kRedOther,
  kSurvived,
  kUnviable,
  kTimeout,
  kGreenAsClaimed,
  kNotGreen,
  kKilled
};
std::string_view MutantOutcomeName(MutantOutcome o);  // "red-as-claimed", ...

struct Classification {
  MutantOutcome outcome = MutantOutcome::kSurvived;
  std::string detail;    // which test and message, for anything but red-as-claimed
  std::string observed;  // the first expected test's failure message, on one line
};

// What a report shows as a mutant's as-claimed outcomes: red-as-claimed, green-as-claimed.
bool AsClaimed(MutantOutcome o);

// Every expected test failed with a message its regex finds (ECMAScript, ^/$ at line
// boundaries) → red-as-claimed; something failed otherwise (or an expected test did not run)
// → red-other; nothing failed → survived.
Classification Classify(const std::vector<Expectation>& expect,
                        const std::map<std::string, TestResult>& results);

// For a combo that claims a disarm: every expected test ran and nothing failed →
// green-as-claimed; otherwise not-green, naming what failed or did not run.
Classification ClassifyGreen(const std::vector<Expectation>& expect,
                             const std::map<std::string, TestResult>& results);

}  // namespace pg
