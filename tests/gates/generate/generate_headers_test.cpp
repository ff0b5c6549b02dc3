// `mutate --generate` in headers (specs/mutate-generate.md): points written in a header, found
// through a source that includes it, run by the tests that reach any of its includers, in a
// schema alongside the includer's own.
#include <gtest/gtest.h>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

// limits.h is included by user.cpp (reached by limits_test); lonely.h by nothing; other.cpp is
// reached by other_test only.
void MakeHeaderProject(const TempDir& dir) {
  dir.Write("CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.20)
project(hdr CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(GTest REQUIRED)
enable_testing()
add_library(limits src/user.cpp)
target_include_directories(limits PUBLIC src)
add_library(other src/other.cpp)
add_executable(limits_test tests/limits_test.cpp)
target_link_libraries(limits_test limits GTest::gtest GTest::gtest_main)
add_test(NAME limits_test COMMAND limits_test)
add_executable(other_test tests/other_test.cpp)
target_link_libraries(other_test other GTest::gtest GTest::gtest_main)
add_test(NAME other_test COMMAND other_test)
)");
  dir.Write("src/limits.h",
            "#pragma once\n// Limits.\ninline bool Small(int v) { return v < 10; }\n"
            "inline bool Big(int v) {\n  return v > 100;\n}\nint Use(int v);\n");
  dir.Write("src/lonely.h", "inline int Lonely(int a) { return a < 1 ? 0 : a; }\n");
  dir.Write("src/user.cpp", "#include \"limits.h\"\nint Use(int v) { return v < 0 ? 0 : v; }\n");
  dir.Write("src/other.cpp", "int Other() { return 7; }\n");
  dir.Write("tests/limits_test.cpp", R"(#include <gtest/gtest.h>
#include "limits.h"
TEST(Limits, SmallStopsAtTen) { EXPECT_TRUE(Small(9)); EXPECT_FALSE(Small(10)); }
TEST(Limits, BigIsBig) { EXPECT_TRUE(Big(200)); EXPECT_FALSE(Big(0)); }
TEST(Limits, UseKeepsPositives) { EXPECT_EQ(Use(5), 5); EXPECT_EQ(Use(-5), 0); }
)");
  dir.Write(
      "tests/other_test.cpp",
      "#include <gtest/gtest.h>\nint Other();\nTEST(Other, Seven) { EXPECT_EQ(Other(), 7); }\n");
  dir.Write(".gitignore", "build/\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "headers").ok());
}

const Json* At(const Json& doc, const std::string& file, int line) {
  for (const Json& r : doc.at("results")) {
    const Json& g = r.at("generated");
    if (g.at("file") == file && g.at("line") == line) return &r;
  }
  return nullptr;
}

// --no-reach: the tests of every includer run (reach would narrow them to those executing it).
TEST(GenerateHeaders, AHeadersPointsRunTheTestsOfItsIncludersInOneSchemaWithThem) {
  TempDir dir;
  MakeHeaderProject(dir);
  auto run =
      RunProofgate(dir.path(), "mutate --generate src --operators relational --json --no-reach");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  auto doc = JsonSource::Parse("report", run.out);
  ASSERT_TRUE(doc.ok()) << run.out << run.err;
  ASSERT_EQ(doc->root().at("results").size(), 3u) << run.out << run.err;
  const Json* small = At(doc->root(), "src/limits.h", 3);
  const Json* big = At(doc->root(), "src/limits.h", 5);
  const Json* use = At(doc->root(), "src/user.cpp", 2);
  ASSERT_TRUE(small && big && use) << run.out;
  EXPECT_EQ(small->at("outcome"), "killed") << "Small(10) is true with <=";
  EXPECT_EQ(big->at("outcome"), "survived") << "no test has v == 100";
  EXPECT_EQ(big->at("generated").at("column"), 12);
  EXPECT_EQ(big->at("generated").at("tests"), Json::array({"limits_test"}))
      << "other_test reaches no includer";
  // The header's schema and user.cpp's share one translation unit: both in the schemata's build.
  EXPECT_EQ(small->at("schema"), true) << run.err;
  EXPECT_EQ(use->at("schema"), true) << run.err;
  EXPECT_NE(run.err.find(
                "1 header(s) under PATHS not mutated: no compiled file of the tree includes them"),
            std::string::npos)
      << run.err;
}

// CMake's default generator keeps the compilers' depfiles, not Ninja's log: they name the
// includers as well.
TEST(GenerateHeaders, AMakefilesBuildFindsTheIncludersInTheCompilersDepfiles) {
  TempDir dir;
  MakeHeaderProject(dir);
  testing::WriteConfigure(dir,
                          R"(["cmake", "-S", "{tree}", "-B", "{build}", "-G", "Unix Makefiles"])");
  auto run =
      RunProofgate(dir.path(), "mutate --generate src/limits.h --operators relational --list");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("src/limits.h:3:"), std::string::npos) << run.out << run.err;
  EXPECT_NE(run.out.find("src/limits.h:5:12:relational:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("runs 1 test(s)"), std::string::npos)
      << "limits_test alone, through the file API";
}

}  // namespace
}  // namespace pg
