#include <gtest/gtest.h>

#include "gates/config/json_source.h"

namespace pg {
namespace {

TEST(JsonLocator, PositionOfANestedValueIsItsKey) {
  auto src = JsonSource::Parse("f.json", "{\n  \"a\": {\n    \"b\": [1,\n      2]\n  }\n}\n");
  ASSERT_TRUE(src.ok()) << src.status().message();
  EXPECT_EQ(src->PositionOf("/a/b").line, 3);
  EXPECT_EQ(src->PositionOf("/a/b").column, 5);
  EXPECT_EQ(src->PositionOf("/a/b/1").line, 4);
  EXPECT_EQ(src->Where("/a/b/1"), "f.json:4:7");
}

TEST(JsonLocator, CommentsAreAllowedAndDoNotShiftPositions) {
  auto src = JsonSource::Parse("f.json", "// head\n{ /* x */ \"a\": 1, // tail\n  \"b\": \"//\" }");
  ASSERT_TRUE(src.ok()) << src.status().message();
  EXPECT_EQ(src->root()["b"], "//");
  EXPECT_EQ(src->Where("/b"), "f.json:3:3");
}

TEST(JsonLocator, DuplicateKeyIsAnErrorAtTheSecondKey) {
  auto src = JsonSource::Parse("f.json", "{\"legs\": {\n \"x\": 1,\n \"x\": 2}}");
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.status().message(), "f.json:3:2: duplicate key \"x\"");
}

TEST(JsonLocator, MalformedJsonNamesLineAndColumn) {
  auto src = JsonSource::Parse("f.json", "{\n  \"a\": 1,\n  \"b\" 2\n}");
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_EQ(src.status().message().rfind("f.json:3:7: invalid JSON", 0), 0u)
      << src.status().message();
}

// nlohmann throws out_of_range (no byte offset) for these; they used to reach std::terminate.
TEST(JsonLocator, ANumberOutOfRangeIsAnErrorAtItsPosition) {
  auto src = JsonSource::Parse("f.json", "{\n  \"timeout_s\": 1e999}");
  ASSERT_FALSE(src.ok());
  EXPECT_EQ(src.status().kind(), ErrorKind::kInvalidInput);
  EXPECT_EQ(src.status().message(), "f.json:2:16: invalid JSON: number overflow parsing '1e999'");
}

TEST(JsonLocator, KeysWithEscapesAndSlashesResolve) {
  auto src = JsonSource::Parse("f.json", "{\"a/b\": {\"\\u0063\": true}}");
  ASSERT_TRUE(src.ok()) << src.status().message();
  EXPECT_EQ(src->Where("/a~1b/c"), "f.json:1:10");
}

}  // namespace
}  // namespace pg
