#include "vt/gguf.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace vt {
namespace {

GgufWriter Sample() {
  GgufWriter w;
  w.Set("general.architecture", GgufValue::String("llama"));
  w.Set("u8", GgufValue::Uint(GgufType::kU8, 200));
  w.Set("i8", GgufValue::Int(GgufType::kI8, -100));
  w.Set("u16", GgufValue::Uint(GgufType::kU16, 60000));
  w.Set("i16", GgufValue::Int(GgufType::kI16, -30000));
  w.Set("llama.block_count", GgufValue::Uint(GgufType::kU32, 8));
  w.Set("i32", GgufValue::Int(GgufType::kI32, -7));
  w.Set("u64", GgufValue::Uint(GgufType::kU64, uint64_t{1} << 40));
  w.Set("i64", GgufValue::Int(GgufType::kI64, -(int64_t{1} << 40)));
  w.Set("llama.rope.freq_base", GgufValue::Float(GgufType::kF32, 10000.0));
  w.Set("f64", GgufValue::Float(GgufType::kF64, 0.1));
  w.Set("flag", GgufValue::Bool(true));
  w.Set("tokenizer.ggml.tokens",
        GgufValue::Array(GgufType::kString, {GgufValue::String("<s>"), GgufValue::String("é")}));
  w.Set("nested",
        GgufValue::Array(GgufType::kArray,
                         {GgufValue::Array(GgufType::kI32, {GgufValue::Int(GgufType::kI32, 1)}),
                          GgufValue::Array(GgufType::kI32, {})}));
  float f32[6] = {1, 2, 3, 4, 5, 6};
  uint16_t half[4] = {F32ToF16(1.5f), F32ToF16(-2), F32ToF16(0.25f), F32ToF16(8)};
  w.AddTensor("a.weight", DType::kF32, {3, 2, 1, 1}, 2, f32);
  w.AddTensor("b.weight", DType::kF16, {4, 1, 1, 1}, 1, half);
  return w;
}

StatusOr<GgufFile> Parse(std::vector<uint8_t> bytes) {
  return GgufFile::FromBytes(std::move(bytes));
}

TEST(Gguf, RoundTripsEveryValueTypeNestedArraysAndTensors) {
  GgufWriter w = Sample();
  auto f = Parse(w.Bytes());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(*f->Find("general.architecture")->AsString(), "llama");
  EXPECT_EQ(*f->Find("i8")->AsInt(), -100);
  EXPECT_EQ(*f->Find("u64")->AsInt(), int64_t{1} << 40);
  EXPECT_EQ(f->Find("llama.rope.freq_base")->type, GgufType::kF32);
  EXPECT_EQ(*f->Find("f64")->AsFloat(), 0.1);
  EXPECT_EQ(std::get<bool>(f->Find("flag")->v), true);
  EXPECT_EQ(*(*f->Find("tokenizer.ggml.tokens")->AsArray())[1].AsString(), "é");
  const auto& nested = *f->Find("nested")->AsArray();
  EXPECT_EQ(*(*nested[0].AsArray())[0].AsInt(), 1);
  EXPECT_TRUE(nested[1].AsArray()->empty());
  auto a = f->TensorView("a.weight");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->ne, (std::array<int64_t, 4>{3, 2, 1, 1}));
  EXPECT_EQ(static_cast<float*>(a->data)[5], 6.0f);
  auto b = f->TensorView("b.weight");
  EXPECT_EQ(F16ToF32(static_cast<uint16_t*>(b->data)[0]), 1.5f);
  EXPECT_EQ(f->metadata().size(), 14u);
}

TEST(Gguf, OpenMapsTheFileAndTensorsViewItWithoutCopying) {
  std::string path =
      (std::filesystem::temp_directory_path() / ("vt-gguf-" + std::to_string(getpid()))).string();
  GgufWriter w = Sample();
  w.alignment = 64;
  ASSERT_TRUE(w.Write(path).ok());
  auto f = GgufFile::Open(path);
  std::filesystem::remove(path);  // the mapping outlives the name
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->alignment(), 64u);
  auto a = f->TensorView("a.weight");
  ASSERT_TRUE(a.ok());
  auto* p = static_cast<const uint8_t*>(a->data);
  EXPECT_GE(p, f->data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_EQ(static_cast<const float*>(a->data)[0], 1.0f);
}

TEST(Gguf, EveryTruncationIsAnErrorNamingAnOffsetNeverACrash) {
  std::vector<uint8_t> bytes = Sample().Bytes();
  // Everything up to the last tensor byte is needed; the alignment padding after it is not.
  auto whole = Parse(bytes);
  ASSERT_TRUE(whole.ok());
  auto last = whole->TensorView("b.weight");
  size_t end = static_cast<size_t>(static_cast<const uint8_t*>(last->data) - whole->data()) + 8;
  for (size_t n = 0; n < end; ++n) {
    auto f = Parse(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n));
    ASSERT_FALSE(f.ok()) << "prefix " << n << " parsed";
    ASSERT_EQ(f.status().message().rfind("gguf: offset ", 0), 0u) << f.status().message();
  }
}

