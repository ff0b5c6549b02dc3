// Sizes as `proofgate gc` and `mutate -v` print them (gates/core/disk_usage).
#include "gates/core/disk_usage.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/gates/support/test_support.h"

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

// Found by mutate --generate (disk_usage.cpp's survivors): 1024 is the next unit's 1.0, and
// TiB is the last unit however large the number.
TEST(HumanBytes, TenTwentyFourIsTheNextUnitAndTebibytesTheLast) {
  EXPECT_EQ(HumanBytes(1024), "1.0 KiB");
  EXPECT_EQ(HumanBytes(1ull << 50), "1024 TiB");
}

// coreutils' du, allocated bytes, links not followed: what `gc` reports must be what du says.
std::uint64_t Du(const std::string& path) {
  FILE* p = popen(("du -s -B1 '" + path + "' 2>/dev/null").c_str(), "r");
  unsigned long long bytes = 0;
  if (p && std::fscanf(p, "%llu", &bytes) != 1) bytes = 0;
  if (p) pclose(p);
  return bytes;
}

TEST(DiskUsage, IsWhatDuSaysForADirectoryAFileAndNothingForAMissingPath) {
  testing::TempDir dir;
  dir.Write("small.txt", "x");
  dir.Write("sub/big.bin", std::string(300000, 'b'));
  dir.Write("sub/deeper/mid.txt", std::string(5000, 'm'));
  ASSERT_EQ(symlink((dir.path() + "/sub/big.bin").c_str(), (dir.path() + "/link").c_str()), 0);
  std::uint64_t du = Du(dir.path());
  ASSERT_GT(du, 300000u);
  EXPECT_EQ(DiskUsage(dir.path()), du);
  EXPECT_EQ(DiskUsage(dir.path() + "/sub/big.bin"), Du(dir.path() + "/sub/big.bin"));
  EXPECT_LT(DiskUsage(dir.path() + "/link"), 300000u) << "the link, not what it points to";
  EXPECT_EQ(DiskUsage(dir.path() + "/missing"), 0u);
}

}  // namespace
}  // namespace pg
