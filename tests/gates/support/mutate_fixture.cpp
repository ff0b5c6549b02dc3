#include "tests/gates/support/mutate_fixture.h"

#include <sys/stat.h>

#include <cstdlib>

#include "gates/git/git.h"

namespace pg::testing {
namespace {

const char kCalcCmake[] = R"X(cmake_minimum_required(VERSION 3.20)
project(calc CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(GTest REQUIRED)
include(GoogleTest)
enable_testing()
add_library(calc calc.cpp)
add_executable(calc_test calc_test.cpp)
target_link_libraries(calc_test calc GTest::gtest GTest::gtest_main)
gtest_discover_tests(calc_test)
add_executable(calc_check calc_check.cpp)
target_link_libraries(calc_check calc)
add_test(NAME Plain.AddIsFive COMMAND calc_check)
)X";

// A plain ctest test (no gtest JSON): its result reaches mutate through ctest's JUnit report.
const char kCalcCheck[] = R"X(#include <cstdio>

#include "calc.h"

int main() {
  if (Add(2, 3) == 5) return 0;
  std::puts("plain: Add(2, 3) is not 5");
  return 1;
}
)X";

const char kCalc[] = R"X(#include "calc.h"

int Clamp(int v, int lo, int hi) {
  if (v < lo) return lo;
  if (v > hi) return hi;
  return v;
}

int Add(int a, int b) { return a + b; }

int Loop(int n) {
  volatile int s = 0;
  for (int i = 0; i < n; ++i) s = s + i;
  return s;
}
)X";

const char kCalcTest[] = R"X(#include <gtest/gtest.h>

#include "calc.h"

TEST(Clamp, ClampsAtTheTop) { EXPECT_EQ(Clamp(150, 0, 100), 100) << "clamp at 100"; }
TEST(Clamp, ClampsAtTheBottom) { EXPECT_EQ(Clamp(-5, 0, 100), 0) << "clamp at 0"; }
TEST(Add, AddsTwoNumbers) { EXPECT_EQ(Add(2, 3), 5) << "2 + 3 is 5"; }
TEST(Loop, SumsBelowN) { EXPECT_EQ(Loop(4), 6) << "0 + 1 + 2 + 3"; }
)X";

const char kCalcCatalog[] = R"X({ "schema_version": 1,
  "spec": "specs/calc.md",
  "build": ["calc_test", "calc_check"],
  "mutations": [
    { "id": "M1", "file": "calc.cpp", "find": "if (v > hi) return hi;", "replace": "if (v > hi) return v;",
      "expect": [{ "test": "Clamp.ClampsAtTheTop", "message": "^clamp at 100$" }] },
    { "id": "M2", "file": "calc.cpp", "find": "if (v < lo) return lo;", "replace": "if (v < lo) return v;",
      "expect": [{ "test": "Clamp.ClampsAtTheTop", "message": "clamp" },
                 { "test": "Clamp.ClampsAtTheBottom", "message": "clamp at 0" }] },
    { "id": "M3", "file": "calc.cpp", "find": "return a + b;", "replace": "return b + a;",
      "expect": [{ "test": "Add.AddsTwoNumbers", "message": "2 \\+ 3" }] },
    { "id": "M4", "file": "calc.cpp", "find": "return a + b;", "replace": "return a + ;",
      "expect": [{ "test": "Add.AddsTwoNumbers", "message": "2 \\+ 3" }] },
    { "id": "M5", "file": "calc.cpp", "find": "++i)", "replace": "i += 0)",
      "expect": [{ "test": "Loop.SumsBelowN", "message": "0 \\+ 1" }] },
    { "id": "M6", "file": "calc.cpp", "find": "if (v > hi) return hi;", "replace": "if (v > hi) return v;",
      "expect": [{ "test": "Clamp.ClampsAtTheTop", "message": "^clamp at 99$" }] },
    { "id": "M7", "file": "calc.cpp", "find": "return a + b;", "replace": "return a + b + 1;",
      "expect": [{ "test": "Add.AddsTwoNumbers", "message": "2 \\+ 3 is 5" }] },
    { "id": "M8", "file": "calc_test.cpp", "find": "Add(2, 3), 5)", "replace": "Add(2, 3), 6)",
      "expect": [{ "test": "Add.AddsTwoNumbers", "message": "2 \\+ 3 is 5" }] },
    { "id": "M9", "file": "calc.cpp", "find": "return a + b;", "replace": "return a - b;",
      "expect": [{ "test": "Plain.AddIsFive", "message": "Add\\(2, 3\\) is not 5" }] } ],
  "combos": [ { "id": "C1", "apply": ["M7", "M8"], "expect_green": true } ] }
)X";

