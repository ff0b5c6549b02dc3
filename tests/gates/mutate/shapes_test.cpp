// proofgate as a new user meets it, on projects of the shapes real repositories have: CMake +
// GoogleTest with add_test or gtest_discover_tests, CMake + Catch2, pytest. Each runs
// `proofgate init`, `preflight`, `mutate` (red as claimed, a documented survivor, a combo) and
// `prove --base` over a real fix commit, with no test command written by hand.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

const char kCalcH[] =
    "int Clamp(int v, int lo, int hi);\nint Add(int a, int b);\nint Sub(int a, int b);\n";
// Sub has the bug the fix commit mends.
const char kCalcCpp[] = R"X(#include "calc.h"
int Clamp(int v, int lo, int hi) {
  if (v < lo) return lo;
  if (v > hi) return hi;
  return v;
}
int Add(int a, int b) { return a + b; }
int Sub(int a, int b) { return a + b; }
)X";

const char kRoot[] = R"X(cmake_minimum_required(VERSION 3.20)
project(calc CXX)
set(CMAKE_CXX_STANDARD 17)
enable_testing()
add_library(calc calc.cpp)
target_include_directories(calc PUBLIC .)
add_subdirectory(tests)
)X";

// The mutations every C++ shape declares; TOP/BOTTOM are how its framework reports the failures.
std::string CppCatalog(const std::string& top, const std::string& top_message,
                       const std::string& bottom, const std::string& bottom_message,
                       const std::string& add) {
  return R"({ "schema_version": 1, "mutations": [
    { "id": "M1", "file": "calc.cpp", "find": "if (v > hi) return hi;", "replace": "if (v > hi) return v;",
      "expect": [{ "test": ")" +
         top + R"(", "message": ")" + top_message + R"(" }] },
    { "id": "M2", "file": "calc.cpp", "find": "return a + b; }\nint Sub", "replace": "return b + a; }\nint Sub",
      "expect": [{ "test": ")" +
         add + R"(" }], "expect_outcome": "survived" },
    { "id": "M3", "file": "calc.cpp", "find": "if (v < lo) return lo;", "replace": "if (v < lo) return v;",
      "expect": [{ "test": ")" +
         bottom + R"(", "message": ")" + bottom_message + R"(" }] } ],
  "combos": [ { "id": "C1", "apply": ["M1", "M3"], "expect_green": false } ] })";
}

