#include "gates/mutate/catalog.h"

#include <gtest/gtest.h>

#include "gates/mutate/table_commit.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

class Catalog : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("src/flags.cpp",
               "if (skip && !path.empty()) return Refuse();\nreturn 0;\nreturn 0;\n");
  }
  StatusOr<pg::Catalog> Parse(const std::string& mutations, const std::string& extra = "") {
    return ParseCatalog(
        "m.json", "{\"schema_version\": 1, \"mutations\": [\n" + mutations + "]" + extra + "}",
        dir_.path());
  }
  static std::string Mutation(const std::string& id, const std::string& find,
                              const std::string& more = "") {
    return "{\"id\": \"" + id + "\", \"file\": \"src/flags.cpp\", \"find\": \"" + find +
           "\", \"replace\": \"if (false)\", \"expect\": [{\"test\": \"Flags.Refuses\", "
           "\"message\": \"^--skip$\"}]" +
           more + "}";
  }
  TempDir dir_;
};

TEST_F(Catalog, ParsesMutationsCombosAndLocatesEachFind) {
  auto c = Parse(
      Mutation("M1", "if (skip && !path.empty())") + ",\n" + Mutation("M2", "return Refuse();"),
      ", \"combos\": [{\"id\": \"C1\", \"apply\": [\"M1\", \"M2\"], \"expect_green\": true}]");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->mutations.size(), 2u);
  EXPECT_EQ(c->mutations[0].offset, 0u);
  EXPECT_EQ(c->mutations[1].offset, 27u);
  EXPECT_EQ(c->mutations[0].expect[0].test, "Flags.Refuses");
  EXPECT_EQ(c->combos[0].apply, (std::vector<std::string>{"M1", "M2"}));
}

