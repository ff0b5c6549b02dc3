// The CUDA backend: device listing (and its "no device" Status, which runs everywhere), and
// on a GPU machine: selection, out-of-memory, staged copies, and vt's matmul against cuBLAS.
// The parity suite and DeviceModel tests cover every op on kCUDA when a device is present.
#include "vt/cuda.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>

#include "core/device_choice.h"
#include "parity_support.h"

namespace vt {
namespace {

TEST(DeviceChoice, PicksByIndexNameOrEnvironmentAndNamesTheDevicesWhenNoneMatch) {
  const std::vector<std::string> names = {"NVIDIA H200", "NVIDIA L4"};
  EXPECT_EQ(ChooseDevice(names, "1", "VT_TEST_DEVICE", "cuda").value(), 1);
  EXPECT_EQ(ChooseDevice(names, "l4", "VT_TEST_DEVICE", "cuda").value(), 1);
  EXPECT_EQ(ChooseDevice(names, "", "VT_TEST_DEVICE", "cuda").value(), 0);
  setenv("VT_TEST_DEVICE", "h200", 1);
  EXPECT_EQ(ChooseDevice(names, "", "VT_TEST_DEVICE", "cuda").value(), 0);
  setenv("VT_TEST_DEVICE", "l4", 1);
  EXPECT_EQ(ChooseDevice(names, "", "VT_TEST_DEVICE", "cuda").value(), 1);
  unsetenv("VT_TEST_DEVICE");
  auto none = ChooseDevice(names, "a100", "VT_TEST_DEVICE", "cuda");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(none.status().message(),
            "cuda: no device matches \"a100\" (devices: 0: NVIDIA H200, 1: NVIDIA L4)");
  EXPECT_FALSE(ChooseDevice(names, "2", "VT_TEST_DEVICE", "cuda").ok());
}

TEST(Cuda, ListsDevicesOrSaysWhyThereAreNone) {
  auto devices = ListCudaDevices();
  if (!devices.ok()) {
    EXPECT_EQ(devices.status().code(), StatusCode::kUnavailable);
    EXPECT_EQ(devices.status().message().rfind("cuda: ", 0), 0u) << devices.status().message();
    EXPECT_EQ(GetBackend(DeviceType::kCUDA), nullptr);
    auto open = OpenCudaBackend("");
    ASSERT_FALSE(open.ok());
    EXPECT_EQ(open.status().message(), devices.status().message());
    return;
  }
  ASSERT_FALSE(devices->empty());
  for (const CudaDeviceInfo& d : devices.value()) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_GE(d.major, 1);
    EXPECT_GT(d.memory_bytes, 0u);
  }
  ASSERT_NE(GetBackend(DeviceType::kCUDA), nullptr);
  EXPECT_EQ(GetBackend(DeviceType::kCUDA)->name(), "cuda:" + devices->front().name);
}

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    auto devices = ListCudaDevices();
    if (!devices.ok()) GTEST_SKIP() << devices.status().message();
    backend_ = GetBackend(DeviceType::kCUDA);
    ASSERT_NE(backend_, nullptr);
  }
  Backend* backend_ = nullptr;
};

TEST_F(CudaDevice, AWrongSelectorNamesTheDevicesThereAre) {
  auto wrong = OpenCudaBackend("no-such-gpu");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(
      wrong.status().message().rfind("cuda: no device matches \"no-such-gpu\" (devices: 0: ", 0),
      0u)
      << wrong.status().message();
}

TEST_F(CudaDevice, OutOfMemoryIsAStatusNamingTheDeviceAndSize) {
  auto huge = backend_->Alloc(size_t{1} << 50);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(huge.status().message().find("cannot allocate 1125899906842624 bytes"),
            std::string::npos)
      << huge.status().message();
  auto small = backend_->Alloc(64);  // the device still works afterwards
  ASSERT_TRUE(small.ok()) << small.status().message();
  backend_->Free(small.value());
}

// 9 MiB + 3 bytes: three chunks through the two pinned staging buffers, each way.
TEST_F(CudaDevice, LargeCopiesCrossTheStagingBuffersIntact) {
  std::vector<unsigned char> in((size_t{9} << 20) + 3), out(in.size());
  std::iota(in.begin(), in.end(), static_cast<unsigned char>(7));
  auto a = backend_->Alloc(in.size()), b = backend_->Alloc(in.size());
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(backend_->CopyIn(a.value(), in.data(), in.size()).ok());
  ASSERT_TRUE(backend_->CopyWithin(b.value(), a.value(), in.size()).ok());
  ASSERT_TRUE(backend_->CopyOut(out.data(), b.value(), out.size()).ok());
  EXPECT_TRUE(in == out);
  backend_->Free(a.value());
  backend_->Free(b.value());
}

// vt's kernels (gemv, tiled f32, WMMA) and the cuBLAS path both meet the parity tiers.
TEST_F(CudaDevice, OwnMatmulAndCublasBothMatchTheReference) {
  setenv("VT_CUDA_MATMUL", "cublas", 1);
  auto cublas = OpenCudaBackend("");
  unsetenv("VT_CUDA_MATMUL");
  ASSERT_TRUE(cublas.ok()) << cublas.status().message();
  std::mt19937 rng(3);
  for (DType wt : {DType::kF32, DType::kF16, DType::kBF16}) {
    double tier = wt == DType::kF32 ? testing::kTierGeneral : testing::kTierHalfWeights;
    for (int64_t m : {1, 5, 96, 300}) {
      SCOPED_TRACE(std::string(DTypeName(wt)) + " M=" + std::to_string(m));
      Tensor w = testing::RandomTensor(wt, {520, 200, 1, 1}, rng);
      Tensor x = testing::RandomTensor(DType::kF32, {520, m, 1, 1}, rng);
      EXPECT_TRUE(testing::Parity(*backend_, OpKind::kMatmul, {w, x}, {}, tier));
      EXPECT_TRUE(testing::Parity(*cublas.value(), OpKind::kMatmul, {w, x}, {}, tier));
    }
  }
}

}  // namespace
}  // namespace vt