class Shapes : public ::testing::Test {
 protected:
  // The projects compile through ccache where there is one, its paths relative to the temp
  // root and the build folder left out of its key (init configures RelWithDebInfo, and with -g
  // ccache keys on the folder: every walk's temp folder missed). Nothing proofgate decides
  // changes.
  void SetUp() override {
    if (access("/usr/bin/ccache", X_OK) != 0) return;
    setenv("CMAKE_CXX_COMPILER_LAUNCHER", "ccache", 1);
    setenv("CCACHE_BASEDIR", std::filesystem::temp_directory_path().c_str(), 1);
    setenv("CCACHE_NOHASHDIR", "1", 1);
  }
  void TearDown() override {
    unsetenv("CMAKE_CXX_COMPILER_LAUNCHER");
    unsetenv("CCACHE_BASEDIR");
    unsetenv("CCACHE_NOHASHDIR");
  }
  // init → commit (the base) → preflight → mutate → a fix with its test → prove --base.
  void Walk(const std::string& shape, const std::string& catalog, const std::string& fix_file,
            const std::string& fix, const std::string& new_test_file, const std::string& new_test,
            const std::string& proven_name) {
    auto init = RunProofgate(dir_.path(), "init");
    ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
    EXPECT_NE(init.out.find("init: a " + shape + " project"), std::string::npos) << init.out;
    dir_.Write("mutations/calc.json", catalog);
    ASSERT_TRUE(git::Init(dir_.path()).ok());
    std::string base = git::CommitAll(dir_.path(), "Calc, with a bug in Sub").value();
    auto preflight = RunProofgate(dir_.path(), "preflight");
    ASSERT_EQ(preflight.exit_code, 0) << preflight.out << preflight.err;
    auto mutate = RunProofgate(dir_.path(), "mutate --no-spec-update");
    EXPECT_EQ(mutate.exit_code, 0) << mutate.out << mutate.err;
    for (const char* row :
         {"M1  red-as-claimed", "M2  survived", "M3  red-as-claimed", "C1  red-as-claimed"}) {
      EXPECT_NE(mutate.out.find(row), std::string::npos) << row << "\n" << mutate.out << mutate.err;
    }
    dir_.Write(fix_file, fix);
    dir_.Write(new_test_file, new_test);
    ASSERT_TRUE(git::CommitAll(dir_.path(), "Fix Sub").ok());
    auto prove = RunProofgate(dir_.path(), "prove --base " + base);
    EXPECT_EQ(prove.exit_code, 0) << prove.out << prove.err;
    EXPECT_NE(prove.out.find(proven_name), std::string::npos) << prove.out;
    EXPECT_NE(prove.out.find("red before 1/1, green after 1/1"), std::string::npos) << prove.out;
  }
  // The calc project with Catch2 cases, registered by `register_tests`.
  void WalkCatch2(const std::string& register_tests, const std::string& shape) {
    WriteCalc();

    dir_.Write("tests/calc_test.cpp", R"X(#include <catch2/catch.hpp>
#include "calc.h"
TEST_CASE("Clamp clamps at the top") { REQUIRE(Clamp(150, 0, 100) == 100); }
TEST_CASE("Clamp clamps at the bottom") { REQUIRE(Clamp(-5, 0, 100) == 0); }
TEST_CASE("Add adds two numbers") { REQUIRE(Add(2, 3) == 5); }
)X");
    // Catch2's main comes built, as Catch2 v3's Catch2WithMain does: compiled here in each of
    // a walk's trees it was 23 s of g++ (12 at -O0), the whole cost of a walk on a fresh
    // machine, and ccache cannot share it between trees (their relative paths differ).
    dir_.Write("tests/CMakeLists.txt",
               "find_package(Catch2 REQUIRED)\ninclude(Catch)\nfile(GLOB SOURCES *.cpp)\n"
               "add_executable(calc_test ${SOURCES})\ntarget_link_libraries(calc_test calc "
               "Catch2::Catch2 " +
                   std::string(PG_CATCH2_MAIN) + ")\n" + register_tests + "\n");
    std::string catalog =
        CppCatalog("Clamp clamps at the top", "150 == 100", "Clamp clamps at the bottom", "-5 == 0",
                   "Add adds two numbers");
    Walk(shape, catalog, "calc.cpp", FixedCalc(), "tests/sub_test.cpp",
         "#include <catch2/catch.hpp>\n#include \"calc.h\"\nTEST_CASE(\"Sub subtracts\") { "
         "REQUIRE(Sub(5, 3) == 2); }\n",
         "Sub subtracts");
  }
  // Commits the tree and runs preflight, green; then breaks Add and runs it again: that run's
  // stderr, which must be red.
  std::string GreenThenRedOnABrokenAdd(const std::string& why_green) {
    EXPECT_TRUE(git::Init(dir_.path()).ok());
    EXPECT_TRUE(git::CommitAll(dir_.path(), "calc").ok());
    auto green = RunProofgate(dir_.path(), "preflight");
    EXPECT_EQ(green.exit_code, 0) << why_green << green.out << green.err;
    dir_.Write("calc.cpp",
               std::string(kCalcCpp).replace(std::string(kCalcCpp).find("a + b"), 5, "a - b"));
    auto red = RunProofgate(dir_.path(), "preflight");
    EXPECT_EQ(red.exit_code, 1) << red.out << red.err;
    return red.err;
  }
  void WriteCalc() const {
    dir_.Write("calc.h", kCalcH);
    dir_.Write("calc.cpp", kCalcCpp);
    dir_.Write("CMakeLists.txt", kRoot);
    dir_.Write(".gitignore", "build/\n");
  }
  std::string FixedCalc() {
    std::string fixed = kCalcCpp;
    return fixed.replace(fixed.find("int Sub(int a, int b) { return a + b; }"), 39,
                         "int Sub(int a, int b) { return a - b; }");
  }
  TempDir dir_;
};