std::string ErrorOf(std::vector<uint8_t> bytes) {
  auto f = Parse(std::move(bytes));
  return f.ok() ? "(parsed)" : f.status().message();
}

template <typename T>
void Poke(std::vector<uint8_t>& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

TEST(Gguf, BadMagicVersionAndCountsAreNamed) {
  std::vector<uint8_t> good = Sample().Bytes();
  auto b = good;
  b[0] = 'X';
  EXPECT_EQ(ErrorOf(b), "gguf: offset 0: bad magic (not a GGUF file)");
  b = good;
  Poke<uint32_t>(b, 4, 1);
  EXPECT_EQ(ErrorOf(b), "gguf: offset 4: unsupported version 1");
  b = good;
  Poke<uint64_t>(b, 8, ~uint64_t{0});
  EXPECT_EQ(ErrorOf(b), "gguf: offset 24: counts exceed the file size");
}

TEST(Gguf, UnknownTypesAndBadAlignmentAreNamed) {
  GgufWriter w;
  w.Set("k", GgufValue::Uint(GgufType::kU32, 1));
  std::vector<uint8_t> b = w.Bytes();
  Poke<uint32_t>(b, 24 + 8 + 1, 99);  // the value type after the key "k"
  EXPECT_EQ(ErrorOf(b), "gguf: offset 37: unknown value type 99");
  GgufWriter align;
  align.Set("general.alignment", GgufValue::Uint(GgufType::kU32, 24));
  EXPECT_EQ(ErrorOf(align.Bytes()),
            "gguf: offset 24: general.alignment must be a u32 power of two");
  GgufWriter dup;
  dup.Set("a", GgufValue::Bool(true));
  std::vector<uint8_t> d = dup.Bytes();
  std::vector<uint8_t> entry(d.begin() + 24, d.begin() + 38);  // key "a", type, value
  d.resize(38);
  d.insert(d.end(), entry.begin(), entry.end());
  Poke<uint64_t>(d, 16, 2);
  EXPECT_EQ(ErrorOf(d), "gguf: offset 38: duplicate key \"a\"");
}

TEST(Gguf, TensorOffsetsOutOfRangeOrMisalignedAndUnknownTypesAreNamed) {
  GgufWriter w;
  float v[8] = {};
  w.AddTensor("t", DType::kF32, {8, 1, 1, 1}, 1, v);
  std::vector<uint8_t> good = w.Bytes();
  size_t info = 24 + 8 + 1 + 4 + 8;  // name, n_dims, ne0 → the type field
  auto b = good;
  Poke<uint32_t>(b, info, 16);  // IQ2_XXS: not a type vt reads
  EXPECT_EQ(ErrorOf(b), "gguf: offset 24: tensor \"t\" has unsupported type 16");
  b = good;
  Poke<uint32_t>(b, info, 12);  // Q4_K, whose 256-element blocks a row of 8 cannot hold
  EXPECT_EQ(ErrorOf(b),
            "gguf: offset 24: tensor \"t\": q4_K rows of 8 are not a multiple of its block of 256");
  b = good;
  Poke<uint64_t>(b, info + 4, 4096);
  EXPECT_EQ(ErrorOf(b), "gguf: offset 4160: tensor \"t\" data runs past the end of the file");
  b = good;
  Poke<uint64_t>(b, info + 4, 4);
  EXPECT_EQ(ErrorOf(b), "gguf: offset 64: tensor \"t\" offset is not aligned");
  b = good;
  Poke<uint32_t>(b, 24 + 9, 5);
  EXPECT_EQ(ErrorOf(b), "gguf: offset 24: tensor \"t\" has 5 dimensions");
}

}  // namespace
}  // namespace vt

namespace vt {
namespace {

// Inputs the fuzzer (scripts/fuzz-gguf) or a person found hard: each must parse or fail with a
// Status, never crash; the hand-made ones named refuse-* must fail.
TEST(Gguf, FuzzRegressionsParseOrFailWithoutCrashing) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FUZZ_REGRESSIONS_DIR)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    auto f = GgufFile::FromBytes(bytes);
    if (entry.path().filename().string().rfind("refuse-", 0) == 0) {
      EXPECT_FALSE(f.ok()) << entry.path();
      if (!f.ok()) {
        EXPECT_EQ(f.status().message().rfind("gguf: offset ", 0), 0u) << f.status().message();
      }
    }
    ++files;
  }
  EXPECT_GE(files, 3);
}

}  // namespace
}  // namespace vt
