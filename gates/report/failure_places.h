// Where a failing test case (or a build error) says it failed, read from a leg's output:
// GoogleTest's "file:line: Failure", Catch2's "file:line: FAILED:", pytest's
// "file.py:line: SomeError", compilers' "file:line:col: error: ..." and CMake's "CMake Error at
// file:line (command):". CI annotations and a red leg's progress line point at
// these places; nothing decides a verdict from them.
#pragma once

#include <string>
#include <vector>

namespace pg {

struct FailurePlace {
  std::string file;  // as the output wrote it
  int line = 0;
  std::string test;     // the test case running when it failed, when the output names it
  std::string message;  // the lines that explain it (at most a few)
};

// In output order, each file:line once; at most `limit` places.
std::vector<FailurePlace> FailurePlaces(const std::string& output, size_t limit = 50);

}  // namespace pg
