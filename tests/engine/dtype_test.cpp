#include "vt/dtype.h"

#include <gtest/gtest.h>
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <random>

namespace vt {
namespace {

// The CPU's own F16C conversion (round to nearest even) is the oracle.
__attribute__((target("f16c"))) uint16_t HardwareF16(float f) {
  return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

TEST(DType, F16ConversionMatchesTheHardwareOnRandomAndEdgeFloats) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "no F16C to compare with";
  std::mt19937 rng(7);
  for (int i = 0; i < 2'000'000; ++i) {
    uint32_t bits = rng();
    float f = std::bit_cast<float>(bits);
    uint16_t ours = F32ToF16(f), hw = HardwareF16(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(F16ToF32(ours))) << std::hex << bits;
    } else {
      ASSERT_EQ(ours, hw) << "f32 bits " << std::hex << bits;
    }
  }
}

TEST(DType, EveryF16RoundTripsThroughF32) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float f = F16ToF32(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(F16ToF32(F32ToF16(f))));
    } else {
      ASSERT_EQ(F32ToF16(f), h) << std::hex << h;
    }
  }
}

TEST(DType, F16RoundsTiesToEvenAndOverflowsToInfinity) {
  EXPECT_EQ(F32ToF16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie, even is down
  EXPECT_EQ(F32ToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie, even is up
  EXPECT_EQ(F32ToF16(65519.0f), 0x7bff);
  EXPECT_EQ(F32ToF16(65520.0f), 0x7c00);
  EXPECT_EQ(F32ToF16(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(F32ToF16(std::ldexp(1.0f, -25)), 0x0000);  // tie to even: zero
  EXPECT_EQ(F32ToF16(-INFINITY), 0xfc00);
}

TEST(DType, BF16RoundsTiesToEvenAndKeepsNanAndInf) {
  EXPECT_EQ(F32ToBF16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie, down to even
  EXPECT_EQ(F32ToBF16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie, up to even
  EXPECT_EQ(F32ToBF16(INFINITY), 0x7f80);
  EXPECT_TRUE(
      std::isnan(BF16ToF32(F32ToBF16(std::bit_cast<float>(0x7f800001u)))));  // would round to inf
  EXPECT_EQ(BF16ToF32(F32ToBF16(-2.5f)), -2.5f);
}

TEST(DType, RowBytesComeFromTheDtype) {
  EXPECT_EQ(RowBytes(DType::kF32, 10), 40u);
  EXPECT_EQ(RowBytes(DType::kBF16, 10), 20u);
  EXPECT_EQ(RowBytes(DType::kF16, 10), 20u);
  EXPECT_EQ(RowBytes(DType::kI32, 3), 12u);
  EXPECT_EQ(RowBytes(DType::kQ8_0, 64), 68u);
  EXPECT_EQ(RowBytes(DType::kQ4_0, 64), 36u);
}

}  // namespace
}  // namespace vt
