// The finest level a layout names, where it names no case: a changed test file that defines
// no case the head build lists (pugixml's own runner behind one ctest test, a doctest or
// Catch2 executable without discovery) stands for the ctest tests built from it, each proven
// as a whole (specs/change-proof.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/mutate/catalog.h"
#include "gates/prove/inventory.h"

namespace pg {

class Worker;

struct WholeTests {
  std::map<std::string, std::vector<std::string>>
      tests;  // ctest test → the changed files it stands for
  std::vector<std::string>
      unaccounted;  // changed test files no listed case and no ctest test stands for
};

// Of `changed` (test files relative to the tree), those that define no case `head` lists.
std::vector<std::string> FilesWithoutListedCases(const std::vector<std::string>& changed,
                                                 const Inventory& head);

// The ctest tests of `w`'s built tree (which `head` inventories) whose executables are built
// from `files` (relative paths; a header through the sources that include it) and that `head`
// lists whole. Only the default ctest commands can be asked which executable a test runs;
// under a catalog's own commands every file is unaccounted.
StatusOr<WholeTests> WholeTestsFor(Worker& w, const Catalog& c,
                                   const std::vector<std::string>& files, const Inventory& head);

}  // namespace pg
