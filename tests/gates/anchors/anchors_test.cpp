#include "gates/anchors/anchors.h"

#include <gtest/gtest.h>

#include "gates/git/git.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

class Anchors : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string code;
    for (int i = 1; i <= 60; ++i)
      code += i == 42 ? "  if (b.ne[0] != a.ne[0]) return Bad();\n"
                      : "// line " + std::to_string(i) + "\n";
    dir_.Write("src/ops.cpp", code);
  }
  std::vector<AnchorResult> CheckDoc(const std::string& markdown) {
    dir_.Write("doc.md", markdown);
    std::vector<AnchorResult> out;
    for (const Anchor& a : ScanAnchors("doc.md", markdown))
      out.push_back(CheckAnchor(a, dir_.path()));
    return out;
  }
  TempDir dir_;
};

TEST_F(Anchors, ScansBacktickedPathLineFollowedByQuotedOrBacktickedText) {
  auto anchors =
      ScanAnchors("d.md",
                  "intro\nsee `src/ops.cpp:42` \"if (b.ne[0] != a.ne[0])\" and `a.h:3` `int x;`\n"
                  "no text: `src/ops.cpp:7` here\n");
  ASSERT_EQ(anchors.size(), 2u);
  EXPECT_EQ(anchors[0].doc_line, 2);
  EXPECT_EQ(anchors[0].path, "src/ops.cpp");
  EXPECT_EQ(anchors[0].line, 42);
  EXPECT_EQ(anchors[0].text, "if (b.ne[0] != a.ne[0])");
  EXPECT_EQ(anchors[1].text, "int x;");
}

