// The verdict cache file is the user's to edit or break: it loads whatever it holds.
#include <gtest/gtest.h>

#include "runner/verdict_cache.h"
#include "test_support.h"

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

}  // namespace
}  // namespace pg
