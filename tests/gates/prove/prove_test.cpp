// `proofgate prove` on real CMake + GoogleTest projects in temp git repositories, and the
// inventory logic it rests on.
#include <gtest/gtest.h>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "gates/mutate/test_map.h"
#include "gates/prove/inventory.h"
#include "gates/prove/test_bodies.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

TEST(ProveInventory, BodiesAreHashedPerCaseIgnoringLayout) {
  auto a = GtestBodies(
      "TEST(A, One) { EXPECT_EQ(1, 1); }\nTEST_F(Fix, Two) {\n  int x = 0; // }\n  EXPECT_EQ(x, "
      "0);\n}\n");
  auto b = GtestBodies("TEST(A, Renamed)   {\n   EXPECT_EQ(1,   1);\n}\n");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_TRUE(a.count("Fix.Two"));  // the brace in the comment did not end it
  EXPECT_EQ(a["A.One"], b["A.Renamed"]);
  EXPECT_NE(a["A.One"], GtestBodies("TEST(A, One) { EXPECT_EQ(1, 2); }")["A.One"]);
}

// What clang-format does to a test (operators respaced, a long literal split, a comment
// reflowed) leaves its body's hash; any token or literal's content changes it.
TEST(ProveInventory, AReformattedCaseIsTheSameCaseAndAChangedTokenIsNot) {
  auto hash = [](const std::string& body) {
    return GtestBodies("TEST(A, B) {" + body + "}")["A.B"];
  };
  std::string before =
      "EXPECT_EQ(Join(\"alpha\", \"beta\"), \"alpha beta\"); int x = a+b*1'000; // why it holds\n"
      "EXPECT_EQ(R\"(a  b)\", y);";
  std::string formatted =
      "\n  EXPECT_EQ(Join(\"alpha\", \"beta\"),\n            \"alpha \"\n            \"beta\");\n"
      "  int x = a + b * 1'000;  // why it\n  // holds\n  EXPECT_EQ(R\"(a  b)\", y);\n";
  EXPECT_EQ(hash(before), hash(formatted));
  EXPECT_EQ(CaseBodies("TEST_CASE(\"c\") {" + before + "}")["c"],
            CaseBodies("TEST_CASE(\"c\") {" + formatted + "}")["c"]);
  const std::string same =
      "EXPECT_EQ(Join(\"alpha\", \"beta\"), \"alpha beta\"); int x = a+b*1'000;";
  EXPECT_EQ(hash(before), hash(same + "\nEXPECT_EQ(R\"(a  b)\", y);"))
      << "each below differs by one token";
  for (std::string changed :
       {"EXPECT_EQ(Join(\"alpha\", \"beta\"), \"alpha  beta\"); int x = a+b*1'000;",
        "EXPECT_EQ(Join(\"alpha\", \"beta\"), \"alpha\" \"beta\"); int x = a+b*1'000;",
        "EXPECT_EQ(Join(\"alpha\", \"beta\"), \"alpha beta\"); int x = a-b*1'000;",
        "EXPECT_EQ(Join(\"alpha\", \"beta\"), \"alpha beta\"); intx = a+b*1'000;"}) {
    EXPECT_NE(hash(before), hash(changed + "\nEXPECT_EQ(R\"(a  b)\", y);")) << changed;
  }
  EXPECT_NE(hash(before), hash("EXPECT_EQ(Join(\"alpha\", \"beta\"), \"alpha beta\"); int x = "
                               "a+b*1'000; EXPECT_EQ(R\"(a b)\", y);"))
      << "a raw string's spaces are its content";
  // A raw string's quotes and braces are its content, not the body's end.
  auto raw =
      GtestBodies("TEST(A, Raw) { Parse(R\"({\"k\": \"}\"})\"); Check(1); }\nTEST(A, Next) {}");
  EXPECT_EQ(raw.size(), 2u);
  EXPECT_NE(raw["A.Raw"],
            GtestBodies("TEST(A, Raw) { Parse(R\"({\"k\": \"}\"})\"); Check(2); }")["A.Raw"])
      << "the code after the raw string is part of the body";
}

TEST(ProveInventory, TheDiffSeparatesAddedRemovedRenamedAndChanged) {
  Inventory base{{"S.Keep", "S.Old", "S.Gone", "S.Edit"},
                 {{"S.Keep", "k"}, {"S.Old", "o"}, {"S.Gone", "g"}, {"S.Edit", "e1"}},
                 {}};
  Inventory head{{"S.Keep", "S.New", "S.Added", "S.Edit"},
                 {{"S.Keep", "k"}, {"S.New", "o"}, {"S.Added", "a"}, {"S.Edit", "e2"}},
                 {}};
  InventoryDiff d = DiffInventories(base, head);
  EXPECT_EQ(d.added, std::vector<std::string>{"S.Added"});
  EXPECT_EQ(d.removed, std::vector<std::string>{"S.Gone"});
  ASSERT_EQ(d.renamed.size(), 1u);
  EXPECT_EQ(d.renamed[0], (std::pair<std::string, std::string>{"S.Old", "S.New"}));
  EXPECT_EQ(d.changed, std::vector<std::string>{"S.Edit"});
}

