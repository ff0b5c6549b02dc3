// What each test case's source is (GoogleTest's TEST macros, pytest's functions), so that a test
// that moved to a new name is recognised as renamed, and a test whose body changed as changed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

// "Suite.Name" → sha256 of the case's body (whitespace-normalised, comments kept) for every
// TEST, TEST_F and TEST_P in `source`.
std::map<std::string, std::string> GtestBodies(const std::string& source);

// GtestBodies' and, by the names their discovery gives ctest, each Catch2 or doctest case's:
// `TEST_CASE("name", ...)`, `TEST_CASE_METHOD(Fixture, "name", ...)`, `SCENARIO("name")` as
// "Scenario: name".
std::map<std::string, std::string> CaseBodies(const std::string& source);

// "module.Class.test_x" → sha256 of each pytest function's decorators, signature and body
// (whitespace-normalised) for every `def test*` at the top of `source` or in a class (not one
// nested in a function); `module` is the file's path made a dotted name ("tests.test_more").
std::map<std::string, std::string> PytestBodies(const std::string& module,
                                                const std::string& source);

// A test file of a tree: its bytes' hash (whether it changed) and the cases defined in it.
struct TestFile {
  std::string hash;
  std::map<std::string, std::string> bodies;  // case → body hash (CaseBodies, PytestBodies for .py)
};

// Every file under `tree` that matches one of `globs`, by relative path.
StatusOr<std::map<std::string, TestFile>> TreeTestFiles(const std::string& tree,
                                                        const std::vector<std::string>& globs);

}  // namespace pg
