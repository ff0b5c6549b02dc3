// Sizes as `proofgate gc` and `mutate -v` print them (gates/core/disk_usage).
#include <gtest/gtest.h>

#include "core/disk_usage.h"

namespace pg {
namespace {

TEST(HumanBytes, WholeNumbersFromTenAndForBytesOneDecimalBelow) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(5), "5 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(10 * 1024), "10 KiB");
  EXPECT_EQ(HumanBytes(340ull << 20), "340 MiB");
  EXPECT_EQ(HumanBytes((12ull << 30) / 10), "1.2 GiB");
}

}  // namespace
}  // namespace pg
