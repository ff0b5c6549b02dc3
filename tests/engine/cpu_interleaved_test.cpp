// Q4_0, Q4_K and MXFP4 interleaved in groups of 16 rows (DType::kQ4_0x16, kQ4_Kx16, kMXFP4x16,
// vt/quant.h, specs/quantized.md): the layouts and their way back, the AVX-512 VNNI decodes against
// the block formula, the CPU's Matmul over them against the same rows plain (Parity.*: run once per
// forced kernel set), and which weights the CPU interleaves and which backends refuse them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/quant_blocks.h"
#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"
#include "matmul_problem.h"
#include "vt/quant.h"

namespace vt::cpu {
namespace {

// N rows of K weights of block type t, f16 or bf16 (QuantizeRow, F32ToF16 or F32ToBF16 of
// U(-1, 1) values).
std::vector<uint8_t> QuantRows(DType t, int64_t N, int64_t K) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> f(static_cast<size_t>(N * K));
  for (float& v : f) v = u(rng);
  std::vector<uint8_t> q(RowBytes(t, K) * N);
  if (t == DType::kF16 || t == DType::kBF16) {
    for (size_t i = 0; i < f.size(); ++i) {
      const uint16_t h = t == DType::kF16 ? F32ToF16(f[i]) : F32ToBF16(f[i]);
      std::memcpy(q.data() + 2 * i, &h, 2);
    }
    return q;
  }
  for (int64_t n = 0; n < N; ++n)
    EXPECT_TRUE(QuantizeRow(t, f.data() + n * K, q.data() + n * RowBytes(t, K), K).ok());
  return q;
}

// Every row of `plain` (N x K of PlainOf(t)) interleaved as t and put back, byte for byte.
void ExpectEveryRowBack(DType t, const std::vector<uint8_t>& plain,
                        const std::vector<uint8_t>& mixed, int64_t N, int64_t K) {
  const size_t row = RowBytes(PlainOf(t), K);
  std::vector<uint8_t> back(row);
  for (int64_t n = 0; n < N; ++n) {
    PlainRowOf(t, mixed.data(), N, K, n, back.data());
    ASSERT_EQ(0, std::memcmp(back.data(), plain.data() + n * row, row)) << "row " << n;
  }
}

TEST(Quant, InterleavingQ4_0RestoresEveryRowByteForByte) {
  // 37 rows: two whole groups and five plain rows past them; K = 96: three blocks.
  const int64_t N = 37, K = 96;
  const size_t row = RowBytes(DType::kQ4_0, K);
  std::vector<uint8_t> plain(row * N);
  std::mt19937 rng(3);
  for (uint8_t& b : plain) b = static_cast<uint8_t>(rng());  // any bytes are blocks
  std::vector<uint8_t> mixed(plain.size());
  InterleaveQ4_0(plain.data(), mixed.data(), N, K);
  // The published layout: group 1 (rows 16-31), block 2, row 5 (row 21): its scale at 2·5 of
  // the block's 288 bytes, its nibble byte 6 in chunk 1 at 32 + 64 + 4·5 + 2.
  const uint8_t* group1 = mixed.data() + 16 * row;
  const uint8_t* block = plain.data() + 21 * row + 2 * 18;
  EXPECT_EQ(group1[2 * 288 + 10], block[0]);
  EXPECT_EQ(group1[2 * 288 + 11], block[1]);
  EXPECT_EQ(group1[2 * 288 + 32 + 64 + 20 + 2], block[2 + 6]);
  EXPECT_EQ(0, std::memcmp(mixed.data() + 32 * row, plain.data() + 32 * row, 5 * row))
      << "the rows past the groups stay plain";
  ExpectEveryRowBack(DType::kQ4_0x16, plain, mixed, N, K);
}

TEST(Quant, InterleavingMxfp4RestoresEveryRowByteForByte) {
  // As Q4_0's, with one scale byte per row: group 1, block 2, row 5 (row 21): its scale at 5
  // of the block's 272 bytes, its nibble byte 6 in chunk 1 at 16 + 64 + 4·5 + 2.
  const int64_t N = 37, K = 96;
  const size_t row = RowBytes(DType::kMXFP4, K);
  std::vector<uint8_t> plain(row * N);
  std::mt19937 rng(4);
  for (uint8_t& b : plain) b = static_cast<uint8_t>(rng());  // any bytes are blocks
  std::vector<uint8_t> mixed(plain.size());
  InterleaveMXFP4(plain.data(), mixed.data(), N, K);
  const uint8_t* group1 = mixed.data() + 16 * row;
  const uint8_t* block = plain.data() + 21 * row + 2 * 17;
  EXPECT_EQ(group1[2 * 272 + 5], block[0]);
  EXPECT_EQ(group1[2 * 272 + 16 + 64 + 20 + 2], block[1 + 6]);
  EXPECT_EQ(0, std::memcmp(mixed.data() + 32 * row, plain.data() + 32 * row, 5 * row))
      << "the rows past the groups stay plain";
  ExpectEveryRowBack(DType::kMXFP4x16, plain, mixed, N, K);
}

TEST(Quant, InterleavingQ4_KRestoresEveryRowByteForByte) {
  // 37 rows: two whole groups and five plain rows past them; K = 768: three super-blocks.
  // Any bytes are blocks: the twelve scale bytes use all their 96 bits.
  const int64_t N = 37, K = 768;
  const size_t row = RowBytes(DType::kQ4_K, K), sb = 2304;
  std::vector<uint8_t> plain(row * N);
  std::mt19937 rng(5);
  for (uint8_t& b : plain) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> mixed(plain.size());
  InterleaveQ4_K(plain.data(), mixed.data(), N, K);
  // The published layout: group 1 (rows 16-31), super-block 2, row 5 (row 21).
  const uint8_t* at = mixed.data() + 16 * row + 2 * sb;
  const uint8_t* block = plain.data() + 21 * row + 2 * 144;
  EXPECT_EQ(at[10], block[0]) << "d";
  EXPECT_EQ(at[32 + 11], block[3]) << "dmin";
  EXPECT_EQ(at[256 + 512 * 3 + 64 * 6 + 20 + 1], block[16 + 32 * 3 + 4 * 6 + 1])
      << "nibble byte 121 in pair 3, chunk 6";
  uint8_t scale, min;
  quant::ScaleMinK4(6, block + 4, &scale, &min);
  // Scale 6 of row 5 is value 16·6 + 5 = 101: low bits in the high half of byte 64 + 37, top
  // bits at bit 6 of byte 64 + 64 + 5. Min 6 is value 32·3 + 2·5 + 0 = 106: byte 160 + 42, bits
  // 4-7; byte 160 + 64 + 10, bit 6.
  EXPECT_EQ(scale, (at[64 + 37] >> 4) | ((at[128 + 5] >> 6) & 3) << 4) << "scale 6";
  EXPECT_EQ(min, (at[160 + 42] >> 4) | ((at[224 + 10] >> 6) & 3) << 4) << "min 6";
  EXPECT_EQ(0, std::memcmp(mixed.data() + 32 * row, plain.data() + 32 * row, 5 * row))
      << "the rows past the groups stay plain";
  ExpectEveryRowBack(DType::kQ4_Kx16, plain, mixed, N, K);
}

// The decode of the sets that read interleaved weights themselves (AVX-512 VNNI) of N x K
// weights of interleaved type t for columns 5..50 (part of the first group and of the rows
// past the groups when N = 53), M = 1, 3, 6, 16, 41 (groups of four activation rows and their
// tails; past 16, a prompt's rows): Σ dequantized weight · rounded activation (q8_0, or q8_K for
// Q4_K) to 1e-6 of the magnitude of its terms, and the columns outside the range untouched.
void ExpectDecodeIsTheBlockFormula(DType t, int64_t N, int64_t K) {
  const int64_t n0 = 5, n1 = 50;
  const DType plain_type = PlainOf(t);
  std::vector<uint8_t> plain = QuantRows(plain_type, N, K), mixed(plain.size());
  const size_t row = RowBytes(plain_type, K);
  if (plain_type == DType::kMXFP4) {  // E8M0's subnormal halves (e 0 and 1) and a large one
    plain[5 * row + 0 * 17] = 0, plain[6 * row + 1 * 17] = 1,
                        plain[7 * row + 2 * 17] = 140;  // columns n0..n0 + 2
  }
  Interleave(plain_type, plain.data(), mixed.data(), N, K);
  int sets = 0;
  for (const MatmulKernels* k : KernelSets()) {
    if (!k->interleaved) continue;
    ++sets;
    for (int64_t M : {1, 3, 6, 16, 41}) {
      SCOPED_TRACE(std::string(k->name) + " M=" + std::to_string(M));
      Problem p = MakeProblem(M, K, N, DType::kF32);
      std::vector<float> out(static_cast<size_t>(M * N), 1234.5f), wf(static_cast<size_t>(K));
      GemmArgs a{reinterpret_cast<const char*>(mixed.data()),
                 t,
                 row,
                 p.x.data(),
                 static_cast<size_t>(K),
                 out.data(),
                 static_cast<size_t>(N),
                 M,
                 N,
                 K};
      std::vector<uint8_t> acts;
      ASSERT_TRUE(k->quantize_activations(a, &acts));
      k->quant_gemv(a, acts.data(), n0, n1);
      for (int64_t m = 0; m < M; ++m) {
        const float* x = p.x.data() + m * K;
        std::vector<double> xq = plain_type == DType::kQ4_K ? Q8KRounded(x, K) : Q8Rounded(x, K);
        for (int64_t n = 0; n < N; ++n) {
          float got = out[static_cast<size_t>(m * N + n)];
          if (n < n0 || n >= n1) {
            ASSERT_EQ(got, 1234.5f) << "column " << n << " is outside the range and was written";
            continue;
          }
          DequantizeRow(plain_type, plain.data() + n * row, wf.data(), K);
          double want = 0, mag = 0;
          for (int64_t i = 0; i < K; ++i) want += wf[i] * xq[i], mag += std::fabs(wf[i] * xq[i]);
          ASSERT_NEAR(got, want, 1e-6 * mag) << "out[" << m << "][" << n << "]";
        }
      }
    }
  }
  if (sets == 0)
    GTEST_SKIP() << "no kernel set of this CPU reads interleaved weights (AVX-512 VNNI's)";
}

TEST(CpuMatmul, AnInterleavedQ4_0DecodeIsTheBlockFormulaOnQ8RoundedActivations) {
  ExpectDecodeIsTheBlockFormula(DType::kQ4_0x16, 53, 352);  // K: eleven blocks
}

// Scales across E8M0's whole range come from QuantizeRow's blocks (U(-1, 1): e near 126); the
// subnormal scales (e < 2) and the largest are set by hand in some rows' blocks.
TEST(CpuMatmul, AnInterleavedMxfp4DecodeIsTheBlockFormulaOnQ8RoundedActivations) {
  ExpectDecodeIsTheBlockFormula(DType::kMXFP4x16, 53, 352);  // K: eleven blocks
}

TEST(CpuMatmul, AnInterleavedQ4_KDecodeIsTheBlockFormulaOnQ8RoundedActivations) {
  ExpectDecodeIsTheBlockFormula(DType::kQ4_Kx16, 53, 768);  // K: three super-blocks
}

// The backend's Matmul of N x K weights of type t (the plain rows w, interleaved for an
// interleaved t) over M rows.
std::vector<float> MatmulOf(const std::vector<uint8_t>& w, DType t, int64_t N, int64_t K,
                            const Problem& p, int threads) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor wt = NewTensor(cpu, t, {K, N, 1, 1}).value(),
         x = NewTensor(cpu, DType::kF32, {K, p.M, 1, 1}).value();
  Tensor out = NewTensor(cpu, DType::kF32, {N, p.M, 1, 1}).value();
  if (IsInterleaved(t))
    Interleave(PlainOf(t), w.data(), wt.data, N, K);
  else
    std::memcpy(wt.data, w.data(), w.size());
  std::memcpy(x.data, p.x.data(), p.x.size() * sizeof(float));
  ThreadPool pool(threads);
  Matmul(Op{OpKind::kMatmul, {&wt, &x}, &out, {}}, pool);
  return {static_cast<const float*>(out.data), static_cast<const float*>(out.data) + p.M * N};
}

