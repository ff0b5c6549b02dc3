// SchemaSearch against builds simulated from the points each one holds: which points a file
// with errors outside every point leaves out, and in how many builds.
#include "gates/mutate/schema_search.h"

#include <gtest/gtest.h>

#include <functional>

#include "gates/mutate/schema.h"

namespace pg {
namespace {

// `n` lines `int vK = x + 1;`, an arithmetic point each (numbers 1..n), then `int end;`: an
// error on line n + 1 lies outside every point.
Schema Points(int n, std::string* original, const std::set<int>& bodies) {
  Schema schema{"a.cpp", false, {}};
  for (int k = 1; k <= n; ++k) {
    std::string line = "int v" + std::to_string(k) + " = x + 1;\n";
    size_t at = original->size() + line.find(" = ") + 3;
    SchemaKind kind = bodies.count(k) ? SchemaKind::kBody : SchemaKind::kEdit;
    schema.points.push_back(
        SchemaPoint{k, at, at + 5, kind, at + 2, 1, bodies.count(k) ? "return 0;" : "-"});
    *original += line;
  }
  *original += "int end;\n";
  return schema;
}

struct Searched {
  std::set<int> dropped;
  int found = 0;
  int builds = 0;
  bool built = false;  // the last build passed with no halving left
};

// Builds of `n` points until one passes with no file halving; `fails` says from the points a
// build holds whether it has an error outside every point; point 2 always has one inside.
Searched Search(const std::function<bool(const std::set<int>&)>& fails, int n = 8,
                const std::set<int>& bodies = {}) {
  std::string original;
  Schema schema = Points(n, &original, bodies);
  SchemaSearch search({schema});
  Searched out;
  for (int round = 0; round < 1000 && !out.built; ++round) {
    SchemaText text = RenderSchema(original, schema, search.Off());
    ++out.builds;
    std::string log =
        fails(text.numbers) ? "/tmp/x/a.cpp:" + std::to_string(n + 1) + ":1: error: outside\n" : "";
    if (text.numbers.count(2)) log += "/tmp/x/a.cpp:2:12: error: inside\n";
    if (log.empty() && !search.halving()) out.built = true;
    if (!out.built && !search.Learn(log, {{"a.cpp", text}})) break;
  }
  out.dropped = search.dropped();
  out.found = search.found();
  return out;
}

TEST(SchemaSearch, HalvingFindsThePointThatCausesAnErrorOutsideEveryPoint) {
  Searched s = Search([](const std::set<int>& in) { return in.count(6) > 0; });
  EXPECT_TRUE(s.built);
  EXPECT_EQ(s.dropped, (std::set<int>{2, 6}))
      << "the explained point and the cause; the file keeps the rest";
  EXPECT_EQ(s.found, 1);
  EXPECT_LE(s.builds, 1 + 1 + 3 + 1)
      << "the full build, again without 2, log2(7) probes, the final build";
}

// Found on zeux/pugixml: `wchar_selector<2>` made `<3>` (a point) left the type undefined, and
// its uses failed all over the file, outside every point. Those errors go with the point: the
// next build leaves it out and passes, where halving them blamed the file's last point after
// 13 clean probes.
TEST(SchemaSearch, AnErrorOutsideEveryPointThatAnExplainedPointCausedIsNotHalved) {
  Searched s = Search([](const std::set<int>& in) { return in.count(2) > 0; });
  EXPECT_TRUE(s.built);
  EXPECT_EQ(s.dropped, (std::set<int>{2})) << "the explained point only";
  EXPECT_EQ(s.found, 0);
  EXPECT_EQ(s.builds, 2) << "full, then without 2";
}

TEST(SchemaSearch, EachCauseIsFoundInTurn) {
  Searched s = Search([](const std::set<int>& in) { return in.count(3) || in.count(8); });
  EXPECT_TRUE(s.built);
  EXPECT_EQ(s.dropped, (std::set<int>{2, 3, 8}));
  EXPECT_EQ(s.found, 2);
}

// The second halving starts past the prefix the first found clean: of 1, 3, 4, 5, 7, 8 the
// first four hold no cause, so one probe (… 7) finds 7, where starting over took three.
TEST(SchemaSearch, TheNextHalvingStartsPastThePrefixTheLastFoundClean) {
  Searched s = Search([](const std::set<int>& in) { return in.count(6) || in.count(7); });
  EXPECT_EQ(s.dropped, (std::set<int>{2, 6, 7}));
  EXPECT_EQ(s.builds, 1 + 1 + 3 + 1 + 1 + 1)
      << "full, again without 2, 3 probes, full, 1 probe, the final build";
}

// An error no point causes (the file's prelude, say) is never halved away: once the file has
// spent its budget of builds it loses its whole schema, and the search ends.
// Bodies (1, 5, 9, 13 of 16) are halved last: the first halving clears the other points, and
// the second cause (9) is then sought among the bodies left: 9 builds, where halving in the
// points' own order took 10.
TEST(SchemaSearch, BodiesAreHalvedLast) {
  Searched s =
      Search([](const std::set<int>& in) { return in.count(1) || in.count(9); }, 16, {1, 5, 9, 13});
  EXPECT_EQ(s.dropped, (std::set<int>{1, 2, 9}));
  EXPECT_EQ(s.builds, 1 + 1 + 4 + 1 + 2 + 1)
      << "full, again without 2, 4 probes, full, 2 probes, the final build";
}

// Every prefix fails: each halving blames its first point, until 64 points' budget of 24
// builds is spent (about four halvings of 7 builds), where finding "causes" would go on for
// some 380 builds.
TEST(SchemaSearch, AFileWhoseErrorNoPointCausesLosesItsSchemaOnceItsBudgetIsSpent) {
  Searched s = Search([](const std::set<int>& in) { return !in.empty(); }, 64);
  EXPECT_TRUE(s.built);
  EXPECT_EQ(s.dropped.size(), 64u) << "all its points: the file lost its schema";
  EXPECT_LE(s.builds, 1 + 24 + 7 + 1)
      << "the full build, its budget, the halving under way, the last build";
  EXPECT_LE(s.found, 5);
  EXPECT_EQ(SchemaSearch::Budget(8), 24u);
  EXPECT_EQ(SchemaSearch::Budget(800), 100u);
}

// A whole build's FAILED outputs are what the halving's probes build. A probe that failed
// naming none (ninja's own error: a target it does not know) says nothing of the points: the
// halving stands where it was, and the round is built whole; a probe that fails as code does
// moves it on.
TEST(SchemaSearch, AProbeThatFailedWithoutAFailedOutputTeachesNothing) {
  std::string original;
  Schema schema = Points(8, &original, {});
  SchemaSearch search({schema});
  SchemaText all = RenderSchema(original, schema, {});
  std::string outside = "/tmp/x/a.cpp:9:1: error: outside\n";
  ASSERT_TRUE(
      search.LearnBuild("FAILED: [code=1] a.o\n" + outside, false, false, {{"a.cpp", all}}));
  EXPECT_EQ(search.probes(), std::vector<std::string>{"a.o"});
  ASSERT_TRUE(search.halving());
  std::set<int> off = search.Off();
  SchemaText probe = RenderSchema(original, schema, off);
  EXPECT_TRUE(
      search.LearnBuild("ninja: error: unknown target 'a.o'\n", false, true, {{"a.cpp", probe}}));
  EXPECT_TRUE(search.probes().empty()) << "the next build is whole";
  EXPECT_EQ(search.Off(), off) << "the same probe again";
  EXPECT_TRUE(search.LearnBuild("FAILED: b.o\n" + outside, false, false, {{"a.cpp", probe}}));
  EXPECT_EQ(search.probes(), std::vector<std::string>{"b.o"});
  EXPECT_NE(search.Off(), off) << "a failed probe halves on";
  std::set<int> next = search.Off();
  EXPECT_TRUE(search.LearnBuild("FAILED: c.o\n" + outside, false, true,
                                {{"a.cpp", RenderSchema(original, schema, next)}}));
  EXPECT_EQ(search.probes(), std::vector<std::string>{"b.o"})
      << "a probe's own FAILED lines are not the next probe's";
}

// A header in every unit fails in every unit (jarro2783/cxxopts: 5 units, and each probe
// compiled all of them): a probe builds only the first unit whose own part of the log, from
// its FAILED line to Ninja's next status line, shows the halved file's error outside every
// point. Where no failure's part shows it, every failed output.
TEST(SchemaSearch, AProbeBuildsTheFirstUnitThatShowedTheHalvedFilesError) {
  std::string original;
  Schema schema = Points(8, &original, {});
  SchemaText all = RenderSchema(original, schema, {});
  std::string outside = "/tmp/x/a.cpp:9:1: error: outside\n";
  std::string log =
      "[1/4] Building CXX object u.o\nFAILED: u.o\nc++ -c u.cpp\n/tmp/x/other.h:3:1: error: its "
      "own\n"
      "[2/4] Building CXX object v.o\nFAILED: [code=1] v.o\nc++ -c v.cpp\n" +
      outside + "[3/4] Building CXX object w.o\nFAILED: w.o\n" + outside +
      "ninja: build stopped: subcommands failed.\n";
  std::vector<NinjaFailure> failures = NinjaFailures(log);
  ASSERT_EQ(failures.size(), 3u);
  EXPECT_EQ(failures[0].log, "c++ -c u.cpp\n/tmp/x/other.h:3:1: error: its own\n")
      << "up to the next status line";
  EXPECT_EQ(failures[1].outputs, std::vector<std::string>{"v.o"});
  EXPECT_EQ(failures[2].log, outside) << "up to ninja's own line";
  SchemaSearch search({schema});
  ASSERT_TRUE(search.LearnBuild(log, false, false, {{"a.cpp", all}}));
  ASSERT_TRUE(search.halving());
  EXPECT_EQ(search.probes(), std::vector<std::string>{"v.o"})
      << "not u.o, whose error is another file's, nor w.o";
  std::string other_original;
  Schema other = Points(8, &other_original, {});
  other.file = "b.cpp";
  for (SchemaPoint& p : other.points) p.number += 8;
  SchemaSearch unplaced({schema, other});
  ASSERT_TRUE(unplaced.LearnBuild(
      "/tmp/x/b.cpp:9:1: error: outside\nFAILED: u.o\n" + outside + "FAILED: v.o\n", false, false,
      {{"a.cpp", all}, {"b.cpp", RenderSchema(other_original, other, {})}}));
  EXPECT_EQ(unplaced.probes(), (std::vector<std::string>{"u.o", "v.o"}))
      << "b.cpp's error is in no failure's part: all of them, though a.cpp's is u.o's";
}

}  // namespace
}  // namespace pg
