// ggml's block formats: sizes, hand-built blocks decoded to the values their published layout
// gives (ggml-common.h / ggml-quants.c of the pinned llama.cpp), vt's quantizer round trip,
// and rows no block fits. Bit-for-bit agreement with libggml itself: GgmlDequant.* (oracle).
#include "vt/quant.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "cpu/matmul_kernels.h"
#include "vt/gguf.h"

namespace vt {
namespace {

const DType kBlockTypes[] = {DType::kQ4_0, DType::kQ4_1, DType::kQ5_0, DType::kQ5_1,
                             DType::kQ8_0, DType::kQ2_K, DType::kQ3_K, DType::kQ4_K,
                             DType::kQ5_K, DType::kQ6_K, DType::kMXFP4};

TEST(Quant, BlockSizesAndBytesAreGgmls) {
  const size_t bytes[] = {18, 20, 22, 24, 34, 84, 110, 144, 176, 210, 17};
  const int64_t sizes[] = {32, 32, 32, 32, 32, 256, 256, 256, 256, 256, 32};
  for (size_t i = 0; i < std::size(kBlockTypes); ++i) {
    SCOPED_TRACE(std::string(DTypeName(kBlockTypes[i])));
    EXPECT_TRUE(IsQuantized(kBlockTypes[i]));
    EXPECT_EQ(BlockBytes(kBlockTypes[i]), bytes[i]);
    EXPECT_EQ(BlockSize(kBlockTypes[i]), sizes[i]);
    EXPECT_EQ(RowBytes(kBlockTypes[i], 4 * sizes[i]), 4 * bytes[i]);
  }
  EXPECT_FALSE(IsQuantized(DType::kF16));
}

void PutHalf(std::vector<uint8_t>& b, size_t at, uint16_t h) { std::memcpy(b.data() + at, &h, 2); }

// One element of one hand-built block: `set` writes the fields, `element` has value `want`.
struct Case {
  DType t;
  void (*set)(std::vector<uint8_t>&);
  int element;
  float want;
};

const Case kCases[] = {
    {DType::kQ4_0,
     [](auto& b) {
       PutHalf(b, 0, 0x3C00);
       b[2] = 0xF0;
     },
     16, 7.0f},  // high nibble: element 16
    {DType::kQ4_1,
     [](auto& b) {
       PutHalf(b, 0, 0x3C00);
       PutHalf(b, 2, 0xC000);
       b[4 + 3] = 0x05;
     },
     3, 3.0f},
    {DType::kQ5_0,
     [](auto& b) {
       PutHalf(b, 0, 0x3C00);
       b[2 + 2] = 0x10;
       b[6 + 4] = 0x30;
     },
     20, 3.0f},  // qh bit 20
    {DType::kQ5_1,
     [](auto& b) {
       PutHalf(b, 0, 0x3C00);
       PutHalf(b, 2, 0x3C00);
       b[4] = 0x04;
       b[8 + 2] = 0x01;
     },
     2, 18.0f},
    {DType::kQ8_0,
     [](auto& b) {
       PutHalf(b, 0, 0x3800);
       b[2 + 7] = static_cast<uint8_t>(-3);
     },
     7, -1.5f},
    // d 2, dmin 1, sub-block 9: scale 5, min 3; element 150 in qs[32 + 22] bits 0-1.
    {DType::kQ2_K,
     [](auto& b) {
       PutHalf(b, 80, 0x4000);
       PutHalf(b, 82, 0x3C00);
       b[9] = 0x35;
       b[16 + 54] = 0x02;
     },
     150, 17.0f},
    // d 0.5, scale 14 = -5 (+32 = 27: low nibble in byte 6's high half, top bits in byte 10 at
    // bit 6); element 230: qs[32 + 6] bits 6-7 = 1, its hmask bit 7 clear (minus 4).
    {DType::kQ3_K,
     [](auto& b) {
       PutHalf(b, 108, 0x3800);
       b[96 + 6] = 0xB0;
       b[96 + 10] = 0x40;
       b[32 + 38] = 0x40;
     },
     230, 7.5f},
    // d 1, dmin 0.5, sub-block 5: scale 37, min 21 (the 6-bit packing's second half); element
    // 163 is the high nibble of qs[67].
    {DType::kQ4_K,
     [](auto& b) {
       PutHalf(b, 0, 0x3C00);
       PutHalf(b, 2, 0x3800);
       b[4 + 1] = 0x80;
       b[4 + 5] = 0x40;
       b[4 + 9] = 0x55;
       b[16 + 67] = 0x90;
     },
     163, 322.5f},
    // d 1, sub-block 1 scale 1; element 40: high nibble of ql[8] = 7, qh[8] bit 1 adds 16.
    {DType::kQ5_K,
     [](auto& b) {
       PutHalf(b, 0, 0x3C00);
       b[4 + 1] = 0x01;
       b[48 + 8] = 0x70;
       b[16 + 8] = 0x02;
     },
     40, 23.0f},
    // d 0.25, scale 13 = -3; element 213 (second half, third group): ql[85] high nibble 2 and
    // qh[53] bits 4-5 = 3: 50 - 32 = 18.
    {DType::kQ6_K,
     [](auto& b) {
       PutHalf(b, 208, 0x3400);
       b[192 + 13] = static_cast<uint8_t>(-3);
       b[85] = 0x20;
       b[128 + 53] = 0x30;
     },
     213, -13.5f},
    // E8M0 130 taken at half: 2^(130 - 128) = 4; element 21, the high nibble of byte 1 + 5,
    // is 0xA: E2M1 -1 (stored doubled, -2).
    {DType::kMXFP4,
     [](auto& b) {
       b[0] = 130;
       b[1 + 5] = 0xA0;
     },
     21, -8.0f},
    // The smallest scales are subnormal: E8M0 1 at half is 2^-127.
    {DType::kMXFP4,
     [](auto& b) {
       b[0] = 1;
       b[1 + 2] = 0x07;
     },
     2, 12.0f * 0x1p-127f},
};

TEST(Quant, HandBuiltBlocksDecodeToTheValuesOfTheirLayout) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(DTypeName(c.t)));
    std::vector<uint8_t> block(BlockBytes(c.t), 0);
    c.set(block);
    std::vector<float> y(static_cast<size_t>(BlockSize(c.t)));
    DequantizeRow(c.t, block.data(), y.data(), BlockSize(c.t));
    EXPECT_EQ(y[static_cast<size_t>(c.element)], c.want) << "element " << c.element;
  }
}

