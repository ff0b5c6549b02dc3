// The test executables of a CMake build that registers no ctest test (p-ranav/argparse builds
// its doctest executable `test/tests` and its CI runs it by hand): found by configuring the
// project once, in a temporary directory, and reading CMake's codemodel.
#pragma once

#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

struct TestExecutable {
  std::string path;       // relative to the build directory: "test/tests"
  std::string name;       // a leg name for it: its file name, made plain and unique
  std::string framework;  // "GoogleTest", "doctest", "Catch2", or "" when none is known
};

// Configures `source_dir` (`cmake -S source_dir -B <temp> options...`) and returns the
// executables whose file name holds "test" or one of whose own sources lies in a directory
// named test, tests, unittest(s), unit_tests or testing (below source_dir, vendored trees
// skipped), in path order. A failed configure is kInvalidInput with its first error line.
StatusOr<std::vector<TestExecutable>> FindTestExecutables(const std::string& source_dir,
                                                          const std::vector<std::string>& options);

// Its leg's name: "test" for the only one, else "test-" and its name.
std::string LegName(const TestExecutable& t, size_t count);

// How mutate and prove run them in a scratch build: `test` runs each (`sh -c`, `{build}` and
// `{results}` its arguments), writing JUnit into {results} where the framework is known
// (doctest `--reporters=junit --out=F`, Catch2 `-r junit -o F`; GoogleTest its JSON, through the
// GTEST_OUTPUT that mutate and prove set),
// and exits 1 when any failed; `list` prints their cases one per line, empty when none of
// them has a framework that lists them.
struct ExecutableCommands {
  std::vector<std::string> test, list;
};
ExecutableCommands TestExecutableCommands(const std::vector<TestExecutable>& tests);

}  // namespace pg