TEST_F(Catalog, AFindThatMatchesNothingIsNoMatchNotSurvived) {
  auto c = Parse(Mutation("M1", "if (nothing)"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "m.json:2:39: mutation 0: no-match: mutation \"M1\": \"find\" occurs nowhere in "
            "src/flags.cpp");
}

TEST_F(Catalog, AFindThatMatchesTwiceIsAmbiguousUnlessAnOccurrenceIsGiven) {
  auto c = Parse(Mutation("M1", "return 0;"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("ambiguous: mutation \"M1\": \"find\" occurs 2 times in "
                                      "src/flags.cpp (add \"occurrence\")"),
            std::string::npos)
      << c.status().message();
  auto second = Parse(Mutation("M1", "return 0;", ", \"occurrence\": 2"));
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(second->mutations[0].offset, 54u);
  EXPECT_FALSE(Parse(Mutation("M1", "return 0;", ", \"occurrence\": 3")).ok());
  // 0 was taken as "the first" while -1 was refused; past an int, occurrences wrapped (4294967297
  // was 1) or aborted the process; past a long, 18446744073709551615 was read as -1.
  for (const char* huge : {"4294967297", "9223372036854775807", "18446744073709551615"}) {
    auto refused = Parse(Mutation("M1", "return 0;", std::string(", \"occurrence\": ") + huge));
    ASSERT_FALSE(refused.ok()) << huge;
    EXPECT_NE(refused.status().message().find(huge), std::string::npos)
        << refused.status().message();
  }
  for (const char* bad : {"0", "-1"}) {
    auto refused =
        Parse(Mutation("M1", "return Refuse();", std::string(", \"occurrence\": ") + bad));
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.status().message().find(std::string("occurrence counts from 1, got ") + bad),
              std::string::npos)
        << refused.status().message();
  }
}

TEST_F(Catalog, DuplicateIdsMissingFilesAndMissingExpectationsAreRefused) {
  auto dup = Parse(Mutation("M1", "return Refuse();") + ",\n" + Mutation("M1", "if (skip"));
  EXPECT_NE(dup.status().message().find("duplicate id \"M1\""), std::string::npos)
      << dup.status().message();
  auto missing = Parse(
      "{\"id\": \"M1\", \"file\": \"src/gone.cpp\", \"find\": \"x\", \"replace\": \"y\", "
      "\"expect\": [{\"test\": \"A.B\", \"message\": \"x\"}]}");
  EXPECT_NE(missing.status().message().find("src/gone.cpp does not exist"), std::string::npos);
  auto no_tests = Parse(
      "{\"id\": \"M1\", \"file\": \"src/flags.cpp\", \"find\": \"return Refuse();\", \"replace\": "
      "\"y\", "
      "\"expect\": []}");
  EXPECT_NE(no_tests.status().message().find("mutation \"M1\" names no expected failing test"),
            std::string::npos);
  auto bad_regex = Parse(
      "{\"id\": \"M1\", \"file\": \"src/flags.cpp\", \"find\": \"return Refuse();\", \"replace\": "
      "\"y\", "
      "\"expect\": [{\"test\": \"A.B\", \"message\": \"(\"}]}");
  EXPECT_NE(bad_regex.status().message().find("invalid regex"), std::string::npos);
  auto unknown = Parse(Mutation("M1", "return Refuse();", ", \"expct\": 1"));
  EXPECT_NE(unknown.status().message().find("unknown field \"expct\" (did you mean \"expect\"?)"),
            std::string::npos);
}

TEST_F(Catalog, CombosMustNameTwoKnownMutations) {
  auto unknown = Parse(Mutation("M1", "return Refuse();"),
                       ", \"combos\": [{\"id\": \"C1\", \"apply\": [\"M1\", \"M9\"]}]");
  EXPECT_NE(unknown.status().message().find("combo \"C1\" applies unknown mutation \"M9\""),
            std::string::npos);
  auto single = Parse(Mutation("M1", "return Refuse();"),
                      ", \"combos\": [{\"id\": \"C1\", \"apply\": [\"M1\"]}]");
  EXPECT_NE(single.status().message().find("a combo applies two or more mutations"),
            std::string::npos);
}

TEST_F(Catalog, MutateListValidatesAndListsWithoutWritingAnything) {
  testing::MakeRepo(dir_, "{\"schema_version\": 1, \"legs\": {}, \"suites\": {}}");
  dir_.Write("mutations/flags.json", "{\"schema_version\": 1, \"mutations\": [" +
                                         Mutation("M1", "return Refuse();") + "]}");
  std::string before = dir_.Read("src/flags.cpp");
  auto list = testing::RunProofgate(dir_.path(), "mutate --list");
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(list.out, "M1  src/flags.cpp  expects Flags.Refuses\n");
  EXPECT_EQ(dir_.Read("src/flags.cpp"), before);
  dir_.Write("mutations/flags.json",
             "{\"schema_version\": 1, \"mutations\": [" + Mutation("M1", "nowhere") + "]}");
  EXPECT_EQ(testing::RunProofgate(dir_.path(), "mutate --list").exit_code, 2);
  EXPECT_EQ(testing::RunProofgate(dir_.path(), "mutate").exit_code, 2);
}

// A table records HEAD only when every one of its rows ran as claimed there; a run of some rows
// keeps the commit the table had, unless the rest are known unaffected since it.
TEST_F(Catalog, ATableRecordsHeadOnlyWhenEveryRowRanOrTheRestAreUnaffected) {
  auto c = Parse(Mutation("M1", "if (skip && !path.empty())") + ",\n" +
                 Mutation("M2", "return Refuse();"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  c->path = "mutations/m.json";
  MutateReport one;
  one.results.push_back(MutantResult{});
  one.results[0].id = "M1", one.results[0].catalog = c->path,
  one.results[0].outcome = MutantOutcome::kRedAsClaimed;
  Verification v{"head", {}, false};
  EXPECT_EQ(NextTableCommit(*c, "old", one, v), "old");  // M2 did not run
  MutateReport both = one;
  both.results.push_back(one.results[0]);
  both.results[1].id = "M2";
  EXPECT_EQ(NextTableCommit(*c, "old", both, v), "head");
  EXPECT_EQ(NextTableCommit(*c, "old", one, Verification{"head", {}, true}), "head");
  EXPECT_EQ(NextTableCommit(*c, "old", both, Verification{"head", {"src/flags.cpp"}, false}),
            "old");  // dirty
}

}  // namespace
}  // namespace pg