TEST(ProveInventory, ARemovedTestIsLostUnlessACommitSaysWhy) {
  std::vector<std::string> messages = {
      "Drop a test\n\nTest-Removed: S.Explained — covered by S.Better\n",
      "Drop another\n\nTest-Removed: S.NoReason —\n"};
  EXPECT_EQ(LostTests({"S.Explained", "S.NoReason", "S.Silent"}, messages),
            (std::vector<std::string>{"S.NoReason", "S.Silent"}));
}

TEST(TestMap, AGtestListingNamesEveryCaseButTheDisabledOnes) {
  std::string listing =
      "Running main() from gtest_main.cc\nA.\n  One\n  DISABLED_Two\nI/P.  # TypeParam = int\n"
      "  Q/0  # GetParam() = 1\n  Q/1  # GetParam() = 2\nDISABLED_B.\n  Three\n";
  EXPECT_EQ(ParseGtestListing(listing), (std::vector<std::string>{"A.One", "I/P.Q/0", "I/P.Q/1"}));
  EXPECT_TRUE(ParseGtestListing("no tests here\n").empty());
}

// proofgate names gtest's flags (it runs gtest binaries) but is none: asking it to list its
// cases stopped this repository's own mutation runs.
TEST(TestMap, GtestExecutablesAreToldFromProgramsThatMerelyNameGtestFlags) {
  EXPECT_TRUE(IsGtestExecutable("/proc/self/exe"));
  EXPECT_FALSE(IsGtestExecutable(PROOFGATE_BIN));
  EXPECT_FALSE(IsGtestExecutable("/bin/sh"));
  EXPECT_FALSE(IsGtestExecutable("/no/such/file"));
}

TEST(ProveInventory, CtestListingsAreParsedAndOtherTextIsRefused) {
  auto names =
      ParseCtestListing(R"({"kind": "ctestInfo", "tests": [{"name": "A.B"}, {"name": "C.D"}]})");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"A.B", "C.D"}));
  EXPECT_FALSE(ParseCtestListing("Test project /x\n").ok());
}

// A test's command, directory and environment are what a mutant's run repeats: a value keeps
// every '=' after the first, and an empty one stays empty.
TEST(TestMap, CtestTestsKeepTheirCommandDirectoryAndEnvironment) {
  auto tests =
      ParseCtestTests(R"({"kind": "ctestInfo", "tests": [{"name": "t", "command": ["/bin/x", "--y"],
      "properties": [{"name": "WORKING_DIRECTORY", "value": "/w"},
                     {"name": "ENVIRONMENT", "value": ["OPTS=a=b", "EMPTY=", "NOEQUALS"]}]}]})");
  ASSERT_TRUE(tests.ok()) << tests.status().message();
  ASSERT_EQ(tests->size(), 1u);
  const CtestTest& t = tests->front();
  EXPECT_EQ(t.command, (std::vector<std::string>{"/bin/x", "--y"}));
  EXPECT_EQ(t.cwd, "/w");
  using Env = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(t.env, (Env{{"OPTS", "a=b"}, {"EMPTY", ""}}));
}

