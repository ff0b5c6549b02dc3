// The verdict cache file is the user's to edit or break: it loads whatever it holds.
#include "gates/runner/verdict_cache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>

#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

// Found by `mutate --generate` (a survivor: `&&` → `||` in the field reader): a field of the
// wrong type is read as empty, never thrown out of Load.
TEST(VerdictCacheFile, AHandEditedEntryOfTheWrongTypeLoadsAsEmptyFields) {
  testing::TempDir dir;
  std::string path = dir.Write("verdicts.json", R"({"entries": {"k": {"leg": 5, "tree_hash": "abc",
    "stored_at": ["2026"], "wall_s": "slow", "run_id": null}}})");
  VerdictCache cache = VerdictCache::Load(path);
  EXPECT_FALSE(cache.recovered_from_corruption());
  const CacheEntry* e = cache.Find("k");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->leg, "");
  EXPECT_EQ(e->tree_hash, "abc");
  EXPECT_EQ(e->stored_at, "");
  EXPECT_EQ(e->wall_s, 0);
  EXPECT_EQ(e->run_id, "");
}

TEST(VerdictCacheFile, AFileThatIsNoCacheIsRecoveredFromAsEmpty) {
  testing::TempDir dir;
  for (const char* text : {"{not json", "[]", R"({"entries": []})", R"({"other": {}})"}) {
    VerdictCache cache = VerdictCache::Load(dir.Write("verdicts.json", text));
    EXPECT_TRUE(cache.recovered_from_corruption()) << text;
    EXPECT_EQ(cache.Find("k"), nullptr) << text;
  }
}

CacheEntry Stored(const std::string& leg, const std::string& at, double wall) {
  CacheEntry e;
  e.leg = leg;
  e.stored_at = at;
  e.wall_s = wall;
  return e;
}

// Found by `mutate --generate` (survivors: `!last` negated, `&&` → `||`): the estimate of a
// leg's time is its own latest stored pass, whichever key holds it, never another leg's.
TEST(VerdictCache, TheLastPassWallIsTheLegsLatestStoredPass) {
  testing::TempDir dir;
  VerdictCache cache = VerdictCache::Load(dir.path() + "/verdicts.json");
  cache.Put("a", Stored("build", "2026-12-02T00:00:00Z", 2.0));  // the first key holds the latest
  cache.Put("b", Stored("build", "2026-12-01T00:00:00Z", 1.0));
  cache.Put("c", Stored("lint", "2026-12-03T00:00:00Z", 9.0));  // later still, another leg's
  EXPECT_EQ(cache.LastPassWall("build"), std::optional<double>(2.0));
  EXPECT_EQ(cache.LastPassWall("lint"), std::optional<double>(9.0));
  EXPECT_EQ(cache.LastPassWall("test"), std::nullopt);
}

// Found by `mutate --generate` (survivors: the search for the oldest negated or skipped): past
// its 2000 entries the cache drops the one stored longest ago, not the first key.
TEST(VerdictCache, AFullCacheDropsItsOldestStoredEntry) {
  testing::TempDir dir;
  VerdictCache cache = VerdictCache::Load(dir.path() + "/verdicts.json");
  cache.Put("a-newest", Stored("build", "2026-12-31T00:00:00Z", 1.0));
  cache.Put("z-oldest", Stored("build", "2026-01-01T00:00:00Z", 1.0));
  for (int i = 0; i < 1999; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "m%04d", i);
    cache.Put(key, Stored("build", "2026-06-01T00:00:00Z", 1.0));
  }
  EXPECT_EQ(cache.Find("z-oldest"), nullptr) << "the entry stored longest ago was kept";
  EXPECT_NE(cache.Find("a-newest"), nullptr) << "the first key was dropped instead of the oldest";
  EXPECT_NE(cache.Find("m1998"), nullptr);
}

}  // namespace
}  // namespace pg
