// A tree's tests (ctest's names, plus each gtest case's body hash) and what changed between two.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gates/core/status.h"
#include "gates/prove/test_bodies.h"

namespace pg {

struct Inventory {
  std::set<std::string> tests;                // ctest names
  std::map<std::string, std::string> bodies;  // "Suite.Name" → body hash
  std::map<std::string, TestFile> files;      // the test files, by relative path
};

// A test's body hash: its own, or for a parametrised pytest id ("m.test_x[1]") its function's;
// nullptr when none is known.
const std::string* BodyOf(const Inventory& inv, const std::string& test);

// The test files of `head` that are new or whose bytes differ from `base`'s, by relative path.
std::vector<std::string> ChangedTestFiles(const Inventory& base, const Inventory& head);

struct InventoryDiff {
  std::vector<std::string> added, removed, changed;          // removed: not renamed
  std::vector<std::pair<std::string, std::string>> renamed;  // old → new, same body
};

InventoryDiff DiffInventories(const Inventory& base, const Inventory& head);

// The test names of `ctest --show-only=json-v1`; kInvalidInput when it is not that.
StatusOr<std::vector<std::string>> ParseCtestListing(const std::string& json);

// The names a `list_command` prints, one a line. pytest's node ids (`pytest --collect-only -q`:
// "tests/test_calc.py::TestA::test_b[1]") become the name its JUnit report gives the same
// test, classname.name ("tests.test_calc.TestA.test_b[1]"); the summary lines are dropped.
std::vector<std::string> ListedTestNames(const std::string& listing);

// The removed tests no commit message explains with a `Test-Removed: <name> — <reason>`
// trailer (an em dash, "-" or ":" before a non-empty reason).
std::vector<std::string> LostTests(const std::vector<std::string>& removed,
                                   const std::vector<std::string>& messages);

}  // namespace pg
