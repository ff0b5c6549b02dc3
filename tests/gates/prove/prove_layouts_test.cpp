// `proofgate prove` where the layout names no gtest case (#64): pytest functions by their
// bodies, and a test framework whose cases ctest cannot list (pugixml's own runner) by the
// ctest test built from the changed file. Real projects made by `proofgate init`, real builds.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "gates/config/json_source.h"
#include "gates/git/git.h"
#include "gates/prove/inventory.h"
#include "gates/prove/test_bodies.h"
#include "gates/prove/whole_tests.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

constexpr const char* kPyTests = R"(import pytest

def helper():
    def test_inner():
        pass

@pytest.mark.parametrize("x", [1, 2])
def test_param(x):
    assert x

class TestA:
    """A docstring
with a line at the margin.
    """
    def test_one(self):
        assert max(
    1, 2) == 2

    async def test_two(self):
        pass

    class TestInner:
        def test_deep(self):
            pass

def test_last():
    pass

class TestDerived(TestA, object):
    def test_two(self):
        return 2
)";

std::map<std::string, std::string> Py(const std::string& source) {
  return PytestBodies("tests.test_m", source);
}

std::string Edited(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(ProveInventory, PytestFunctionsAreHashedByTheNamesTheirReportsGive) {
  auto a = Py(kPyTests);
  std::vector<std::string> names;
  for (const auto& entry : a) names.push_back(entry.first);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "tests.test_m.TestA.TestInner.test_deep", "tests.test_m.TestA.test_one",
                       "tests.test_m.TestA.test_two", "tests.test_m.TestDerived.test_one",
                       "tests.test_m.TestDerived.test_two", "tests.test_m.test_last",
                       "tests.test_m.test_param"}));
  // pytest lists an inherited test under the derived class, with the base's body; its own stays its
  // own
  EXPECT_EQ(a["tests.test_m.TestDerived.test_one"], a["tests.test_m.TestA.test_one"]);
  EXPECT_NE(a["tests.test_m.TestDerived.test_two"], a["tests.test_m.TestA.test_two"]);
  auto param = Py(Edited(kPyTests, "[1, 2]", "[1, 0]"));  // a decorator is part of the test
  EXPECT_NE(param["tests.test_m.test_param"], a["tests.test_m.test_param"]);
  EXPECT_EQ(param["tests.test_m.TestA.test_one"], a["tests.test_m.TestA.test_one"]);
  auto body =
      Py(Edited(kPyTests, "== 2\n", "== 3\n"));  // a line after a less indented continuation
  EXPECT_NE(body["tests.test_m.TestA.test_one"], a["tests.test_m.TestA.test_one"]);
  EXPECT_EQ(body["tests.test_m.TestDerived.test_one"], body["tests.test_m.TestA.test_one"])
      << "inherited: changed too";
  EXPECT_EQ(body["tests.test_m.TestA.test_two"], a["tests.test_m.TestA.test_two"]);
  auto layout =
      Py(Edited(kPyTests, "def test_last():\n    pass", "def test_last():\n\n    pass  "));
  EXPECT_EQ(layout, a);
  auto comments = Py(Edited(kPyTests, "def test_last():\n    pass",
                            "def test_last():  # why\n    # a note\n    pass  # 'q'"));
  EXPECT_EQ(comments, a);  // a comment changes no test
  EXPECT_EQ(
      ListedTestNames(
          "tests/test_m.py::TestA::test_y[p::q]\ntests/test_m.py::test_z\n\n2 tests collected\n"),
      (std::vector<std::string>{"tests.test_m.TestA.test_y[p::q]", "tests.test_m.test_z"}));
  Inventory inv{{"tests.test_m.test_param[1]"}, a, {}};
  ASSERT_NE(BodyOf(inv, "tests.test_m.test_param[1]"), nullptr);
  EXPECT_EQ(*BodyOf(inv, "tests.test_m.test_param[1]"), a["tests.test_m.test_param"]);
}

// A test file moved to a new path with its bytes is no changed test file; a changed one is.
TEST(ProveInventory, AMovedTestFileIsNoChange) {
  Inventory base{{}, {}, {{"tests/a.cpp", {"h1", {}}}, {"tests/b.cpp", {"h2", {}}}}};
  Inventory head{{},
                 {},
                 {{"tests/moved/a.cpp", {"h1", {}}},
                  {"tests/b.cpp", {"h3", {}}},
                  {"tests/c.cpp", {"h4", {}}}}};
  EXPECT_EQ(ChangedTestFiles(base, head), (std::vector<std::string>{"tests/b.cpp", "tests/c.cpp"}));
}

