// Reading a step's log for what a report needs: the first error, the failing test cases.
#pragma once

#include <set>
#include <string>

namespace pg {

// The first line of a build log that reads like a compiler or linker error ("error:",
// "undefined reference"), else its last non-empty line: what a report shows for `unviable`.
std::string FirstError(const std::string& log);

// Whether a failed build's log shows a tool rejecting the code: a linker's diagnostic
// (`undefined reference`, `ld returned`, `linker command failed`, `multiple definition`), the
// build tool's or CMake's own error, a Ninja step that failed making an object, or, in a log
// that is not Ninja's, a compiler's diagnostic at a line's start (`FILE:LINE[:COL]: error:`,
// `fatal error:`, nvcc's `FILE(LINE): error:`). A failed build without one failed running what
// it built.
bool ToolRejected(const std::string& log);

// The step a failed build stopped at: Ninja's first "FAILED: ..." line, else FirstError's.
std::string FailedStep(const std::string& log);

// The test cases a log says failed: GoogleTest's "[  FAILED  ] Suite.Name (N ms)" lines and
// ctest's "NN - Name (Failed)" summary lines.
std::set<std::string> FailingCases(const std::string& log);

}  // namespace pg
