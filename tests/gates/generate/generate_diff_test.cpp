// --in-diff's lines: the new side of the diff between the merge base and the working tree.
#include <gtest/gtest.h>

#include "gates/git/git.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

TEST(GenerateDiff, InDiffLinesAreTheNewSideSinceTheMergeBase) {
  TempDir dir;
  ASSERT_TRUE(git::Init(dir.path()).ok());
  dir.Write("a.cpp", "one\ntwo\nthree\nfour\nfive\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "base").ok());
  ASSERT_TRUE(git::SwitchBranch(dir.path(), "trunk", true).ok());
  ASSERT_TRUE(git::SwitchBranch(dir.path(), "feature", true).ok());
  dir.Write("a.cpp", "one\nTWO\nthree\nfour\nfive\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "feature edits line 2").ok());
  ASSERT_TRUE(git::SwitchBranch(dir.path(), "trunk", false).ok());
  dir.Write("z.cpp", "trunk moved on\n");
  ASSERT_TRUE(git::CommitAll(dir.path(), "trunk moves on").ok());
  ASSERT_TRUE(git::SwitchBranch(dir.path(), "feature", false).ok());
  dir.Write("a.cpp", "one\nTWO\nthree\nFOUR\nfive\n");  // uncommitted
  dir.Write("b.cpp", "new\nfile\n");                    // untracked
  auto lines = git::LinesChangedSince(dir.path(), "trunk");
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  std::map<std::string, std::set<int>> expected = {{"a.cpp", {2, 4}}, {"b.cpp", {1, 2}}};
  EXPECT_EQ(*lines, expected) << "trunk's own change (z.cpp) is not this branch's";
  EXPECT_FALSE(git::LinesChangedSince(dir.path(), "no-such-ref").ok());
}

}  // namespace
}  // namespace pg
