// The three commands a scratch tree is built and tested with: the catalog's own, or defaults
// for CMake + GoogleTest projects (configure with Ninja and ccache when present, build the
// catalog's targets, run the named tests through ctest).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gates/core/status.h"
#include "gates/mutate/catalog.h"

namespace pg {

struct Placeholders {
  std::string tree, build, results;
  std::vector<std::string> tests;  // "Suite.Name": become {tests_regex} and {gtest_filter}
  std::string gtest_filter_env;    // GTEST_FILTER in the step's environment, when not empty
  int mutant = 0;                  // PROOFGATE_MUTANT: the schema's mutant to switch on (0: none)
  bool fail_fast = false;          // stop at the first failing test (a generated mutant's run)
  std::string reached;             // PROOFGATE_REACHED: where the schema's switches record reach
};

// `tests` (pytest's JUnit names, "tests.test_calc.TestA.test_b[1]") as node ids of `tree`
// ("tests/test_calc.py::TestA::test_b[1]"): what an argument `{tests_pytest}` becomes. None
// when `tests` is empty or any name names no .py file of the tree: the whole suite runs.
std::vector<std::string> PytestNodeIds(const std::string& tree,
                                       const std::vector<std::string>& tests);

std::vector<std::string> ConfigureArgv(const Catalog& c, const Placeholders& p);
std::vector<std::string> BuildArgv(const Catalog& c, const Placeholders& p);
// BuildArgv that goes on past a failed file (CMake's own build command: Ninja `-k 0`, Make
// `-k`), so one build of the schemata reports every file's errors; a catalog's own build
// command as written.
std::vector<std::string> KeepGoingBuildArgv(const Catalog& c, const Placeholders& p);
// KeepGoingBuildArgv narrowed to `outputs` (a halving's probe builds only what failed before
// it); empty where only the whole build can be run: a catalog's own build command, a build
// that is not Ninja's, or no outputs.
std::vector<std::string> OutputsBuildArgv(const Catalog& c, const Placeholders& p,
                                          const std::vector<std::string>& outputs);
std::vector<std::string> TestArgv(const Catalog& c, const Placeholders& p);
// Lists the build's tests: the catalog's list_command, else `ctest --show-only=json-v1`.
std::vector<std::string> ListArgv(const Catalog& c, const Placeholders& p);

// What every step's environment adds: gtest writes JSON into {results}; ccache shares hits
// between workers (paths relative to the tree, the build directory not hashed); GTEST_FILTER
// narrows whole-executable ctest tests to the selected cases.
std::vector<std::pair<std::string, std::string>> StepEnv(const Placeholders& p);

// A scratch tree without a configure of its own (`configure` empty) gets CMake's: a root with
// no CMakeLists.txt would then fail in the scratch copy with CMake's own words. kInvalidInput
// saying which commands to set; `whose` names where they were looked for first ("the
// catalog ...", "suites.json's \"prove\"").
Status CheckScratchCommands(const std::string& root, const std::vector<std::string>& configure,
                            const std::string& whose);

// A key for the build directory: catalogs configuring the same way share one.
std::string ConfigureKey(const Catalog& c);

// "^(A\.B|C\.D)$": exactly these ctest names; "." (every test) for none.
std::string CtestRegex(const std::vector<std::string>& tests);

}  // namespace pg
