// Reading a step's log for what a report needs: the first error, the failing test cases.
#pragma once

#include <set>
#include <string>

namespace pg {

// The first line of a build log that reads like a compiler or linker error ("error:",
// "undefined reference"), else its last non-empty line: what a report shows for `unviable`.
std::string FirstError(const std::string& log);

// The test cases a log says failed: GoogleTest's "[  FAILED  ] Suite.Name (N ms)" lines and
// ctest's "NN - Name (Failed)" summary lines.
std::set<std::string> FailingCases(const std::string& log);

}  // namespace pg