// Passes when calc.txt still says what it should; each check is a gtest case in the JSON.
const char kShellTest[] = R"X(#!/bin/sh
tree=$1; out=$2/shell_test.json
check() { if grep -q "^$2\$" "$tree/calc.txt"; then printf '{"name": "%s", "status": "RUN"}\n' "$1";
          else printf '{"name": "%s", "status": "RUN", "failures": [{"failure": "t.sh:1\\nwant %s"}]}\n' "$1" "$2"; fi; }
{ echo '{"testsuites": [{"name": "Calc", "testsuite": ['
  check Limit "limit 100"; echo ,; check Floor "floor 0"; echo ,; check Step "step 1"; echo ']}]}'; } > "$out"
)X";

const char kShellCatalog[] = R"X({ "schema_version": 1,
  "configure": ["true"], "build_command": ["true"],
  "test_command": ["sh", "{tree}/test.sh", "{tree}", "{results}"],
  "mutations": [
    { "id": "S1", "file": "calc.txt", "find": "limit 100", "replace": "limit 99",
      "expect": [{ "test": "Calc.Limit", "message": "^want limit 100$" }] },
    { "id": "S2", "file": "calc.txt", "find": "floor 0", "replace": "floor 1",
      "expect": [{ "test": "Calc.Floor", "message": "^want floor 0$" }] },
    { "id": "S3", "file": "calc.txt", "find": "step 1", "replace": "step 2",
      "expect": [{ "test": "Calc.Step", "message": "^want step 1$" }] } ],
  "combos": [ { "id": "S12", "apply": ["S1", "S2"], "expect_green": false } ] }
)X";

// A make-like build: {build}/calc.txt is remade only when the source is newer, from the bytes
// read when it starts (as a compiler reads its source, then writes its object later).
const char kSlowBuild[] = R"X(#!/bin/bash
tree=$1; obj=$2/calc.txt; mkdir -p "$2"
[[ -f $obj && $obj -nt $tree/calc.txt ]] && exit 0
src=$(cat "$tree/calc.txt"); sleep 0.3; printf '%s\n' "$src" > "$obj"
)X";

void Commit(const TempDir& dir) {
  if (!git::Init(dir.path()).ok() || !git::CommitAll(dir.path(), "initial").ok()) std::abort();
}

}  // namespace

void MakeCalcProject(const TempDir& dir) {
  dir.Write("CMakeLists.txt", kCalcCmake);
  dir.Write("calc.h",
            "int Clamp(int v, int lo, int hi);\nint Add(int a, int b);\nint Loop(int n);\n");
  dir.Write("calc.cpp", kCalc);
  dir.Write("calc_test.cpp", kCalcTest);
  dir.Write("calc_check.cpp", kCalcCheck);
  dir.Write(".gitignore", "build/\n");
  dir.Write("specs/calc.md",
            "# Spec: calc\n\n## Mutations\n<!-- proofgate:mutations -->\n<!-- /proofgate:mutations "
            "-->\n");
  dir.Write("mutations/calc.json", kCalcCatalog);
  Commit(dir);
}

void MakeShellProject(const TempDir& dir) {
  dir.Write("calc.txt", "limit 100\nfloor 0\nstep 1\n");
  dir.Write("test.sh", kShellTest);
  chmod((dir.path() + "/test.sh").c_str(), 0755);
  dir.Write("mutations/shell.json", kShellCatalog);
  Commit(dir);
}

void MakeSlowBuildProject(const TempDir& dir) {
  dir.Write("calc.txt", "limit 100\nfloor 0\nstep 1\n");
  dir.Write("test.sh", kShellTest);
  dir.Write("build.sh", kSlowBuild);
  // The shell project's mutants, built by build.sh and tested on what it built.
  std::string catalog = kShellCatalog;
  catalog.replace(catalog.find("\"build_command\": [\"true\"]"), 25,
                  "\"build_command\": [\"bash\", \"{tree}/build.sh\", \"{tree}\", \"{build}\"]");
  catalog.replace(catalog.find("\"{tree}/test.sh\", \"{tree}\""), 26,
                  "\"{tree}/test.sh\", \"{build}\"");
  dir.Write("mutations/slow.json", catalog);
  Commit(dir);
}

std::string ScratchTree(const TempDir& dir, int k) {
  return dir.path() + "/.git/proofgate/mutate/w" + std::to_string(k) + "/tree";
}

}  // namespace pg::testing
