// vt's dequantization against llama.cpp's own: the libggml-base.so that the pinned
// node-llama-cpp package ships (scripts/install-oracle), opened with dlopen. Blocks made by
// ggml's quantizer (what llama-quantize writes) and by vt's must decode to the same floats,
// bit for bit. The two symbols used and the ggml_type_traits layout are those of ggml.h in
// the pinned llama.cpp bundle; each type's block size and bytes are checked against vt's
// before any value is compared, so a layout drift fails by name instead of by garbage.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "vt/quant.h"

namespace vt {
namespace {

struct GgmlTypeTraits {  // ggml.h: struct ggml_type_traits
  const char* type_name;
  int64_t blck_size;
  int64_t blck_size_interleave;
  size_t type_size;
  bool is_quantized;
  void (*to_float)(const void* x, float* y, int64_t k);
  void (*from_float_ref)(const float* x, void* y, int64_t k);
};
using TraitsFn = const GgmlTypeTraits* (*)(int type);
using QuantizeFn = size_t (*)(int type, const float* src, void* dst, int64_t start, int64_t nrows,
                              int64_t n_per_row, const float* imatrix);

const std::string kLib = std::string(ORACLE_DIR) +
                         "/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so";

class GgmlDequant : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = dlopen(kLib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr)
      GTEST_SKIP() << "llama.cpp's libggml-base.so not installed (scripts/install-oracle): "
                   << dlerror();
    traits_ = reinterpret_cast<TraitsFn>(dlsym(handle_, "ggml_get_type_traits"));
    quantize_ = reinterpret_cast<QuantizeFn>(dlsym(handle_, "ggml_quantize_chunk"));
    ASSERT_NE(traits_, nullptr);
    ASSERT_NE(quantize_, nullptr);
  }
  void TearDown() override {
    if (handle_) dlclose(handle_);
  }
  void* handle_ = nullptr;
  TraitsFn traits_ = nullptr;
  QuantizeFn quantize_ = nullptr;
};

TEST_F(GgmlDequant, EveryBlockTypeDecodesBitForBitAsLibggml) {
  const struct {
    DType t;
    int ggml;
  } types[] = {{DType::kQ4_0, 2},  {DType::kQ4_1, 3},  {DType::kQ5_0, 6},  {DType::kQ5_1, 7},
               {DType::kQ8_0, 8},  {DType::kQ2_K, 10}, {DType::kQ3_K, 11}, {DType::kQ4_K, 12},
               {DType::kQ5_K, 13}, {DType::kQ6_K, 14}, {DType::kMXFP4, 39}};
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0, 1);
  const int64_t n = 2048;
  std::vector<float> x(n), ours(n), theirs(n);
  for (float& v : x) v = normal(rng);
  for (const auto& [t, id] : types) {
    SCOPED_TRACE(std::string(DTypeName(t)));
    const GgmlTypeTraits* tr = traits_(id);
    ASSERT_NE(tr, nullptr);
    ASSERT_EQ(tr->blck_size, BlockSize(t));
    ASSERT_EQ(tr->type_size, BlockBytes(t));
    std::vector<uint8_t> blocks(RowBytes(t, n));
    for (int maker = 0; maker < 2; ++maker) {  // 0: ggml's quantizer, 1: vt's
      if (maker == 0) {
        ASSERT_EQ(quantize_(id, x.data(), blocks.data(), 0, 1, n, nullptr), blocks.size());
      } else {
        ASSERT_TRUE(QuantizeRow(t, x.data(), blocks.data(), n).ok());
      }
      DequantizeRow(t, blocks.data(), ours.data(), n);
      tr->to_float(blocks.data(), theirs.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(std::memcmp(&ours[i], &theirs[i], 4), 0)
            << "element " << i << " of blocks made by " << (maker == 0 ? "ggml" : "vt") << ": vt "
            << ours[i] << ", ggml " << theirs[i];
      }
    }
  }
}

}  // namespace
}  // namespace vt
