#include "gates/core/file_io.h"

#include <gtest/gtest.h>

#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

// The legs stream: appended line by line through one descriptor; a second path gets its own.
TEST(AppendingFile, AppendsInOrderAndAnotherPathGetsItsOwnFile) {
  TempDir dir;
  AppendingFile file;
  dir.Write("a", "before\n");
  ASSERT_TRUE(file.Append(dir.path() + "/a", "one\n").ok());
  ASSERT_TRUE(file.Append(dir.path() + "/a", "two\n").ok());
  ASSERT_TRUE(file.Append(dir.path() + "/b", "three\n").ok());
  EXPECT_EQ(dir.Read("a"), "before\none\ntwo\n");
  EXPECT_EQ(dir.Read("b"), "three\n");
  Status bad = file.Append(dir.path() + "/no/such/dir/c", "x\n");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("/no/such/dir/c"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace pg
