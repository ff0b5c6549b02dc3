#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "vt/backend.h"
#include "vt/loopback.h"
#include "vt/queue.h"

namespace vt {
namespace {

TEST(Tensor, ByteSizeAndStridesComeFromDtypeAndShape) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  auto f32 = NewTensor(cpu, DType::kF32, {64, 8, 2, 1});
  auto bf16 = NewTensor(cpu, DType::kBF16, {64, 8, 2, 1});
  ASSERT_TRUE(f32.ok() && bf16.ok());
  EXPECT_EQ(f32->ByteSize(), 64u * 8 * 2 * 4);
  EXPECT_EQ(bf16->ByteSize(), 64u * 8 * 2 * 2);
  EXPECT_EQ(f32->nb[1], 256u);
  EXPECT_EQ(f32->nb[2], 2048u);
  EXPECT_TRUE(f32->IsContiguous());
}

// Regression: a copy that used bf16's 2-byte size for an f32 block moved half of it.
TEST(Tensor, AnF32CopyMovesEveryByteAcrossDevicesAndBack) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  auto loop = MakeLoopbackBackend();
  auto host = NewTensor(cpu, DType::kF32, {64, 8, 1, 1});
  auto dev = NewTensor(*loop, DType::kF32, {64, 8, 1, 1});
  auto back = NewTensor(cpu, DType::kF32, {64, 8, 1, 1});
  ASSERT_TRUE(host.ok() && dev.ok() && back.ok());
  std::iota(static_cast<float*>(host->data), static_cast<float*>(host->data) + 512, 1.0f);
  std::memset(back->data, 0, back->ByteSize());
  ASSERT_TRUE(CopyTensor(host.value(), dev.value()).ok());
  ASSERT_TRUE(CopyTensor(dev.value(), back.value()).ok());
  TransferCounts counts = LoopbackCounts(*loop);
  EXPECT_EQ(counts.to_device, 1u);
  EXPECT_EQ(counts.to_device_bytes, 64u * 8 * 4);
  EXPECT_EQ(counts.to_host_bytes, 64u * 8 * 4);
  EXPECT_EQ(std::memcmp(host->data, back->data, host->ByteSize()), 0);
  EXPECT_EQ(static_cast<float*>(back->data)[511], 512.0f);
}

TEST(Tensor, AOneRowViewOfAMatrixIsContiguous) {
  auto m = NewTensor(*GetBackend(DeviceType::kCPU), DType::kF32, {16, 4, 1, 1});
  ASSERT_TRUE(m.ok());
  Tensor row = View(m.value(), {16, 1, 1, 1}, m->nb, 2 * m->nb[1]);
  EXPECT_TRUE(row.IsContiguous());
  Tensor column = View(m.value(), {1, 4, 1, 1}, {4, 64, 256, 256}, 0);
  EXPECT_FALSE(column.IsContiguous());
}

TEST(Registry, AMissingKernelIsAStatusNamingOpAndDevice) {
  auto loop = MakeLoopbackBackend();
  auto w = NewTensor(*loop, DType::kF32, {8, 4, 1, 1});
  auto x = NewTensor(*loop, DType::kF32, {8, 2, 1, 1});
  auto y = NewTensor(*loop, DType::kF32, {4, 2, 1, 1});
  ASSERT_TRUE(w.ok() && x.ok() && y.ok());
  Status s = RunOp(*loop, Op{OpKind::kMatmul, {&w.value(), &x.value()}, &y.value(), {}});
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_EQ(s.message(), "no kernel for op Matmul on device xpu");
}

TEST(Registry, TheEngineDeviceIsTheQueueDevice) {
  auto loop = MakeLoopbackBackend();
  Engine engine{MakeQueue(*loop)};
  EXPECT_EQ(engine.q.device.type, DeviceType::kXPU);
  Engine cpu{MakeQueue(*GetBackend(DeviceType::kCPU))};
  EXPECT_EQ(cpu.q.device.type, DeviceType::kCPU);
  EXPECT_EQ(GetBackend(DeviceType::kCUDA), nullptr);  // none registered in this process
}

TEST(Registry, BadShapesAreInvalidArgumentsNamingTheOp) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  auto w = NewTensor(cpu, DType::kF32, {8, 4, 1, 1});
  auto x = NewTensor(cpu, DType::kF32, {9, 2, 1, 1});
  auto y = NewTensor(cpu, DType::kF32, {4, 2, 1, 1});
  Status s = RunOp(cpu, Op{OpKind::kMatmul, {&w.value(), &x.value()}, &y.value(), {}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("Matmul: K differs", 0), 0u) << s.message();
}

}  // namespace
}  // namespace vt