const char kGtest[] = R"X(#include <gtest/gtest.h>
#include "calc.h"
TEST(Clamp, ClampsAtTheTop) { EXPECT_EQ(Clamp(150, 0, 100), 100) << "clamp at 100"; }
TEST(Clamp, ClampsAtTheBottom) { EXPECT_EQ(Clamp(-5, 0, 100), 0) << "clamp at 0"; }
TEST(Add, AddsTwoNumbers) { EXPECT_EQ(Add(2, 3), 5); }
)X";

const char kSubGtest[] =
    "#include <gtest/gtest.h>\n#include \"calc.h\"\nTEST(Sub, Subtracts) { EXPECT_EQ(Sub(5, 3), "
    "2); }\n";

const std::string kGtestCatalog =
    CppCatalog("Clamp.ClampsAtTheTop", "^clamp at 100$", "Clamp.ClampsAtTheBottom", "^clamp at 0$",
               "Add.AddsTwoNumbers");

std::string GtestCmake(const std::string& register_tests) {
  return "find_package(GTest REQUIRED)\ninclude(GoogleTest)\nfile(GLOB SOURCES *_test.cpp)\n"
         "add_executable(calc_test ${SOURCES})\ntarget_link_libraries(calc_test calc GTest::gtest "
         "GTest::gtest_main)\n" +
         register_tests + "\n";
}

// One ctest test runs the whole executable: the most common CMake shape.
TEST_F(Shapes, CmakeGoogleTestThroughAddTest) {
  WriteCalc();
  dir_.Write("tests/calc_test.cpp", kGtest);
  dir_.Write("tests/CMakeLists.txt", GtestCmake("add_test(NAME calc_test COMMAND calc_test)"));
  Walk("CMake + ctest (add_test)", kGtestCatalog, "calc.cpp", FixedCalc(), "tests/sub_test.cpp",
       kSubGtest, "Sub.Subtracts");
}

TEST_F(Shapes, CmakeGoogleTestThroughGtestDiscoverTests) {
  WriteCalc();
  dir_.Write("tests/calc_test.cpp", kGtest);
  dir_.Write("tests/CMakeLists.txt", GtestCmake("gtest_discover_tests(calc_test)"));
  Walk("CMake + GoogleTest (gtest_discover_tests)", kGtestCatalog, "calc.cpp", FixedCalc(),
       "tests/sub_test.cpp", kSubGtest, "Sub.Subtracts");
}

// p-ranav/argparse's shape: the test executable is built and never registered with ctest. init
// finds it in CMake's codemodel, its leg runs it, and scratch copies run it writing gtest's
// JUnit, which mutate and prove read by case.
TEST_F(Shapes, CmakeGoogleTestNeverRegistered) {
  WriteCalc();
  dir_.Write("tests/calc_test.cpp", kGtest);
  dir_.Write("tests/CMakeLists.txt", GtestCmake(""));
  Walk("CMake + test executables", kGtestCatalog, "calc.cpp", FixedCalc(), "tests/sub_test.cpp",
       kSubGtest, "Sub.Subtracts");
}

// Catch2's cases are ctest tests of their own (catch_discover_tests); results come from
// ctest's JUnit report, where the failure is Catch2's own output.
TEST_F(Shapes, CmakeCatch2) {
  WalkCatch2("catch_discover_tests(calc_test)", "CMake + Catch2 (catch_discover_tests)");
}

// Never registered: init runs the executable, listing its cases by name and reading Catch2's
// own JUnit report.
TEST_F(Shapes, CmakeCatch2NeverRegistered) { WalkCatch2("", "CMake + test executables"); }

// A test executable built but never registered (p-ranav/argparse's shape): ctest finds nothing,
// and the test leg says so instead of passing having checked nothing.
// The calc library and a calc_test program no ctest test runs: `in_place_of_tests` stands
// where kRoot adds the tests directory.
void WriteCalcWithoutCtest(const TempDir& dir, const std::string& in_place_of_tests) {
  std::string root = kRoot;
  root.replace(root.find("add_subdirectory(tests)"), 23, in_place_of_tests);
  dir.Write("CMakeLists.txt", root);
  dir.Write("calc.h", kCalcH);
  dir.Write("calc.cpp", kCalcCpp);
  dir.Write("calc_test.cpp",
            "#include \"calc.h\"\nint main() { return Add(2, 3) == 5 ? 0 : 1; }\n");
}

