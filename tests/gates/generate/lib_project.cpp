#include "tests/gates/generate/lib_project.h"

#include <gtest/gtest.h>

#include "gates/git/git.h"

namespace pg::testing {

void MakeLibProject(const TempDir& dir) {
  dir.Write("CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.20)
project(reach CXX)
set(CMAKE_CXX_STANDARD 17)
find_package(GTest REQUIRED)
enable_testing()
add_library(lib src/lib.cpp)
add_executable(lib_test tests/lib_test.cpp)
target_link_libraries(lib_test lib GTest::gtest GTest::gtest_main)
add_test(NAME lib_test COMMAND lib_test)
add_executable(tool tests/tool.cpp)
target_link_libraries(tool lib)
add_test(NAME via_script COMMAND sh -c "test \"$($<TARGET_FILE:tool>)\" = 12")
)");
  dir.Write("src/lib.cpp",
            "int Add(int a, int b) { return a + b; }\nint Mul(int a, int b) { return a * b; }\n"
            "int Never(int a) { return a - 1; }\n");
  dir.Write("tests/lib_test.cpp", R"(#include <gtest/gtest.h>
#include <chrono>
#include <thread>
int Add(int a, int b);
int Mul(int a, int b);
TEST(Lib, AddSlowly) { std::this_thread::sleep_for(std::chrono::milliseconds(400)); EXPECT_EQ(Add(2, 2), 4); }
TEST(Lib, Sum) { EXPECT_EQ(Add(1, 2), 3); }
TEST(Lib, Mul) { EXPECT_EQ(Mul(2, 3), 6); }
)");
  dir.Write("tests/tool.cpp",
            "#include <cstdio>\nint Mul(int a, int b);\nint main() { std::printf(\"%d\", Mul(3, "
            "4)); }\n");
  dir.Write(".gitignore", "build/\n");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  ASSERT_TRUE(git::CommitAll(dir.path(), "lib").ok());
}

const Json* ResultWith(const Json& doc, const std::string& original) {
  for (const Json& r : doc.at("results")) {
    if (r.at("generated").at("original") == original) return &r;
  }
  return nullptr;
}

}  // namespace pg::testing
