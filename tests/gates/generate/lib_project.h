// The project the reach tests mutate: a library, its gtest cases and a script that runs a tool.
#pragma once

#include <string>

#include "gates/config/json_source.h"
#include "tests/gates/support/test_support.h"

namespace pg::testing {

// Lib.AddSlowly (first in ctest's order and by name) and Lib.Sum reach Add; Lib.Mul and a
// script that runs `tool` reach Mul; nothing reaches Never. Committed in `dir`.
void MakeLibProject(const TempDir& dir);

// The result in a `mutate --json` report whose generated mutant rewrote `original`; null if none.
const Json* ResultWith(const Json& doc, const std::string& original);

}  // namespace pg::testing
