// The Vulkan backend's devices, buffers and copies on whatever device the loader reports
// (lavapipe, a CPU driver, in CI and on machines without a GPU).
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

#include "parity_support.h"
#include "vt/vulkan.h"

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
  for (const auto& d : devices_) there += (there.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
  EXPECT_EQ(wrong.status().message(), "vulkan: no device matches \"no-such-device\" (devices: " + there + ")");
  setenv("VT_VULKAN_DEVICE", "99", 1);
  EXPECT_FALSE(OpenVulkanBackend("").ok());  // the environment picks when the caller does not
  unsetenv("VT_VULKAN_DEVICE");
  EXPECT_TRUE(OpenVulkanBackend("").ok());
}

TEST_F(Vulkan, OpsWithoutAKernelAreNamedStatuses) {
  auto backend = OpenVulkanBackend("");
  ASSERT_TRUE(backend.ok());
  Tensor x = testing::RandomTensor(DType::kF32, {8, 8, 1, 1}, Rng());
  EXPECT_FALSE(testing::Parity(*backend.value(), OpKind::kRmsNorm, {x}, {}, testing::kTierGeneral));
  Op op;
  op.kind = OpKind::kRmsNorm;
  EXPECT_FALSE(backend.value()->Supports(op));
  EXPECT_EQ(backend.value()->Run(op).message(), "no kernel for op RmsNorm on device vulkan");
}

// The parity suite's elementwise cases, on the device: a compute shader per op kind.
TEST_F(Vulkan, ElementwiseKernelsMatchTheFloat64Reference) {
  auto backend = OpenVulkanBackend("");
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  Backend& b = *backend.value();
  for (int64_t n : {1, 7, 16, 33, 4096}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    Tensor a = testing::RandomTensor(DType::kF32, {n, 5, 2, 1}, Rng(), -4, 4);
    Tensor full = testing::RandomTensor(DType::kF32, {n, 5, 2, 1}, Rng(), -4, 4);
    Tensor row = testing::RandomTensor(DType::kF32, {n, 1, 1, 1}, Rng(), -4, 4);
    OpParams scale;
    scale.scale = -0.37f;
    EXPECT_TRUE(testing::Parity(b, OpKind::kAdd, {a, full}, {}, testing::kTierGeneral));
    EXPECT_TRUE(testing::Parity(b, OpKind::kAdd, {a, row}, {}, testing::kTierGeneral));
    EXPECT_TRUE(testing::Parity(b, OpKind::kMul, {a, row}, {}, testing::kTierGeneral));
    EXPECT_TRUE(testing::Parity(b, OpKind::kScale, {a}, scale, testing::kTierGeneral));
    EXPECT_TRUE(testing::Parity(b, OpKind::kSilu, {a}, {}, testing::kTierGeneral));
    EXPECT_TRUE(testing::Parity(b, OpKind::kSwiglu, {a, full}, {}, testing::kTierGeneral));
  }
}

// The parity suite's matmul shapes (odd sizes, batches, broadcast weights) for each weight dtype.
TEST_F(Vulkan, MatmulMatchesTheFloat64ReferenceForEveryWeightDtype) {
  auto backend = OpenVulkanBackend("");
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  struct Shape {
    int64_t m, k, n, batch, w_batch;
  };
  const Shape shapes[] = {{1, 1, 1, 1, 1}, {1, 17, 33, 1, 1}, {3, 100, 70, 1, 1}, {7, 129, 65, 1, 1},
                          {33, 300, 70, 2, 1}, {6, 32, 32, 3, 3}, {1, 4096, 40, 1, 1}};
  for (DType wt : {DType::kF32, DType::kF16, DType::kBF16}) {
    double tier = wt == DType::kF32 ? testing::kTierGeneral : testing::kTierHalfWeights;
    for (const Shape& s : shapes) {
      SCOPED_TRACE(std::string(DTypeName(wt)) + " M=" + std::to_string(s.m) + " K=" + std::to_string(s.k) + " N=" + std::to_string(s.n) +
                   " batch=" + std::to_string(s.batch));
      Tensor w = testing::RandomTensor(wt, {s.k, s.n, s.w_batch, 1}, Rng());
      Tensor x = testing::RandomTensor(DType::kF32, {s.k, s.m, s.batch, 1}, Rng());
      EXPECT_TRUE(testing::Parity(*backend.value(), OpKind::kMatmul, {w, x}, {}, tier));
    }
  }
}

}  // namespace
}  // namespace vt
