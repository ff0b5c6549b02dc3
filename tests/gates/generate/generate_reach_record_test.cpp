// The reach record (gates/mutate/reach.h, specs/mutate-generate.md's "Reach"): which tests a
// mutant runs and in what order, what a batch of cases is counted as, when a ctest test's cases
// are worth recording one by one, and the record file read back.
#include <gtest/gtest.h>

#include "gates/mutate/reach.h"
#include "gates/mutate/worker.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

TEST(GenerateReached, TestsRunFastestFirstAndOnlyWhereTheyReached) {
  ReachRecord r;
  r.recorded = true;
  r.points = {{"Crawl", {1, 2}}, {"Fast", {1}}, {"Other", {3}}};
  r.seconds = {{"Crawl", 2.0}, {"Fast", 0.1}, {"Other", 0.01}};
  std::vector<std::string> tests = {"Crawl", "Fast", "Other"};
  EXPECT_EQ(TestsReaching(r, 1, tests), (std::vector<std::string>{"Fast", "Crawl"}));
  EXPECT_EQ(TestsReaching(r, 2, tests), (std::vector<std::string>{"Crawl"}));
  EXPECT_TRUE(TestsReaching(r, 4, tests).empty()) << "a point no test executed";
  EXPECT_EQ(TestsReaching(r, kReachLimit, tests), tests)
      << "past what the switch records: every test";
  EXPECT_EQ(TestsReaching(ReachRecord{}, 4, tests), tests) << "nothing recorded: every test";
  ReachRecord whole;
  whole.recorded = true;
  whole.points = {{"", {5}}};
  EXPECT_EQ(TestsReaching(whole, 5, tests), tests) << "a whole test command is one unit";
  EXPECT_TRUE(TestsReaching(whole, 6, tests).empty());
}

// Cases batched in one process pay one process start, not one each: a batch counts its
// cases' recorded sum less its fastest case's time for each case after the first.
TEST(GenerateReached, ABatchsRecordedTimeCountsOneProcessStart) {
  ReachRecord r;
  r.seconds = {{"Alone", 1.0}, {"B", 0.1}, {"C", 0.25}, {"D", 0.15}};
  EXPECT_DOUBLE_EQ(RecordedSeconds(r, {{"Alone"}, {"B", "C", "D"}}), 1.0 + 0.5 - 2 * 0.1);
  EXPECT_DOUBLE_EQ(RecordedSeconds(r, {{"Alone"}, {"B"}, {"C"}, {"D"}}), 1.5);
  EXPECT_DOUBLE_EQ(ReachLimit(r, {{"B", "C", "D"}}, 0.5, 100), 5 * 0.3);
  EXPECT_DOUBLE_EQ(ReachLimit(r, {{"B", "C", "D"}}, 2, 100), 2) << "at least the floor";
}

// A split ctest test's cases, batched, count at most the test's time whole.
TEST(GenerateReached, ABatchOfASplitTestCountsAtMostItsWholeRun) {
  ReachRecord r;
  r.seconds = {{"B", 0.3}, {"C", 0.5}, {"D", 0.6}, {"E", 0.3}};
  r.whole = {{"B", 0.4}, {"C", 0.4}, {"D", 0.4}};
  EXPECT_DOUBLE_EQ(RecordedSeconds(r, {{"B", "C", "D"}}), 0.4)
      << "1.4 less two starts of 0.3 is 0.8";
  EXPECT_DOUBLE_EQ(RecordedSeconds(r, {{"B"}}), 0.3) << "less than the whole: its own";
  EXPECT_DOUBLE_EQ(RecordedSeconds(r, {{"E"}, {"B", "C"}}), 0.3 + 0.4);
}

// Splitting pays when the points' saving (half the cases' time each) beats a process start per
// case plus the cases' time; yaml-cpp's 795 cases in 0.2 s whole never pay.
TEST(GenerateReached, CasesAreSplitOnlyWhenTheirPointsSaveMoreThanTheSplitCosts) {
  EXPECT_FALSE(SplitPays(795, 52, 0.2, 0.05)) << "795 × 0.05 s to save 52 × 0.075 s";
  EXPECT_TRUE(SplitPays(20, 10, 60, 0.05)) << "a minute's executable, ten points";
  EXPECT_FALSE(SplitPays(1, 100, 60, 0.05)) << "one case: nothing to split";
  EXPECT_FALSE(SplitPays(3, 2, 100, 0))
      << "two points save at most the whole run, which the split costs";
  EXPECT_TRUE(SplitPays(3, 3, 100, 0));
  EXPECT_FALSE(SplitPays(3, 100, 0.5, 0.6)) << "a start slower than the run saves nothing";
}

TEST(GenerateReached, ARecordIsReadBackAndALineThatIsNoNumberIsNamed) {
  TempDir dir;
  EXPECT_TRUE(ReadReached(dir.path() + "/none")->empty())
      << "a test whose processes reached nothing wrote nothing";
  EXPECT_EQ(*ReadReached(dir.Write("r", "3\n7\n3\n")), (std::set<int>{3, 7}));
  auto bad = ReadReached(dir.Write("bad", "3\n7x\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/bad:2: not a mutant number: \"7x\""), std::string::npos)
      << bad.status().message();
}

// gtest_discover_tests-less projects run a whole executable as one ctest test: run once per
// case, it reports under its own name each time, and one red case must not be passed over.
TEST(GenerateReached, AFailedCaseIsNotHiddenByALaterPassOfItsCtestTest) {
  TestRun all, red, green;
  all.step.exit_code = 0;
  red.step = StepResult{8, false, false, 0.5};
  red.results["exe"].failed = true;
  green.step = StepResult{0, false, false, 0.25};
  green.results["exe"].failed = false;
  MergeTestRun(red, &all);
  MergeTestRun(green, &all);
  EXPECT_TRUE(all.results.at("exe").failed);
  EXPECT_EQ(all.step.exit_code, 8);
  EXPECT_DOUBLE_EQ(all.step.wall_s, 0.75);
  EXPECT_TRUE(TestRunFailed(all));
}

}  // namespace
}  // namespace pg