// The best set's integer path over all N columns of interleaved weights `mixed`, directly.
std::vector<float> IntegerPathOf(const std::vector<uint8_t>& mixed, DType t, int64_t N, int64_t K,
                                 const Problem& p) {
  std::vector<float> out(static_cast<size_t>(p.M * N));
  GemmArgs a{reinterpret_cast<const char*>(mixed.data()),
             t,
             RowBytes(t, K),
             p.x.data(),
             static_cast<size_t>(K),
             out.data(),
             static_cast<size_t>(N),
             p.M,
             N,
             K};
  std::vector<uint8_t> acts;
  EXPECT_TRUE(BestKernels().quantize_activations(a, &acts));
  BestKernels().quant_gemv(a, acts.data(), 0, N);
  return out;
}

// Through the CPU's Matmul with whichever set is best (ctest runs Parity.* once per forced
// set): a set that does not read interleaved weights itself puts the rows back and is the
// plain matmul bit for bit, and so is a gemm past kInterleavedGemvMaxRows rows on one that
// does, and a gemm past kShortGemmRows on the tile set. Below that, such a set takes its
// integer path, prompts too: bit for bit its decode
// kernel's output, and for a decode the plain decode's integers scaled in another order (1e-6
// of the output's scale). N = 53: rows past the groups; 2 threads: ranges that split a group.
void ExpectPlainRowsMatmul(DType t, int64_t K) {
  const int64_t N = 53;
  std::vector<uint8_t> w = QuantRows(PlainOf(t), N, K), mixed(w.size());
  Interleave(PlainOf(t), w.data(), mixed.data(), N, K);
  for (int64_t M : {1, 5, 16, 17, 40, 70, 513}) {
    SCOPED_TRACE("M=" + std::to_string(M) + " " + BestKernels().name);
    Problem p = MakeProblem(M, K, N, DType::kF32);
    std::vector<float> plain = MatmulOf(w, PlainOf(t), N, K, p, 2),
                       got = MatmulOf(w, t, N, K, p, 2);
    // The tile set (specs/amx.md) takes every M past kShortGemmRows to its tiles, plain or
    // interleaved.
    const bool tiles = BestKernels().tile_gemm != nullptr && M > kShortGemmRows;
    const bool integer = BestKernels().interleaved && M <= kInterleavedGemvMaxRows && !tiles;
    const std::vector<float> direct = integer ? IntegerPathOf(mixed, t, N, K, p) : plain;
    double scale = 0;
    for (float v : plain) scale = std::max(scale, double{std::fabs(v)});
    for (size_t i = 0; i < plain.size(); ++i) {
      ASSERT_EQ(got[i], direct[i]) << "out[" << i / N << "][" << i % N << "]: not the "
                                   << (integer ? "integer path" : "plain matmul");
      if (integer && M <= kGemvMaxRows) {
        ASSERT_NEAR(got[i], plain[i], 1e-6 * scale) << "out[" << i / N << "][" << i % N << "]";
      }
    }
  }
}