TEST(Quant, QuantizingThenDequantizingStaysWithinEachTypesError) {
  // Bounds on the round trip's NMSE for normal data, about 1.5x what vt's quantizer measured
  // (llama-quantize's search does somewhat better; a misplaced field does far worse).
  const double bound[] = {1.5e-2, 1e-2, 3.2e-3, 2.2e-3, 5e-5, 0.16, 5e-2, 9e-3, 2.2e-3, 6e-4, 2e-2};
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0, 1);
  const int64_t n = 4096;
  std::vector<float> x(n), y(n);
  for (float& v : x) v = normal(rng);
  for (size_t i = 0; i < std::size(kBlockTypes); ++i) {
    DType t = kBlockTypes[i];
    SCOPED_TRACE(std::string(DTypeName(t)));
    std::vector<uint8_t> blocks(RowBytes(t, n));
    ASSERT_TRUE(QuantizeRow(t, x.data(), blocks.data(), n).ok());
    DequantizeRow(t, blocks.data(), y.data(), n);
    double err = 0, sum = 0;
    for (int64_t j = 0; j < n; ++j) err += (y[j] - x[j]) * (y[j] - x[j]), sum += x[j] * x[j];
    EXPECT_LE(err / sum, bound[i]);
  }
}

TEST(Quant, EveryKernelSetDequantizesBitForBitAsThePortableCode) {
  // Rows from vt's quantizer over normal data with a few large values (so scales and mins
  // take their top bits), 1024 elements: four K-quant super-blocks, 32 small blocks.
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0, 1);
  const int64_t n = 1024;
  std::vector<float> x(n), want(n), got(n);
  for (int64_t i = 0; i < n; ++i) x[i] = normal(rng) * (i % 97 == 0 ? 40.0f : 1.0f);
  std::vector<const cpu::MatmulKernels*> sets{&cpu::GenericKernels(), cpu::Avx2Kernels(),
                                              cpu::Avx512Kernels(), cpu::Avx512Bf16Kernels()};
  int checked = 0;
  for (const cpu::MatmulKernels* k : sets) {
    if (k == nullptr || k->dequantize == nullptr) continue;
    for (DType t : kBlockTypes) {
      SCOPED_TRACE(std::string(k->name) + " " + std::string(DTypeName(t)));
      std::vector<uint8_t> blocks(RowBytes(t, n));
      ASSERT_TRUE(QuantizeRow(t, x.data(), blocks.data(), n).ok());
      DequantizeRow(t, blocks.data(), want.data(), n);
      std::fill(got.begin(), got.end(), -1.0f);
      if (!k->dequantize(t, blocks.data(), got.data(), n)) continue;
      ++checked;
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(std::memcmp(&got[i], &want[i], 4), 0)
            << "element " << i << ": " << got[i] << ", portable " << want[i];
      }
    }
  }
  if (cpu::Avx512Kernels() != nullptr) {
    EXPECT_GE(checked, 5) << "the AVX-512 set's vector dequantization ran for 5 types";
  }
}

TEST(Quant, RowsThatNoBlockFitsAreRefusedNamingTheTensor) {
  std::vector<float> x(300, 1.0f);
  std::vector<uint8_t> out(1024);
  Status st = QuantizeRow(DType::kQ4_K, x.data(), out.data(), 300);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "a row of 300 is not a multiple of q4_K's block of 256");
  EXPECT_EQ(QuantizeRow(DType::kF16, x.data(), out.data(), 32).message(),
            "f16 is not a block type");
  // A file whose q4_K rows are 300 long: the reader names the tensor, its type and the length.
  std::string path =
      (std::filesystem::temp_directory_path() / ("vt-quant-" + std::to_string(getpid()) + ".gguf"))
          .string();
  GgufWriter w;
  std::vector<uint8_t> bytes(4096, 0);
  w.AddTensor("blk.0.attn_q.weight", DType::kQ4_K, {300, 2, 1, 1}, 2, bytes.data());
  ASSERT_TRUE(w.Write(path).ok());
  auto file = GgufFile::Open(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("tensor \"blk.0.attn_q.weight\": q4_K rows of 300 are not "
                                         "a multiple of its block of 256"),
            std::string::npos)
      << file.status().message();
}

}  // namespace
}  // namespace vt
