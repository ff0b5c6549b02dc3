// Which ctest test runs which test, by the names users write: a gtest case ("Suite.Name") when
// a ctest test runs a whole GoogleTest executable (`add_test(NAME t COMMAND t)`, the common
// CMake shape), the ctest name otherwise (gtest_discover_tests' one-case tests, plain commands).
// Catalog expectations and prove's inventory name cases; ctest only knows its own tests, so a
// selection becomes ctest names plus a GTEST_FILTER that narrows the executables to the cases.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gates/core/status.h"

namespace pg {

struct CtestTest {
  std::string name;
  std::vector<std::string> command;
  std::string cwd;                                       // WORKING_DIRECTORY, if set
  std::vector<std::pair<std::string, std::string>> env;  // ENVIRONMENT, if set
};

// The tests of `ctest --show-only=json-v1`; kInvalidInput when the text is not that.
StatusOr<std::vector<CtestTest>> ParseCtestTests(const std::string& json);

// The cases `exe --gtest_list_tests` prints ("Suite.Name", parameterised "I/P.Q/0"); disabled
// cases are left out (gtest does not run them).
std::vector<std::string> ParseGtestListing(const std::string& listing);

// Whether the file at `path` is a GoogleTest executable (it carries gtest's --help text).
bool IsGtestExecutable(const std::string& path);

struct TestSelection {
  std::vector<std::string> ctest_names;  // the ctest tests to run
  std::string gtest_filter;              // GTEST_FILTER for them; empty: no narrowing
};

class TestMap {
 public:
  // Asks each ctest test that runs a gtest executable without a --gtest_filter of its own for
  // its cases; an executable that cannot list them is kInvalidInput naming it.
  static StatusOr<TestMap> Discover(const std::vector<CtestTest>& tests);

  // Every test by the name users write, sorted.
  std::vector<std::string> Names() const;
  // The ctest test that runs `name`, or "" when there is none.
  std::string CtestOf(const std::string& name) const;
  // The gtest cases a whole-executable ctest test runs (sorted); none for any other test.
  std::vector<std::string> CasesOf(const std::string& ctest) const;
  // What to run for `names` (none: everything, unfiltered). Unknown names are passed through
  // as ctest names, so ctest reports them as not run.
  TestSelection Select(const std::vector<std::string>& names) const;

 private:
  std::map<std::string, std::string> owner_;  // name → ctest test
  std::map<std::string, bool> is_case_;       // name → a case inside a whole-executable test
};

}  // namespace pg