TEST(Parity, InterleavedQ4_0MatmulsAreTheirPlainRowsMatmuls) {
  ExpectPlainRowsMatmul(DType::kQ4_0x16, 352);
}

TEST(Parity, InterleavedQ4_KMatmulsAreTheirPlainRowsMatmuls) {
  ExpectPlainRowsMatmul(DType::kQ4_Kx16, 768);
}

TEST(Parity, InterleavedMxfp4MatmulsAreTheirPlainRowsMatmuls) {
  ExpectPlainRowsMatmul(DType::kMXFP4x16, 352);
}

// The CPU's AdoptMatmulWeight of two experts' N x K matrices of plain type t: interleaved (as
// `interleaved`, named here, not asked of InterleavedOf) where the best set reads them, each
// expert's matrix on its own; fewer rows than a group, and other types, left as they are.
void ExpectAdopted(DType t, DType interleaved, int64_t K) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor w = NewTensor(cpu, t, {K, 48, 2, 1}).value();  // two experts of 48 rows
  std::vector<uint8_t> rows = QuantRows(t, 96, K);
  std::memcpy(w.data, rows.data(), rows.size());
  Tensor adopted = cpu.AdoptMatmulWeight(w).value();
  const bool reads = IsPanels(interleaved) ? BestKernels().panels : BestKernels().interleaved;
  EXPECT_EQ(adopted.dtype, reads ? interleaved : t);
  EXPECT_EQ(adopted.ne, w.ne);
  std::vector<uint8_t> back(RowBytes(t, K));
  for (int64_t e = 0; e < 2 && adopted.dtype != t; ++e) {
    for (int64_t n = 0; n < 48; ++n) {
      PlainRowOf(adopted.dtype, adopted.Row<char>(0, e), 48, K, n, back.data());
      ASSERT_EQ(0, std::memcmp(back.data(), w.Row<char>(n, e), back.size()))
          << "expert " << e << " row " << n;
    }
  }
  Tensor few = View(w, {K, 15, 1, 1}, w.nb, 0);  // less than one group
  EXPECT_EQ(cpu.AdoptMatmulWeight(few).value().data, few.data);
  Tensor q8 = NewTensor(cpu, DType::kQ8_0, {K, 32, 1, 1}).value();
  EXPECT_EQ(cpu.AdoptMatmulWeight(q8).value().data, q8.data);
}

