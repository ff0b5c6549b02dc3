// SchemaSearch against builds simulated from the points each one holds: which points a file
// with errors outside every point leaves out, and in how many builds.
#include <gtest/gtest.h>

#include <functional>

#include "mutations/schema.h"
#include "mutations/schema_search.h"

namespace pg {
namespace {

// Eight lines `int vK = K + 1;`, an arithmetic point each (numbers 1..8), then `int end;`:
// an error on line 9 lies outside every point.
Schema EightPoints(std::string* original) {
  Schema schema{"a.cpp", false, {}};
  for (int k = 1; k <= 8; ++k) {
    std::string line = "int v" + std::to_string(k) + " = " + std::to_string(k) + " + 1;\n";
    size_t at = original->size() + line.find(" = ") + 3;
    schema.points.push_back(SchemaPoint{k, at, at + 5, SchemaKind::kEdit, at + 2, 1, "-"});
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

// Builds until one passes with no file halving, or 32 builds; `fails` says from the points a
// build holds whether it has an error outside every point; point 2 always has one inside.
Searched Search(const std::function<bool(const std::set<int>&)>& fails) {
  std::string original;
  Schema schema = EightPoints(&original);
  SchemaSearch search;
  Searched out;
  for (int round = 0; round < 32 && !out.built; ++round) {
    SchemaText text = RenderSchema(original, schema, search.Off());
    ++out.builds;
    std::string log = fails(text.numbers) ? "/tmp/x/a.cpp:9:1: error: outside\n" : "";
    if (text.numbers.count(2)) log += "/tmp/x/a.cpp:2:12: error: inside\n";
    if (log.empty() && !search.halving()) out.built = true;
    if (!out.built && !search.Learn(log, {{"a.cpp", text}}, round)) break;
  }
  out.dropped = search.dropped();
  out.found = search.found();
  return out;
}

TEST(SchemaSearch, HalvingFindsThePointThatCausesAnErrorOutsideEveryPoint) {
  Searched s = Search([](const std::set<int>& in) { return in.count(6) > 0; });
  EXPECT_TRUE(s.built);
  EXPECT_EQ(s.dropped, (std::set<int>{2, 6})) << "the explained point and the cause; the file keeps the rest";
  EXPECT_EQ(s.found, 1);
  EXPECT_LE(s.builds, 1 + 3 + 1) << "the full build, log2(7) probes, the final build";
}

TEST(SchemaSearch, EachCauseIsFoundInTurn) {
  Searched s = Search([](const std::set<int>& in) { return in.count(3) || in.count(8); });
  EXPECT_TRUE(s.built);
  EXPECT_EQ(s.dropped, (std::set<int>{2, 3, 8}));
  EXPECT_EQ(s.found, 2);
}

// An error no point causes (the file's prelude, say) is never halved away: after its share of
// causes the file loses its whole schema, and the search ends.
TEST(SchemaSearch, AFileWhoseErrorNoPointCausesLosesItsSchemaAfterItsShareOfCauses) {
  Searched s = Search([](const std::set<int>& in) { return !in.empty(); });
  EXPECT_TRUE(s.built);
  EXPECT_EQ(s.dropped, (std::set<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(s.found, SchemaSearch::kCausesPerFile);
}

}  // namespace
}  // namespace pg