// A program that does not look like a test (its name, its directory) is no test leg: with none
// that does, ctest's "No tests were found" fails the leg.
TEST_F(Shapes, ACMakeProjectThatRegistersNoTestFailsItsTestLeg) {
  WriteCalcWithoutCtest(
      dir_, "add_executable(calc_demo calc_test.cpp)\ntarget_link_libraries(calc_demo calc)");
  dir_.Write(".gitignore", "build/\n");
  auto init = RunProofgate(dir_.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_NE(init.out.find("init: a CMake project"), std::string::npos) << init.out;
  EXPECT_NE(init.out.find("note: no CMakeLists.txt here calls add_test"), std::string::npos)
      << init.out;
  ASSERT_TRUE(git::Init(dir_.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir_.path(), "calc").ok());
  auto run = RunProofgate(dir_.path(), "preflight");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  size_t at = run.err.find("log: ");
  ASSERT_NE(at, std::string::npos) << run.err;
  std::string log = run.err.substr(at + 5, run.err.find('\n', at) - at - 5);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("No tests were found"), std::string::npos) << log << ": " << text;
}

// Each executable that looks like a test, by its name or by its sources' directory, is a leg of
// its own, run in its directory as ctest would (calc_test reads a file its CMakeLists.txt wrote
// there); a tool is not, nor a vendored tree's test program.
TEST_F(Shapes, ACMakeProjectsUnregisteredTestExecutablesAreItsTestLegs) {
  WriteCalcWithoutCtest(
      dir_,
      "add_executable(calc_test data_test.cpp)\ntarget_link_libraries(calc_test calc)\n"
      "file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/sum.txt 5)\n"
      "add_executable(calc_tool calc_test.cpp)\ntarget_link_libraries(calc_tool calc)\n"
      "add_subdirectory(unittests)\nadd_subdirectory(third_party/dep)");
  dir_.Write("data_test.cpp",
             "#include <fstream>\n#include \"calc.h\"\n"
             "int main() { std::ifstream in(\"sum.txt\"); int sum = 0; in >> sum; return Add(2, 3) "
             "== sum ? 0 : 1; }\n");
  dir_.Write("third_party/dep/CMakeLists.txt", "add_executable(dep_check tests/check.cpp)\n");
  dir_.Write("third_party/dep/tests/check.cpp", "int main() { return 0; }\n");
  dir_.Write("unittests/CMakeLists.txt",
             "find_package(GTest REQUIRED)\nadd_executable(unit calc.cpp)\n"
             "target_link_libraries(unit calc GTest::gtest GTest::gtest_main)\n");
  dir_.Write("unittests/calc.cpp", kGtest);
  dir_.Write(".gitignore", "build/\n");
  auto init = RunProofgate(dir_.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_NE(init.out.find("init: a CMake + test executables project"), std::string::npos)
      << init.out;
  EXPECT_NE(init.out.find("looks like tests: build/calc_test, build/unittests/unit (GoogleTest)\n"),
            std::string::npos)
      << init.out;
  std::string suites = dir_.Read("preflight/suites.json");
  EXPECT_NE(
      suites.find(
          R"("test-calc_test": {"run": ["./calc_test"], "needs": ["build"], "cwd": "build"})"),
      std::string::npos)
      << suites;
  EXPECT_NE(
      suites.find(
          R"("test-unit": {"run": ["./unit"], "needs": ["build"], "cwd": "build/unittests"})"),
      std::string::npos)
      << suites;
  EXPECT_EQ(suites.find("calc_tool"), std::string::npos) << "not a test: " << suites;
  EXPECT_EQ(suites.find("dep_check"), std::string::npos) << "a vendored tree's: " << suites;
  std::string red = GreenThenRedOnABrokenAdd("each ran in its directory: ");
  EXPECT_NE(red.find("test-calc_test  fail"), std::string::npos) << red;
  EXPECT_NE(red.find("test-unit  fail"), std::string::npos) << red;
}

// zeux/pugixml's shape: the root's option, OFF by default, is what registers the tests; a
// vendored dependency's own test option stays as it is, and so does a switch for a special
// kind of test (fmtlib/fmt's FMT_CUDA_TEST, which would build with nvcc), named as left off.
TEST_F(Shapes, ARootOptionThatBuildsTheTestsIsTurnedOn) {
  WriteCalcWithoutCtest(
      dir_,
      "option(CALC_BUILD_TESTS \"Build the tests\" OFF)\n"
      "# option(CALC_OLD_TESTS \"commented out\" OFF)\n"
      "option(CALC_DOCS \"Build the docs\" OFF)\noption(CALC_UNIT_TESTS \"Unit tests\" ON)\n"
      "option(CALC_CUDA_TEST \"The cuda-test target\" OFF)\noption(calc_benchmarks_tests \"\" "
      "OFF)\n"
      "if(CALC_BUILD_TESTS)\n  add_executable(calc_test calc_test.cpp)\n"
      "  target_link_libraries(calc_test calc)\n  add_test(NAME calc_test COMMAND "
      "calc_test)\nendif()");
  dir_.Write("third_party/dep/CMakeLists.txt",
             "option(dep_build_tests \"Build dep's own tests\" OFF)\n");
  dir_.Write(".gitignore", "build/\n");
  auto init = RunProofgate(dir_.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_NE(
      init.out.find(
          "note: CALC_BUILD_TESTS turned on (-DCALC_BUILD_TESTS=ON in both configure commands)"),
      std::string::npos)
      << init.out;
  std::string suites = dir_.Read("preflight/suites.json");
  EXPECT_EQ(suites.find("CALC_OLD_TESTS"), std::string::npos) << "a comment";
  EXPECT_EQ(suites.find("CALC_DOCS"), std::string::npos) << "not a test switch";
  EXPECT_EQ(suites.find("dep_build_tests"), std::string::npos) << "not the root's";
  EXPECT_EQ(suites.find("CALC_UNIT_TESTS"), std::string::npos) << "already on";
  EXPECT_EQ(suites.find("CALC_CUDA_TEST"), std::string::npos) << "a special kind: " << suites;
  EXPECT_EQ(suites.find("calc_benchmarks_tests"), std::string::npos)
      << "a special kind: " << suites;
  EXPECT_NE(
      init.out.find("note: CALC_CUDA_TEST, calc_benchmarks_tests left off: a special kind of test"),
      std::string::npos)
      << init.out;
  size_t first = suites.find("\"-DCALC_BUILD_TESTS=ON\"");
  ASSERT_NE(first, std::string::npos) << suites;
  EXPECT_NE(suites.find("\"-DCALC_BUILD_TESTS=ON\"", first + 1), std::string::npos)
      << "the scratch copies' too: " << suites;
  ASSERT_TRUE(git::Init(dir_.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir_.path(), "calc").ok());
  auto green = RunProofgate(dir_.path(), "preflight");
  EXPECT_EQ(green.exit_code, 0) << "ctest ran calc_test: " << green.out << green.err;
}

// kgabis/parson's shape: CMake builds the library and registers no test; the Makefile's `test`
// target builds and runs them (its CI runs make). init writes make's legs, and they check.
TEST_F(Shapes, ACMakeTreeWithoutTestsTakesItsMakefilesTestTarget) {
  WriteCalcWithoutCtest(dir_, "");
  dir_.Write("Makefile",
             ".PHONY: test\nall: calc_test\ncalc_test: calc.cpp calc_test.cpp\n\tc++ -o $@ "
             "calc.cpp calc_test.cpp\n"
             "test: calc_test\n\t./calc_test\n");
  dir_.Write(".gitignore", "build/\ncalc_test\n");
  auto init = RunProofgate(dir_.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_NE(init.out.find("init: a Make project"), std::string::npos) << init.out;
  EXPECT_NE(init.out.find("the Makefile's `test` target runs tests"), std::string::npos)
      << init.out;
  EXPECT_NE(GreenThenRedOnABrokenAdd("").find("test  fail"), std::string::npos)
      << "the test leg ran the tests";
}

// libexpat/libexpat's shape: the build files live in expat/, the root holds docs and test data.
// init finds them there and writes legs that build from there, and preflight runs its tests
// (a broken Add reddens the test leg). A docs/ directory's build files are not the project's.
TEST_F(Shapes, AProjectWhoseBuildLivesUnderTheRootIsBuiltFromThere) {
  TempDir& dir = dir_;
  std::string root = kRoot;
  root.replace(root.find("add_subdirectory(tests)"), 23,
               "add_executable(calc_test calc_test.cpp)\ntarget_link_libraries(calc_test calc)\n"
               "add_test(NAME calc_test COMMAND calc_test)");
  dir.Write("lib/CMakeLists.txt", root);
  dir.Write("lib/calc.h", kCalcH);
  dir.Write("lib/calc.cpp", kCalcCpp);
  dir.Write("lib/calc_test.cpp",
            "#include \"calc.h\"\nint main() { return Add(2, 3) == 5 ? 0 : 1; }\n");
  dir.Write("docs/meson.build", "project('docs')\n");
  dir.Write(".gitignore", "build/\n");
  auto init = RunProofgate(dir.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  EXPECT_NE(init.out.find("init: a CMake + ctest (add_test) project"), std::string::npos)
      << init.out;
  EXPECT_NE(init.out.find("note: the build files are in lib/, not at the root"), std::string::npos)
      << init.out;
  std::string suites = dir.Read("preflight/suites.json");
  EXPECT_NE(suites.find(R"(["cmake", "-S", "lib", "-B", "build")"), std::string::npos) << suites;
  EXPECT_NE(suites.find(R"(["cmake", "-S", "{tree}/lib", "-B", "{build}")"), std::string::npos)
      << suites;
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "calc under lib/").ok());
  auto green = RunProofgate(dir.path(), "preflight");
  EXPECT_EQ(green.exit_code, 0) << green.out << green.err;
  dir.Write("lib/calc.cpp",
            std::string(kCalcCpp).replace(std::string(kCalcCpp).find("a + b"), 5, "a - b"));
  auto red = RunProofgate(dir.path(), "preflight");
  EXPECT_EQ(red.exit_code, 1) << "the test leg ran lib/'s test: " << red.out << red.err;
}

// pytest through its JUnit report: names are classname.name ("tests.test_calc.test_add").
TEST_F(Shapes, Pytest) {
  std::string calc =
      "def clamp(v, lo, hi):\n    if v < lo:\n        return lo\n    if v > hi:\n        return "
      "hi\n    return v\n\n"
      "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a + b\n";
  dir_.Write("calc.py", calc);
  dir_.Write("conftest.py", "");
  dir_.Write("tests/test_calc.py",
             "from calc import add, clamp\n\n"
             "def test_clamp_top():\n    assert clamp(150, 0, 100) == 100\n\n"
             "def test_clamp_bottom():\n    assert clamp(-5, 0, 100) == 0\n\n"
             "def test_add():\n    assert add(2, 3) == 5\n");
  std::string catalog = R"({ "schema_version": 1, "mutations": [
    { "id": "M1", "file": "calc.py", "find": "        return hi", "replace": "        return v",
      "expect": [{ "test": "tests.test_calc.test_clamp_top", "message": "assert 150 == 100" }] },
    { "id": "M2", "file": "calc.py", "find": "    return a + b\n\ndef sub", "replace": "    return b + a\n\ndef sub",
      "expect": [{ "test": "tests.test_calc.test_add" }], "expect_outcome": "survived" },
    { "id": "M3", "file": "calc.py", "find": "        return lo", "replace": "        return v",
      "expect": [{ "test": "tests.test_calc.test_clamp_bottom", "message": "assert -5 == 0" }] } ],
  "combos": [ { "id": "C1", "apply": ["M1", "M3"], "expect_green": false } ] })";
  std::string fixed = calc;
  fixed.replace(fixed.rfind("return a + b"), 12, "return a - b");
  Walk("pytest", catalog, "calc.py", fixed, "tests/test_sub.py",
       "from calc import sub\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
       "tests.test_sub.test_sub");
}

}  // namespace
}  // namespace pg