TEST(CpuMatmul, TheCpuInterleavesQ4_0MatmulWeightsOnlyWhereItsSetReadsThem) {
  ExpectAdopted(DType::kQ4_0, DType::kQ4_0x16, 64);
}

TEST(CpuMatmul, TheCpuInterleavesQ4_KMatmulWeightsOnlyWhereItsSetReadsThem) {
  ExpectAdopted(DType::kQ4_K, DType::kQ4_Kx16, 256);
}

TEST(CpuMatmul, TheCpuInterleavesMxfp4MatmulWeightsOnlyWhereItsSetReadsThem) {
  ExpectAdopted(DType::kMXFP4, DType::kMXFP4x16, 64);
}

TEST(CpuMatmul, TheCpuPanelsF16MatmulWeightsOnlyWhereItsSetReadsThem) {
  ExpectAdopted(DType::kF16, DType::kF16x16, 64);
}

TEST(CpuMatmul, TheCpuPanelsBf16MatmulWeightsOnlyWhereItsSetReadsThem) {
  ExpectAdopted(DType::kBF16, DType::kBF16x16, 64);
}

TEST(CpuMatmul, OnlyTheCpuTakesInterleavedQ4_0AndNeverAsAGetRowsTable) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  for (DType t :
       {DType::kQ4_0x16, DType::kQ4_Kx16, DType::kF16x16, DType::kBF16x16, DType::kMXFP4x16}) {
    SCOPED_TRACE(std::string(DTypeName(t)));
    Tensor w = NewTensor(cpu, t, {256, 32, 1, 1}).value(),
           x = NewTensor(cpu, DType::kF32, {256, 1, 1, 1}).value();
    Tensor out = NewTensor(cpu, DType::kF32, {32, 1, 1, 1}).value();
    Op matmul{OpKind::kMatmul, {&w, &x}, &out, {}};
    EXPECT_TRUE(ValidateOp(matmul).ok());
    EXPECT_FALSE(ReferenceBackend().Supports(matmul))
        << "the reference reads block types a row at a time";
    for (DeviceType d : {DeviceType::kVulkan, DeviceType::kCUDA}) {
      if (Backend* b = GetBackend(d)) {
        EXPECT_FALSE(b->Supports(matmul)) << b->name();
      }
    }
    Tensor ids = NewTensor(cpu, DType::kI32, {1, 1, 1, 1}).value(),
           rows = NewTensor(cpu, DType::kF32, {256, 1, 1, 1}).value();
    Status get = ValidateOp(Op{OpKind::kGetRows, {&w, &ids}, &rows, {}});
    EXPECT_FALSE(get.ok());
    EXPECT_NE(get.message().find(std::string(DTypeName(t))), std::string::npos) << get.message();
  }
}

}  // namespace
}  // namespace vt::cpu