TEST(ProveInventory, Catch2AndDoctestCasesAreHashedByTheirNames) {
  auto a = CaseBodies(
      "TEST_CASE(\"clamp caps\", \"[calc]\") { REQUIRE(c(200) == 100); }\n"
      "TEST_CASE_METHOD(Fix, \"uses a fixture\") {\n  REQUIRE(x);\n}\nSCENARIO(\"a story\") { }\n"
      "TEST(Suite, Gtest) { }\n");
  std::vector<std::string> names;
  for (const auto& entry : a) names.push_back(entry.first);
  EXPECT_EQ(names, (std::vector<std::string>{"Scenario: a story", "Suite.Gtest", "clamp caps",
                                             "uses a fixture"}));
}

// An outside tester's find: a Catch2 case appended to a file left its neighbour unchanged, yet it
// was judged changed (the file defined no case proofgate could name) and the proof failed.
TEST(ProveInventory, AnAddedCatch2CaseLeavesItsNeighboursUnchanged) {
  TempDir base_tree, head_tree;
  std::string old_case = "TEST_CASE(\"clamp caps at 100\") { REQUIRE(clamp(200) == 100); }\n";
  base_tree.Write("tests/test_calc.cpp", old_case);
  head_tree.Write("tests/test_calc.cpp",
                  old_case + "TEST_CASE(\"clamp floors at zero\") { REQUIRE(clamp(-5) == 0); }\n");
  Inventory base{{"clamp caps at 100"}, {}, TreeTestFiles(base_tree.path(), {"tests/**"}).value()};
  Inventory head{{"clamp caps at 100", "clamp floors at zero"},
                 {},
                 TreeTestFiles(head_tree.path(), {"tests/**"}).value()};
  for (auto* inv : {&base, &head}) {
    for (const auto& [rel, file] : inv->files)
      inv->bodies.insert(file.bodies.begin(), file.bodies.end());
  }
  EXPECT_TRUE(FilesWithoutListedCases(ChangedTestFiles(base, head), head).empty())
      << "its cases are listed by name";
  InventoryDiff d = DiffInventories(base, head);
  EXPECT_EQ(d.added, std::vector<std::string>{"clamp floors at zero"});
  EXPECT_TRUE(d.changed.empty()) << d.changed.front();
}

