// UTF-8 validity (gates/core/utf8): what a page shows as text and what it replaces.
#include "gates/core/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace pg {
namespace {

TEST(Utf8, CharactersOfOneToFourBytesAreWhole) {
  EXPECT_EQ(Utf8Length("a", 0), 1u);
  EXPECT_EQ(Utf8Length("\xC3\xA9", 0), 2u);           // é
  EXPECT_EQ(Utf8Length("\xE2\x86\x92", 0), 3u);       // →
  EXPECT_EQ(Utf8Length("x\xF0\x9F\x98\x80", 1), 4u);  // 😀, not at the start
  EXPECT_EQ(Utf8Length("\xF4\x8F\xBF\xBF", 0), 4u);   // U+10FFFF, the last code point
  EXPECT_EQ(Utf8Length("\xED\x9F\xBF", 0), 3u);       // U+D7FF, just below the surrogates
  // Each length's first and last code point (found by mutate --generate: the ranges' ends).
  for (std::string edge :
       {"\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80"}) {
    EXPECT_EQ(Utf8Length(edge, 0), edge.size()) << ::testing::PrintToString(edge);
  }
  EXPECT_TRUE(IsValidUtf8("limit 5 \xC3\x97 3 \xE2\x86\x92 15 \xF0\x9F\x98\x80"));
}

// What the standard calls ill-formed, as a browser would replace it.
TEST(Utf8, OverlongSurrogateTruncatedAndOutOfRangeFormsAreNot) {
  for (std::string bad : {"\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xF0\x80\x80\xAF",
                          "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF0\x9F\x98",
                          "\x80", "\xE2\x28\xA1", "\xF0\x9F\x28\x80"}) {
    EXPECT_EQ(Utf8Length(bad, 0), 0u) << ::testing::PrintToString(bad);
    EXPECT_FALSE(IsValidUtf8("ok " + bad)) << ::testing::PrintToString(bad);
  }
}

}  // namespace
}  // namespace pg