TEST_F(Anchors, AnAnchorHoldsWhenItsTextIsOnItsLine) {
  auto r = CheckDoc("`src/ops.cpp:42` \"if (b.ne[0] != a.ne[0])\"\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].state, AnchorState::kHolds);
}

TEST_F(Anchors, AMovedAnchorSaysWhereTheTextIsNow) {
  auto r = CheckDoc("x\n`src/ops.cpp:3` \"if (b.ne[0] != a.ne[0])\"\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].state, AnchorState::kMoved);
  EXPECT_EQ(r[0].Message(), "doc.md:2: src/ops.cpp:3 → text found at :42");
}

// A line number too large for any file (or for an int) is a line that does not hold, said
// as written: not a wrapped negative number, not a loop over billions of lines.
TEST_F(Anchors, ALineNumberPastAnyFileIsSaidAsWrittenAndDoesNotHold) {
  auto r = CheckDoc(
      "`src/ops.cpp:99999999999999999999-99999999999999999999` \"return Bad();\"\n"
      "`src/ops.cpp:2147483647-2147483647` \"return Bad();\"\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].Message(),
            "doc.md:1: src/ops.cpp:99999999999999999999-99999999999999999999 → text found at :42");
  EXPECT_EQ(r[1].Message(), "doc.md:2: src/ops.cpp:2147483647-2147483647 → text found at :42");
}

TEST_F(Anchors, TextOrFileThatIsGoneIsSaid) {
  auto r = CheckDoc("`src/ops.cpp:42` \"return Good();\"\n`src/gone.cpp:1` \"x\"\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].Message(),
            "doc.md:1: src/ops.cpp:42: text \"return Good();\" is gone from src/ops.cpp");
  EXPECT_EQ(r[1].Message(), "doc.md:2: src/gone.cpp:1: src/gone.cpp is gone");
}

TEST_F(Anchors, FixRewritesOnlyTheStaleLineNumbers) {
  std::string doc =
      "a `src/ops.cpp:3` \"if (b.ne[0]\" b\n`src/ops.cpp:42` `return Bad();` c `src/ops.cpp:9` "
      "\"return Bad\"\n";
  auto r = CheckDoc(doc);
  auto fixed = FixAnchors(r, dir_.path());
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(*fixed, 2);
  EXPECT_EQ(dir_.Read("doc.md"),
            "a `src/ops.cpp:42` \"if (b.ne[0]\" b\n`src/ops.cpp:42` `return Bad();` c "
            "`src/ops.cpp:42` \"return Bad\"\n");
}

TEST_F(Anchors, FilesWithNoAnchorCheckedNothingAndFailUnlessAllowed) {
  dir_.Write("doc.md", "prose, and `src/ops.cpp:5` without a quoted text\n");
  auto none = testing::RunProofgate(dir_.path(), "-C " + dir_.path() + " anchors check doc.md");
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_NE(none.err.find("nothing checked: no anchors in 1 files"), std::string::npos) << none.err;
  EXPECT_EQ(testing::RunProofgate(dir_.path(),
                                  "-C " + dir_.path() + " anchors check doc.md --allow-empty")
                .exit_code,
            0);
}

TEST_F(Anchors, CliExitsOneOnAStaleAnchorAndZeroAfterFix) {
  dir_.Write("doc.md", "`src/ops.cpp:5` \"return Bad();\"\n");
  auto stale = testing::RunProofgate(dir_.path(), "-C " + dir_.path() + " anchors check");
  EXPECT_EQ(stale.exit_code, 1);
  EXPECT_EQ(stale.out, "doc.md:1: src/ops.cpp:5 → text found at :42\n");
  EXPECT_EQ(
      testing::RunProofgate(dir_.path(), "-C " + dir_.path() + " anchors check --fix").exit_code,
      0);
  EXPECT_EQ(
      testing::RunProofgate(dir_.path(), "-C " + dir_.path() + " anchors check doc.md").exit_code,
      0);
  EXPECT_EQ(
      testing::RunProofgate(dir_.path(), "-C " + dir_.path() + " anchors check nope.md").exit_code,
      2);
}

TEST_F(Anchors, ALineRangeHoldsWhenItsTextIsAnywhereInIt) {
  auto r = CheckDoc(
      "`src/ops.cpp:40-43` \"if (b.ne[0] != a.ne[0])\"\n`src/ops.cpp:43-45` \"if (b.ne[0] != "
      "a.ne[0])\"\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].state, AnchorState::kHolds);
  EXPECT_EQ(r[1].state, AnchorState::kMoved);
  EXPECT_EQ(r[1].Message(), "doc.md:2: src/ops.cpp:43-45 → text found at :42");
  ASSERT_TRUE(FixAnchors(r, dir_.path()).ok());
  EXPECT_EQ(dir_.Read("doc.md"),
            "`src/ops.cpp:40-43` \"if (b.ne[0] != a.ne[0])\"\n`src/ops.cpp:42-44` \"if (b.ne[0] != "
            "a.ne[0])\"\n");
}

// An anchor pinned to a revision is read from the object database at that revision: later
// edits to the file do not move it, and a text that never was there is reported.
TEST_F(Anchors, ARevisionPinnedAnchorIsCheckedAtItsRevision) {
  ASSERT_TRUE(git::Init(dir_.path()).ok());
  std::string first = git::CommitAll(dir_.path(), "first").value();
  dir_.Write("src/ops.cpp", "// rewritten\n");
  ASSERT_TRUE(git::CommitAll(dir_.path(), "second").ok());
  std::string rev = first.substr(0, 10);
  auto r =
      CheckDoc("`" + rev +
               ":src/ops.cpp:42` \"if (b.ne[0] != a.ne[0])\"\n`src/ops.cpp:42` \"if (b.ne[0]\"\n"
               "`" +
               rev +
               ":src/ops.cpp:42` \"never written\"\n`HEAD~1:src/gone.cpp:1` "
               "\"x\"\n`nosuchrev:src/ops.cpp:1` \"x\"\n");
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].state, AnchorState::kHolds) << r[0].Message();
  EXPECT_EQ(r[1].state, AnchorState::kTextGone);  // the working tree has moved on
  EXPECT_EQ(r[2].Message(), "doc.md:3: " + rev +
                                ":src/ops.cpp:42: text \"never written\" is gone from " + rev +
                                ":src/ops.cpp");
  EXPECT_EQ(r[3].Message(), "doc.md:4: HEAD~1:src/gone.cpp:1: HEAD~1:src/gone.cpp is gone");
  EXPECT_EQ(r[4].Message(),
            "doc.md:5: nosuchrev:src/ops.cpp:1: revision nosuchrev is not in this repository");
}

}  // namespace
}  // namespace pg