// A project made by `proofgate init`, committed as the base; the test changes it.
class ProveLayouts : public ::testing::Test {
 protected:
  void Init() {
    ASSERT_TRUE(git::Init(dir_.path()).ok());
    auto init = testing::RunProofgate(dir_.path(), "init");
    ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
    base_ = git::CommitAll(dir_.path(), "Base with a bug").value();
  }
  Json Prove() {
    auto run = testing::RunProofgate(dir_.path(), "prove --json --base " + base_);
    exit_code_ = run.exit_code;
    err_ = run.err;
    table_ = testing::RunProofgate(dir_.path(), "prove --base " + base_).out;
    Json doc = Json::parse(run.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << run.out << run.err;
    return doc;
  }
  TempDir dir_;
  std::string base_, err_, table_;
  int exit_code_ = -1;
};

// more-itertools' shape (#64): unittest classes run by pytest; the fix changes only the body of
// an existing test, which fails on the base's code with its assertion.
TEST_F(ProveLayouts, APytestFunctionWhoseBodyChangedIsProvenWithItsFailure) {
  dir_.Write("conftest.py", "");
  dir_.Write("more.py", "def exactly_n(it, n):\n    return sum(map(bool, it)) >= n\n");
  std::string tests =
      "from unittest import TestCase\nfrom more import exactly_n\n\nclass "
      "ExactlyNTests(TestCase):\n"
      "    def test_true(self):\n        self.assertTrue(exactly_n([1, 1, 0], 2))\n\n"
      "    def test_false(self):\n        self.assertFalse(exactly_n([0, 0], 1))\n";
  dir_.Write("tests/test_more.py", tests);
  Init();
  dir_.Write("more.py", "def exactly_n(it, n):\n    return sum(map(bool, it)) == n\n");
  dir_.Write("tests/test_more.py", Edited(tests, "self.assertFalse(exactly_n([0, 0], 1))",
                                          "self.assertFalse(exactly_n([0, 0], 1))\n        "
                                          "self.assertFalse(exactly_n([1, 1, 1], 2))"));
  ASSERT_TRUE(git::CommitAll(dir_.path(), "exactly_n: exactly, not at least").ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 0) << doc.dump(2) << err_;
  EXPECT_EQ(doc["changed"], Json::array({"tests.test_more.ExactlyNTests.test_false"}))
      << doc.dump(2);
  EXPECT_EQ(doc["unaccounted"], Json::array())
      << doc.dump(2);  // its one changed file defines listed cases
  EXPECT_EQ(doc["summary"], "red before 1/1, green after 1/1");
  ASSERT_EQ(doc["fail_to_pass"].size(), 1u) << doc.dump(2);
  EXPECT_EQ(doc["fail_to_pass"][0]["verdict"], "proven");
  std::string why = doc["fail_to_pass"][0]["why"];
  EXPECT_NE(why.find("True is not false"), std::string::npos) << why;
  EXPECT_EQ(why.find(" / "), std::string::npos)
      << "pytest's message alone, not its traceback: " << why;
  EXPECT_NE(table_.find("red before: " + why), std::string::npos) << table_;
}

// Outside testers' finds: a new test whose module cannot import on the base's code (the name it
// tests is new) never ran there: unviable, as a test that does not compile on the base, never
// red; a changed test that fails on HEAD is judged once, red after.
TEST_F(ProveLayouts, ACollectionErrorIsRedBeforeAndARedAfterTestIsJudgedOnce) {
  dir_.Write("conftest.py", "");
  dir_.Write("more.py", "def add(a, b):\n    return a + b\n");
  dir_.Write("tests/test_more.py",
             "from more import add\n\ndef test_add():\n    assert add(1, 2) == 3\n");
  dir_.Write("tests/test_sub.py", "def test_nothing_yet():\n    pass\n");
  Init();
  dir_.Write("more.py", "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n");
  dir_.Write("tests/test_sub.py",
             "from more import sub\n\ndef test_nothing_yet():\n    pass\n\n"
             "def test_sub():\n    assert sub(3, 1) == 2\n");
  dir_.Write("tests/test_more.py",
             "from more import add\n\ndef test_add():\n    assert add(1, 2) == 4\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "sub, and a wrong test").ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 1) << doc.dump(2) << err_;
  std::map<std::string, Json> rows;
  for (const Json& row : doc["fail_to_pass"]) rows[row["test"]] = row;
  ASSERT_TRUE(rows.count("tests.test_sub.test_sub")) << doc.dump(2);
  EXPECT_EQ(rows["tests.test_sub.test_sub"]["verdict"], "unviable") << doc.dump(2);
  std::string detail = rows["tests.test_sub.test_sub"]["detail"];
  EXPECT_NE(detail.find("its module does not import on the base: collection failure: ImportError: "
                        "cannot import name 'sub'"),
            std::string::npos)
      << detail;
  ASSERT_TRUE(rows.count("tests.test_more.test_add")) << doc.dump(2);
  EXPECT_EQ(rows["tests.test_more.test_add"]["verdict"], "red after");
  EXPECT_EQ(rows["tests.test_more.test_add"]["base"], "fail")
      << "the other module's tests ran: " << doc.dump(2);
  EXPECT_NE(rows["tests.test_more.test_add"]["detail"].get<std::string>().find("fails on HEAD: "),
            std::string::npos)
      << doc.dump(2);
  EXPECT_EQ(doc["pass_to_pass"]["broken"], Json::array())
      << "a candidate is judged once: " << doc.dump(2);
  EXPECT_NE(table_.find("prove: fail (1 red after, 1 unviable)"), std::string::npos) << table_;
}

// pugixml's shape (#64): its own runner, every case behind one ctest test. The fix's new case
// is in a file no listed case is defined in, so the ctest test built from it is proven whole.
TEST_F(ProveLayouts, ACtestTestStandsForAChangedFileWhoseCasesItCannotList) {
  dir_.Write(
      "CMakeLists.txt",
      "cmake_minimum_required(VERSION 3.20)\nproject(calc CXX)\nenable_testing()\n"
      "add_library(calc calc.cpp)\nadd_executable(runner tests/main.cpp tests/test_calc.cpp)\n"
      "target_include_directories(runner PRIVATE .)\ntarget_link_libraries(runner calc)\n"
      "add_test(NAME calc::test COMMAND runner)\n"
      "add_executable(other tests/other.cpp)\nadd_test(NAME other COMMAND other)\n");
  dir_.Write("calc.h", "int Sub(int a, int b);\n");
  dir_.Write("calc.cpp", "#include \"calc.h\"\nint Sub(int a, int b) { return a + b; }\n");
  dir_.Write("tests/other.cpp", "int main() { return 0; }\n");
  dir_.Write("tests/case.h",
             "#include <cstdio>\nstruct Case { const char* name; bool (*run)(); };\n"
             "#define CHECK(e) do { if (!(e)) { std::printf(\"Test %s failed: %s\\n\", __func__, "
             "#e); return false; } } while (0)\n");
  dir_.Write("tests/main.cpp",
             "#include \"case.h\"\nextern Case kCases[];\nint main() {\n  int failed = 0;\n"
             "  for (Case* c = kCases; c->name; ++c) failed += !c->run();\n"
             "  std::printf(\"%d failed\\n\", failed);\n  return failed != 0;\n}\n");
  std::string cases =
      "#include \"case.h\"\n#include \"calc.h\"\nstatic bool zero() { CHECK(Sub(0, 0) == 0); "
      "return true; }\n";
  dir_.Write("tests/test_calc.cpp",
             cases + "Case kCases[] = {{\"zero\", zero}, {nullptr, nullptr}};\n");
  Init();
  dir_.Write("calc.cpp", "#include \"calc.h\"\nint Sub(int a, int b) { return a - b; }\n");
  dir_.Write("tests/test_calc.cpp",
             cases +
                 "static bool sub() { CHECK(Sub(5, 3) == 2); return true; }\n"
                 "Case kCases[] = {{\"zero\", zero}, {\"sub\", sub}, {nullptr, nullptr}};\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Fix Sub").ok());
  Json doc = Prove();
  EXPECT_EQ(exit_code_, 0) << doc.dump(2) << err_;
  EXPECT_EQ(doc["whole_tests"], Json::parse(R"({"calc::test": ["tests/test_calc.cpp"]})"))
      << doc.dump(2);
  EXPECT_EQ(doc["changed"], Json::array({"calc::test"}));
  EXPECT_EQ(doc["summary"], "red before 1/1, green after 1/1");
  EXPECT_EQ(doc["fail_to_pass"][0]["why"], "Test sub failed: Sub(5, 3) == 2");
  EXPECT_NE(table_.find("calc::test (for tests/test_calc.cpp)"), std::string::npos) << table_;
  EXPECT_EQ(table_.find("unaccounted"), std::string::npos) << table_;
  // The shared header changes what every case of the runner sees: the same ctest test stands for
  // it.
  dir_.Write("tests/case.h",
             dir_.Read("tests/case.h") + "// checks print the function that failed\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Say so").ok());
  doc = Prove();
  EXPECT_EQ(doc["whole_tests"],
            Json::parse(R"({"calc::test": ["tests/case.h", "tests/test_calc.cpp"]})"))
      << doc.dump(2);
  // A test source the base's CMakeLists.txt names moves (the base still builds it in the mixed
  // tree), and a data file no test builds changes: named, never a candidate.
  std::string cmake = dir_.Read("CMakeLists.txt");
  dir_.Write("CMakeLists.txt", Edited(cmake, "tests/other.cpp", "tests/moved/other.cpp"));
  dir_.Write("tests/moved/other.cpp", dir_.Read("tests/other.cpp"));
  std::filesystem::remove(dir_.path() + "/tests/other.cpp");
  dir_.Write("tests/data.txt", "42\n");
  dir_.Write("tests/extra.cmake", "# a build file under the test globs: no test source\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "Move a test, add data").ok());
  doc = Prove();
  EXPECT_EQ(exit_code_, 0) << doc.dump(2) << err_;
  EXPECT_EQ(doc["summary"], "red before 1/1, green after 1/1") << doc.dump(2);
  EXPECT_EQ(doc["unaccounted"], Json::array({"tests/data.txt"})) << doc.dump(2);
  EXPECT_NE(table_.find("unaccounted: tests/data.txt"), std::string::npos) << table_;
}

}  // namespace
}  // namespace pg
