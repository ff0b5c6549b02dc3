// pytest catalogs run a mutant's expected tests by node id (`{tests_pytest}`), not the whole
// suite (#64).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "gates/git/git.h"
#include "gates/mutate/commands.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::RunProofgate;
using testing::TempDir;

TEST(PytestNodes, EachTestIsNamedByItsFileClassesAndFunction) {
  TempDir tree;
  tree.Write("tests/test_calc.py", "");
  tree.Write("tests/sub/test_x.py", "");
  tree.Write("tests/test_calc/TestA.py", "");  // a folder named as a module: the longest file wins
  EXPECT_EQ(
      PytestNodeIds(tree.path(),
                    {"tests.test_calc.test_add", "tests.sub.test_x.Outer.Inner.test_y",
                     "tests.test_calc.TestB.test_b[1.5-x.y]", "tests.test_calc.TestA.test_c"}),
      (std::vector<std::string>{
          "tests/test_calc.py::test_add", "tests/sub/test_x.py::Outer::Inner::test_y",
          "tests/test_calc.py::TestB::test_b[1.5-x.y]", "tests/test_calc/TestA.py::test_c"}));
  EXPECT_TRUE(PytestNodeIds(tree.path(), {}).empty());
  // A name no file holds runs the whole suite: never fewer tests than asked for.
  EXPECT_TRUE(
      PytestNodeIds(tree.path(), {"tests.test_calc.test_add", "tests.gone.test_z"}).empty());
  Catalog c;
  c.test_command = {"pytest", "-q", "{tests_pytest}", "--junitxml={results}/p.xml"};
  Placeholders p{tree.path(), "/b", "/r", {"tests.test_calc.test_add"}, "", 0, false, ""};
  EXPECT_EQ(TestArgv(c, p),
            (std::vector<std::string>{"pytest", "-q", "tests/test_calc.py::test_add",
                                      "--junitxml=/r/p.xml"}));
  p.tests.clear();
  EXPECT_EQ(TestArgv(c, p), (std::vector<std::string>{"pytest", "-q", "--junitxml=/r/p.xml"}));
}

// A mutant of init's pytest project runs the test it expects: the other test, which counts its
// runs in a file, runs in preflight's whole suite and in none of mutate's runs.
TEST(PytestNodes, AMutantOfInitsPytestProjectRunsOnlyItsExpectedTests) {
  TempDir dir, marks;
  dir.Write("conftest.py", "");
  dir.Write("calc.py", "def add(a, b):\n    return a + b\n");
  dir.Write("tests/test_calc.py",
            "import os\nfrom calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\n"
            "def test_other():\n    with open(os.environ['PG_MARKS'], 'a') as f:\n        "
            "f.write('ran\\n')\n");
  dir.Write("mutations/calc.json",
            R"({"schema_version": 1, "mutations": [{"id": "M1", "file": "calc.py",
      "find": "return a + b", "replace": "return a - b",
      "expect": [{"test": "tests.test_calc.test_add", "message": "assert -1 == 5"}]}]})");
  ASSERT_TRUE(git::Init(dir.path()).ok());
  auto init = RunProofgate(dir.path(), "init");
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  ASSERT_TRUE(git::CommitAll(dir.path(), "calc").ok());
  setenv("PG_MARKS", (marks.path() + "/marks").c_str(), 1);
  auto every = RunProofgate(dir.path(), "preflight");  // the whole suite: test_other counts its run
  auto run = RunProofgate(dir.path(), "mutate --catalog mutations/calc.json -j 1");
  unsetenv("PG_MARKS");
  EXPECT_EQ(every.exit_code, 0) << every.out << every.err;
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("M1  red-as-claimed"), std::string::npos) << run.out;
  EXPECT_EQ(marks.Read("marks"), "ran\n") << "test_other ran in mutate's runs too";
}

}  // namespace
}  // namespace pg
