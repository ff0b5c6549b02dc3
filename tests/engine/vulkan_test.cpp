// The Vulkan backend's devices, buffers and copies on whatever device the loader reports
// (lavapipe, a CPU driver, in CI and on machines without a GPU).
#include "vt/vulkan.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

#include "parity_support.h"

namespace vt {
namespace {

std::mt19937& Rng() {
  static std::mt19937 rng(99);
  return rng;
}

class Vulkan : public ::testing::Test {
 protected:
  void SetUp() override {
    auto devices = ListVulkanDevices();
    if (!devices.ok()) GTEST_SKIP() << devices.status().message();
    devices_ = devices.value();
  }
  std::vector<VulkanDeviceInfo> devices_;
};

TEST_F(Vulkan, ListsDevicesWithIndexNameAndType) {
  ASSERT_FALSE(devices_.empty());
  for (size_t i = 0; i < devices_.size(); ++i) {
    EXPECT_EQ(devices_[i].index, static_cast<int>(i));
    EXPECT_FALSE(devices_[i].name.empty());
    EXPECT_NE(devices_[i].type, "");
  }
}

TEST_F(Vulkan, BytesRoundTripThroughDeviceBuffers) {
  auto backend = OpenVulkanBackend("0");
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  Backend& b = *backend.value();
  EXPECT_EQ(b.device().type, DeviceType::kVulkan);
  std::vector<float> in(1000), out(1000, -1.0f);
  std::iota(in.begin(), in.end(), 0.5f);
  auto x = b.Alloc(in.size() * sizeof(float));
  auto y = b.Alloc(in.size() * sizeof(float));
  ASSERT_TRUE(x.ok() && y.ok());
  ASSERT_TRUE(b.CopyIn(x.value(), in.data(), in.size() * sizeof(float)).ok());
  ASSERT_TRUE(b.CopyWithin(y.value(), x.value(), in.size() * sizeof(float)).ok());
  ASSERT_TRUE(b.CopyOut(out.data(), y.value(), out.size() * sizeof(float)).ok());
  EXPECT_EQ(out, in);
  b.Free(x.value());
  b.Free(y.value());
}

TEST_F(Vulkan, DevicesAreChosenByIndexOrNameAndAWrongOneNamesThoseThereAre) {
  std::string name = devices_[0].name;
  auto by_name = OpenVulkanBackend(name.substr(0, 4));
  ASSERT_TRUE(by_name.ok()) << by_name.status().message();
  EXPECT_EQ(by_name.value()->name(), "vulkan:" + name);
  auto wrong = OpenVulkanBackend("no-such-device");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  std::string there;
  for (const auto& d : devices_)
    there += (there.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
  EXPECT_EQ(wrong.status().message(),
            "vulkan: no device matches \"no-such-device\" (devices: " + there + ")");
  setenv("VT_VULKAN_DEVICE", "99", 1);
  EXPECT_FALSE(OpenVulkanBackend("").ok());  // the environment picks when the caller does not
  unsetenv("VT_VULKAN_DEVICE");
  EXPECT_TRUE(OpenVulkanBackend("").ok());
}

TEST_F(Vulkan, OpsWithoutAKernelAreNamedStatuses) {
  auto backend = OpenVulkanBackend("");
  ASSERT_TRUE(backend.ok());
  Backend& b = *backend.value();
  // head_dim 1024 is past attention.comp's 512.
  Tensor q = testing::RandomTensor(DType::kF32, {1024, 2, 1, 1}, Rng());
  Tensor kv = testing::RandomTensor(DType::kF32, {1024, 1, 4, 1}, Rng());
  auto wide = testing::Parity(b, OpKind::kAttention, {q, kv, kv}, {}, testing::kTierGeneral);
  EXPECT_FALSE(wide);
  EXPECT_NE(std::string(wide.message()).find("no kernel for op Attention on device vulkan"),
            std::string::npos)
      << wide.message();
  // Block types are read (matmul weights, GetRows tables), never written.
  Tensor from = NewTensor(b, DType::kF32, {32, 4, 1, 1}).value();
  Tensor to = NewTensor(b, DType::kQ8_0, {32, 4, 1, 1}).value();
  Op op{OpKind::kCopy, {&from}, &to, {}};
  EXPECT_FALSE(b.Supports(op));
  EXPECT_EQ(b.Run(op).message(), "no kernel for op Copy on device vulkan");
}

TEST_F(Vulkan, OutOfMemoryIsAStatusNamingTheDeviceAndSize) {
  auto backend = OpenVulkanBackend("");
  ASSERT_TRUE(backend.ok());
  auto huge = backend.value()->Alloc(size_t{1} << 50);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(huge.status().message().find(": cannot allocate 1125899906842624 bytes"),
            std::string::npos)
      << huge.status().message();
  std::string device_name = backend.value()->name().substr(std::string("vulkan:").size());
  EXPECT_NE(huge.status().message().find(device_name), std::string::npos)
      << huge.status().message();
  auto small = backend.value()->Alloc(64);  // the device still works afterwards
  ASSERT_TRUE(small.ok());
  backend.value()->Free(small.value());
}

// The forward pass frees and allocates the same sizes every token: freed buffers are kept and
// handed out again rather than going back to the driver.
TEST_F(Vulkan, FreedBuffersAreReusedForTheSameSize) {
  auto backend = OpenVulkanBackend("");
  ASSERT_TRUE(backend.ok());
  Backend& b = *backend.value();
  void* first = b.Alloc(1000).value();
  b.Free(first);
  void* other = b.Alloc(2000).value();  // another size: not that buffer
  EXPECT_NE(other, first);
  void* again = b.Alloc(1000).value();
  EXPECT_EQ(again, first);
  b.Free(other);
  b.Free(again);
}

// Memory the host cannot map (a discrete GPU's, forced here with VT_VULKAN_MEMORY=device on any
// driver): copies cross a staging buffer in chunks, copies within the device are commands, and
// a host read of such an address faults instead of returning stale bytes.
TEST_F(Vulkan, DeviceOnlyMemoryCopiesThroughStaging) {
  setenv("VT_VULKAN_MEMORY", "device", 1);
  auto backend = OpenVulkanBackend("");
  unsetenv("VT_VULKAN_MEMORY");
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  Backend& b = *backend.value();
  std::vector<unsigned char> in((size_t{17} << 20) + 3), out(in.size());  // three staging chunks
  std::iota(in.begin(), in.end(), static_cast<unsigned char>(1));
  void* x = b.Alloc(in.size()).value();
  void* y = b.Alloc(in.size()).value();
  ASSERT_TRUE(b.CopyIn(x, in.data(), in.size()).ok());
  ASSERT_TRUE(b.CopyWithin(y, x, in.size()).ok());
  ASSERT_TRUE(b.CopyOut(out.data(), y, out.size()).ok());
  EXPECT_TRUE(in == out);
  // Overlapping ranges of one buffer move as memmove does.
  ASSERT_TRUE(b.CopyWithin(static_cast<char*>(y) + 5, y, 1000).ok());
  ASSERT_TRUE(b.CopyOut(out.data(), y, 1005).ok());
  EXPECT_TRUE(std::equal(in.begin(), in.begin() + 1000, out.begin() + 5));
  EXPECT_DEATH(static_cast<void>(*static_cast<volatile char*>(x)), "");
  b.Free(x);
  b.Free(y);
  setenv("VT_VULKAN_MEMORY", "vram", 1);
  auto bad = OpenVulkanBackend("");
  unsetenv("VT_VULKAN_MEMORY");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "VT_VULKAN_MEMORY=vram: expected auto, host or device");
}

// Kernels queue until the host needs memory: 600 dependent adds (past the 256 a batch holds)
// all land, in order, and a buffer freed while queued kernels use it stays until they ran.
TEST_F(Vulkan, QueuedKernelsRunInOrderBeforeTheHostReads) {
  auto backend = OpenVulkanBackend("");
  ASSERT_TRUE(backend.ok());
  Backend& b = *backend.value();
  std::vector<float> ones(64, 1.0f), zeros(64, 0.0f), got(64);
  Tensor acc = NewTensor(b, DType::kF32, {64, 1, 1, 1}).value();
  Tensor src = NewTensor(b, DType::kF32, {64, 1, 1, 1}).value();
  ASSERT_TRUE(b.CopyIn(acc.data, zeros.data(), 256).ok());
  ASSERT_TRUE(b.CopyIn(src.data, ones.data(), 256).ok());
  for (int i = 0; i < 600; ++i) {
    Tensor two = NewTensor(b, DType::kF32, {64, 1, 1, 1}).value();
    OpParams p;
    p.scale = 2.0f;
    ASSERT_TRUE(RunOp(b, Op{OpKind::kScale, {&src}, &two, p}).ok());
    ASSERT_TRUE(RunOp(b, Op{OpKind::kAdd, {&acc, &two}, &acc, {}}).ok());
  }  // each `two` is freed with its kernels still queued
  ASSERT_TRUE(b.CopyOut(got.data(), acc.data, 256).ok());
  EXPECT_EQ(got, std::vector<float>(64, 1200.0f));
}

}  // namespace
}  // namespace vt