// A project whose tests live under tests/ (their CMakeLists.txt too, so a new test file builds
// on the base tree's code). The base has a bug in Sub.
class ProveRepo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write(
        "preflight/suites.json",
        R"({"schema_version": 1, "legs": {}, "suites": {}, "prove": {"tests": ["tests/**"]}})");
    dir_.Write(".gitignore", "build/\n");
    dir_.Write(
        "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\nset(CMAKE_CXX_STANDARD 17)\n"
        "enable_testing()\nadd_library(calc calc.cpp)\nadd_subdirectory(tests)\n");
    dir_.Write("calc.h",
               "int Add(int a, int b);\nint Sub(int a, int b);\nint Clamp(int v, int hi);\n");
    dir_.Write("calc.cpp",
               "#include \"calc.h\"\nint Add(int a, int b) { return a + b; }\n"
               "int Sub(int a, int b) { return a + b; }\nint Clamp(int v, int hi) { return v > hi "
               "? hi : v; }\n");
    dir_.Write(
        "tests/CMakeLists.txt",
        "find_package(GTest REQUIRED)\ninclude(GoogleTest)\nfile(GLOB SOURCES *_test.cpp)\n"
        "add_executable(calc_test ${SOURCES})\ntarget_include_directories(calc_test PRIVATE ..)\n"
        "target_link_libraries(calc_test calc GTest::gtest GTest::gtest_main)\n"
        "gtest_discover_tests(calc_test)\n");
    dir_.Write("tests/calc_test.cpp", std::string(kIncludes) + kClamp + kOld + kGone);
    ASSERT_TRUE(git::Init(dir_.path()).ok());
    base_ = git::CommitAll(dir_.path(), "Calc with a bug in Sub").value();
  }
  static constexpr const char* kIncludes = "#include <gtest/gtest.h>\n#include \"calc.h\"\n";
  static constexpr const char* kClamp =
      "TEST(Clamp, KeepsSmallValues) { EXPECT_EQ(Clamp(3, 10), 3); }\n";
  static constexpr const char* kOld = "TEST(Add, AddsTwo) { EXPECT_EQ(Add(2, 3), 5); }\n";
  static constexpr const char* kGone = "TEST(Gone, Removed) { EXPECT_EQ(Add(0, 0), 0); }\n";
  Json Prove() {
    auto run = testing::RunProofgate(dir_.path(), "prove --json --base " + base_);
    exit_code_ = run.exit_code;
    err_ = run.err;
    Json doc = Json::parse(run.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << run.out << run.err;
    return doc;
  }
  TempDir dir_;
  std::string base_, err_;
  int exit_code_ = -1;
};

TEST_F(ProveRepo, AFixWithItsTestIsRedBeforeAndGreenAfter) {
  dir_.Write("calc.cpp", dir_.Read("calc.cpp")
                             .replace(dir_.Read("calc.cpp").find("return a + b; }\nint Clamp"), 13,
                                      "return a - b;"));
  dir_.Write("tests/sub_test.cpp",
             std::string(kIncludes) + "TEST(Sub, Subtracts) { EXPECT_EQ(Sub(5, 3), 2); }\n");
  // Add.AddsTwo renamed (same body), Gone.Removed removed with its reason.
  dir_.Write("tests/calc_test.cpp", std::string(kIncludes) + kClamp +
                                        "TEST(Add, AddsTwoNumbers) { EXPECT_EQ(Add(2, 3), 5); }\n");
  ASSERT_TRUE(
      git::CommitAll(dir_.path(), "Fix Sub\n\nTest-Removed: Gone.Removed — nothing left to guard\n")
          .ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 0) << doc.dump(2) << err_;
  EXPECT_EQ(doc["summary"], "red before 1/1, green after 1/1");
  EXPECT_EQ(doc["fail_to_pass"][0]["test"], "Sub.Subtracts");
  EXPECT_EQ(doc["fail_to_pass"][0]["verdict"], "proven");
  EXPECT_EQ(doc["tests"]["base"], 3);
  EXPECT_EQ(doc["tests"]["head"], 3);
  EXPECT_EQ(doc["renamed"][0]["from"], "Add.AddsTwo");
  EXPECT_EQ(doc["renamed"][0]["to"], "Add.AddsTwoNumbers");
  EXPECT_EQ(doc["removed"], Json::array({"Gone.Removed"}));
  EXPECT_TRUE(doc["lost"].empty());
  EXPECT_EQ(doc["pass_to_pass"]["checked"],
            2);  // Clamp.KeepsSmallValues, and Add.AddsTwo under its new name
}

TEST_F(ProveRepo, ATestThatPassesAnywayALostTestAndABrokenOneAreFlagged) {
  dir_.Write(
      "calc.cpp",
      dir_.Read("calc.cpp").replace(dir_.Read("calc.cpp").find("v > hi ? hi : v"), 15, "hi"));
  dir_.Write("tests/calc_test.cpp",
             std::string(kIncludes) + kClamp + kOld +
                 "TEST(Add, Commutes) { EXPECT_EQ(Add(1, 2), Add(2, 1)); }\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Simplify Clamp").ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 1) << doc.dump(2) << err_;
  EXPECT_EQ(doc["fail_to_pass"][0]["test"], "Add.Commutes");
  EXPECT_EQ(doc["fail_to_pass"][0]["verdict"], "not proven");
  EXPECT_EQ(doc["lost"], Json::array({"Gone.Removed"}));
  EXPECT_EQ(doc["pass_to_pass"]["broken"][0]["test"], "Clamp.KeepsSmallValues");
  EXPECT_EQ(doc["summary"], "red before 0/1, green after 1/1");
  auto table = testing::RunProofgate(dir_.path(), "prove --base " + base_);
  EXPECT_NE(table.out.find("prove: fail (1 not proven, 1 lost, 1 broken)"), std::string::npos)
      << table.out;
}

// A test of a function the base does not have cannot build there: reported, never counted red.
TEST_F(ProveRepo, ATestThatCannotBuildOnTheBaseIsUnviableNotRed) {
  dir_.Write("calc.h", dir_.Read("calc.h") + "int Twice(int a);\n");
  dir_.Write("calc.cpp", dir_.Read("calc.cpp") + "int Twice(int a) { return 2 * a; }\n");
  dir_.Write("tests/twice_test.cpp",
             std::string(kIncludes) + "TEST(Twice, Doubles) { EXPECT_EQ(Twice(4), 8); }\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Add Twice").ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 1) << doc.dump(2) << err_;
  EXPECT_EQ(doc["fail_to_pass"][0]["verdict"], "unviable");
  EXPECT_NE(doc["unviable"].get<std::string>().find("error"), std::string::npos) << doc["unviable"];
  EXPECT_EQ(doc["summary"], "red before 0/1, green after 1/1");
}

// One ctest test for the whole executable: the inventory is still its gtest cases, so the new
// case is found and proven (LESSONS.md #15: this layout used to prove "0/0" and pass).
TEST_F(ProveRepo, ACaseInsideOneCtestTestPerExecutableIsProven) {
  std::string cmake = dir_.Read("tests/CMakeLists.txt");
  cmake.replace(cmake.find("gtest_discover_tests(calc_test)"), 31,
                "add_test(NAME calc_test COMMAND calc_test)");
  dir_.Write("tests/CMakeLists.txt", cmake);
  base_ = git::CommitAll(dir_.path(), "One ctest test per executable").value();
  dir_.Write("calc.cpp", dir_.Read("calc.cpp")
                             .replace(dir_.Read("calc.cpp").find("return a + b; }\nint Clamp"), 13,
                                      "return a - b;"));
  dir_.Write("tests/sub_test.cpp",
             std::string(kIncludes) + "TEST(Sub, Subtracts) { EXPECT_EQ(Sub(5, 3), 2); }\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Fix Sub").ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 0) << doc.dump(2) << err_;
  EXPECT_EQ(doc["summary"], "red before 1/1, green after 1/1");
  EXPECT_EQ(doc["fail_to_pass"][0]["test"], "Sub.Subtracts");
  EXPECT_EQ(doc["tests"]["base"], 3);
  EXPECT_EQ(doc["tests"]["head"], 4);
  EXPECT_EQ(doc["pass_to_pass"]["checked"], 3);
}

// LESSONS.md #15: a change whose tests proofgate finds none of proved nothing, and says why.
TEST_F(ProveRepo, AChangeWithNoAddedOrChangedTestProvesNothingAndFails) {
  dir_.Write("calc.cpp", dir_.Read("calc.cpp")
                             .replace(dir_.Read("calc.cpp").find("return a + b; }\nint Clamp"), 13,
                                      "return a - b;"));
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Fix Sub, no test").ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 1) << doc.dump(2) << err_;
  EXPECT_EQ(doc["summary"], "red before 0/0, green after 0/0");
  std::string why = doc["nothing_proven"];
  EXPECT_NE(why.find("1 commit changing 1 file"), std::string::npos) << why;
  EXPECT_NE(why.find("test globs [tests/**] match none"), std::string::npos) << why;
  EXPECT_NE(why.find("test bodies found: Add.AddsTwo, Clamp.KeepsSmallValues, Gone.Removed"),
            std::string::npos)
      << why;
  auto allowed = testing::RunProofgate(dir_.path(), "prove --allow-empty --base " + base_);
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("nothing proven: no added or changed test"), std::string::npos)
      << allowed.out;
}

TEST_F(ProveRepo, WithoutTestGlobsTheDefaultGlobsAreUsedAndNamed) {
  dir_.Write("preflight/suites.json", R"({"schema_version": 1, "legs": {}, "suites": {}})");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "No prove settings").ok());
  dir_.Write("tests/sub_test.cpp",
             std::string(kIncludes) + "TEST(Sub, Subtracts) { EXPECT_EQ(Sub(5, 3), 2); }\n");
  dir_.Write("calc.cpp", dir_.Read("calc.cpp")
                             .replace(dir_.Read("calc.cpp").find("return a + b; }\nint Clamp"), 13,
                                      "return a - b;"));
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Fix Sub").ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 0) << doc.dump(2) << err_;
  EXPECT_EQ(doc["fail_to_pass"][0]["verdict"], "proven");
  EXPECT_EQ(doc["test_globs"],
            Json::array({"test/**", "tests/**", "**/*_test.*", "**/*_unittest.*", "**/test_*.*"}));
  EXPECT_NE(err_.find("test files are the default globs: test/** tests/**"), std::string::npos)
      << err_;
}

}  // namespace
}  // namespace pg
