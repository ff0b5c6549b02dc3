// Host memory's kept blocks (core/host_backend.cpp, specs/engine-core.md): a freed large block
// comes back for the next allocation of its size, small ones and blocks past the limit go
// back to the C library. Each test runs in its own process (ctest), on the CPU backend.
#include <gtest/gtest.h>

#include <vector>

#include "core/host_backend.h"

namespace vt {
namespace {

HostBackend& Cpu() { return dynamic_cast<HostBackend&>(*GetBackend(DeviceType::kCPU)); }

TEST(HostMemory, AFreedLargeBlockIsHandedBackForItsSizeOrAnEighthLess) {
  HostBackend& cpu = Cpu();
  const size_t before = cpu.kept_bytes(), mib = size_t{1} << 20;
  void* p = cpu.Alloc(mib).value();
  cpu.Free(p);
  EXPECT_EQ(cpu.kept_bytes(), before + mib);
  void* q = cpu.Alloc(mib * 8 / 9).value();  // the kept block exceeds this by an eighth
  EXPECT_EQ(q, p);
  EXPECT_EQ(cpu.kept_bytes(), before);
  cpu.Free(q);
  void* smaller = cpu.Alloc(mib * 8 / 9 - 64).value();  // by more than an eighth: not handed out
  EXPECT_NE(smaller, p);
  EXPECT_EQ(cpu.kept_bytes(), before + mib);
  cpu.Free(smaller);
}

TEST(HostMemory, SmallBlocksAndBlocksPastTheLimitAreNotKept) {
  HostBackend& cpu = Cpu();
  const size_t before = cpu.kept_bytes();
  cpu.Free(cpu.Alloc(kKeptBlockMinBytes - 64).value());
  EXPECT_EQ(cpu.kept_bytes(), before);
  // Blocks of a quarter of the limit (never touched, so never committed): freed until the
  // limit, then released.
  std::vector<void*> blocks;
  for (int i = 0; i < 5; ++i) blocks.push_back(cpu.Alloc(kKeptBytesMax / 4).value());
  for (void* b : blocks) cpu.Free(b);
  EXPECT_LE(cpu.kept_bytes(), kKeptBytesMax);
  EXPECT_GT(cpu.kept_bytes(), kKeptBytesMax - kKeptBytesMax / 4);
}

}  // namespace
}  // namespace vt
