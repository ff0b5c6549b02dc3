// Small real projects for `proofgate mutate` tests, each in its own git repository.
#pragma once

#include <string>

#include "tests/gates/support/test_support.h"

namespace pg::testing {

// A CMake + GoogleTest project (calc.cpp, calc_test.cpp) with mutations/calc.json declaring one
// mutant of every outcome: M1 red-as-claimed, M2 red-other, M3 survived, M4 unviable,
// M5 timeout (a loop that never ends), M6 a message that does not match, C1 = M7 + M8 green.
void MakeCalcProject(const TempDir& dir);

// A project whose "build" is `true` and whose "tests" are a shell script writing gtest JSON:
// a mutate run takes milliseconds, so it can be killed at many points.
void MakeShellProject(const TempDir& dir);

// The shell project with a make-like build that takes 0.3 s and trusts mtimes: what a killed
// run's orphaned build would poison.
void MakeSlowBuildProject(const TempDir& dir);

// The scratch tree of worker `k` under the default work directory.
std::string ScratchTree(const TempDir& dir, int k);

}  // namespace pg::testing
