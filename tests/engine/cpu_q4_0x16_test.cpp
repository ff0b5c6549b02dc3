// Q4_0 interleaved in groups of 16 rows (DType::kQ4_0x16, vt/quant.h, specs/quantized.md):
// the layout and its way back, the AVX-512 VNNI decode against the block formula, the CPU's
// Matmul over it against the same rows plain (Parity.*: run once per forced kernel set), and
// which weights the CPU interleaves and which backends refuse them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"
#include "matmul_problem.h"
#include "vt/quant.h"

namespace vt::cpu {
namespace {

// N rows of K weights as Q4_0 (QuantizeRow of U(-1, 1) values).
std::vector<uint8_t> Q4_0Rows(int64_t N, int64_t K, std::vector<float>* values = nullptr) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> f(static_cast<size_t>(N * K));
  for (float& v : f) v = u(rng);
  std::vector<uint8_t> q(RowBytes(DType::kQ4_0, K) * N);
  for (int64_t n = 0; n < N; ++n) EXPECT_TRUE(QuantizeRow(DType::kQ4_0, f.data() + n * K, q.data() + n * RowBytes(DType::kQ4_0, K), K).ok());
  if (values) *values = f;
  return q;
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
  EXPECT_EQ(0, std::memcmp(mixed.data() + 32 * row, plain.data() + 32 * row, 5 * row)) << "the rows past the groups stay plain";
  std::vector<uint8_t> back(row);
  for (int64_t n = 0; n < N; ++n) {
    PlainRowOfQ4_0x16(mixed.data(), N, K, n, back.data());
    ASSERT_EQ(0, std::memcmp(back.data(), plain.data() + n * row, row)) << "row " << n;
  }
}

TEST(CpuMatmul, AnInterleavedQ4_0DecodeIsTheBlockFormulaOnQ8RoundedActivations) {
  // The sets that read q4_0x16 themselves (AVX-512 VNNI): N = 53 (three groups and five rows
  // past them), K = 352 (eleven blocks), columns 5..50 (part of the first group and of the
  // rows past the groups), M = 1, 3, 6, 16 (groups of four activation rows and their tails):
  // Σ dequantized weight · q8_0-rounded activation to 1e-6 of the magnitude of its terms.
  const int64_t N = 53, K = 352, n0 = 5, n1 = 50;
  std::vector<uint8_t> plain = Q4_0Rows(N, K), mixed(plain.size());
  InterleaveQ4_0(plain.data(), mixed.data(), N, K);
  const size_t row = RowBytes(DType::kQ4_0, K);
  int sets = 0;
  for (const MatmulKernels* k : KernelSets()) {
    if (!k->q4_0x16) continue;
    ++sets;
    for (int64_t M : {1, 3, 6, 16}) {
      SCOPED_TRACE(std::string(k->name) + " M=" + std::to_string(M));
      Problem p = MakeProblem(M, K, N, DType::kF32);
      std::vector<float> out(static_cast<size_t>(M * N), 1234.5f), wf(static_cast<size_t>(K));
      GemmArgs a{reinterpret_cast<const char*>(mixed.data()), DType::kQ4_0x16, row, p.x.data(), static_cast<size_t>(K), out.data(),
                 static_cast<size_t>(N), M, N, K};
      std::vector<uint8_t> acts;
      ASSERT_TRUE(k->quantize_activations(a, &acts));
      k->quant_gemv(a, acts.data(), n0, n1);
      for (int64_t m = 0; m < M; ++m) {
        std::vector<double> xq = Q8Rounded(p.x.data() + m * K, K);
        for (int64_t n = 0; n < N; ++n) {
          float got = out[static_cast<size_t>(m * N + n)];
          if (n < n0 || n >= n1) {
            ASSERT_EQ(got, 1234.5f) << "column " << n << " is outside the range and was written";
            continue;
          }
          DequantizeRow(DType::kQ4_0, plain.data() + n * row, wf.data(), K);
          double want = 0, mag = 0;
          for (int64_t i = 0; i < K; ++i) want += wf[i] * xq[i], mag += std::fabs(wf[i] * xq[i]);
          ASSERT_NEAR(got, want, 1e-6 * mag) << "out[" << m << "][" << n << "]";
        }
      }
    }
  }
  if (sets == 0) GTEST_SKIP() << "no kernel set of this CPU reads q4_0x16 (AVX-512 VNNI's)";
}

// The backend's Matmul of N x K Q4_0 weights, plain or interleaved, over M rows.
std::vector<float> MatmulOf(const std::vector<uint8_t>& w, DType t, int64_t N, int64_t K, const Problem& p, int threads) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor wt = NewTensor(cpu, t, {K, N, 1, 1}).value(), x = NewTensor(cpu, DType::kF32, {K, p.M, 1, 1}).value();
  Tensor out = NewTensor(cpu, DType::kF32, {N, p.M, 1, 1}).value();
  if (t == DType::kQ4_0x16) InterleaveQ4_0(w.data(), wt.data, N, K);
  else std::memcpy(wt.data, w.data(), w.size());
  std::memcpy(x.data, p.x.data(), p.x.size() * sizeof(float));
  ThreadPool pool(threads);
  Matmul(Op{OpKind::kMatmul, {&wt, &x}, &out, {}}, pool);
  return {static_cast<const float*>(out.data), static_cast<const float*>(out.data) + p.M * N};
}

TEST(Parity, InterleavedQ4_0MatmulsAreTheirPlainRowsMatmuls) {
  // Through the CPU's Matmul with whichever set is best (ctest runs Parity.* once per forced
  // set): a gemm (M > 16) puts the rows back and is the plain gemm bit for bit, and so is a
  // decode on a set that does not read q4_0x16 itself; where one does, its sums are the same
  // integers scaled in another order (1e-6 of the output's scale). N = 53: rows past the
  // groups; 2 threads: ranges that split a group.
  const int64_t N = 53, K = 352;
  std::vector<uint8_t> w = Q4_0Rows(N, K);
  for (int64_t M : {1, 5, 16, 17, 40, 70}) {
    SCOPED_TRACE("M=" + std::to_string(M) + " " + BestKernels().name);
    Problem p = MakeProblem(M, K, N, DType::kF32);
    std::vector<float> plain = MatmulOf(w, DType::kQ4_0, N, K, p, 2), mixed = MatmulOf(w, DType::kQ4_0x16, N, K, p, 2);
    const bool same_bits = M > kGemvMaxRows || !BestKernels().q4_0x16;
    double scale = 0;
    for (float v : plain) scale = std::max(scale, double{std::fabs(v)});
    for (size_t i = 0; i < plain.size(); ++i) {
      if (same_bits) ASSERT_EQ(mixed[i], plain[i]) << "out[" << i / N << "][" << i % N << "]";
      else ASSERT_NEAR(mixed[i], plain[i], 1e-6 * scale) << "out[" << i / N << "][" << i % N << "]";
    }
  }
}

TEST(CpuMatmul, TheCpuInterleavesQ4_0MatmulWeightsOnlyWhereItsSetReadsThem) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  const int64_t K = 64;
  Tensor q4 = NewTensor(cpu, DType::kQ4_0, {K, 48, 2, 1}).value();  // two experts of 48 rows
  std::vector<uint8_t> rows = Q4_0Rows(96, K);
  std::memcpy(q4.data, rows.data(), rows.size());
  Tensor adopted = cpu.AdoptMatmulWeight(q4).value();
  EXPECT_EQ(adopted.dtype, BestKernels().q4_0x16 ? DType::kQ4_0x16 : DType::kQ4_0);
  EXPECT_EQ(adopted.ne, q4.ne);
  std::vector<uint8_t> back(RowBytes(DType::kQ4_0, K));
  for (int64_t e = 0; e < 2 && adopted.dtype == DType::kQ4_0x16; ++e) {  // each expert's matrix on its own
    for (int64_t n = 0; n < 48; ++n) {
      PlainRowOfQ4_0x16(adopted.Row<char>(0, e), 48, K, n, back.data());
      ASSERT_EQ(0, std::memcmp(back.data(), q4.Row<char>(n, e), back.size())) << "expert " << e << " row " << n;
    }
  }
  Tensor few = View(q4, {K, 15, 1, 1}, q4.nb, 0);  // less than one group
  EXPECT_EQ(cpu.AdoptMatmulWeight(few).value().data, few.data);
  Tensor q8 = NewTensor(cpu, DType::kQ8_0, {K, 32, 1, 1}).value();
  EXPECT_EQ(cpu.AdoptMatmulWeight(q8).value().data, q8.data);
}

TEST(CpuMatmul, OnlyTheCpuTakesInterleavedQ4_0AndNeverAsAGetRowsTable) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor w = NewTensor(cpu, DType::kQ4_0x16, {64, 32, 1, 1}).value(), x = NewTensor(cpu, DType::kF32, {64, 1, 1, 1}).value();
  Tensor out = NewTensor(cpu, DType::kF32, {32, 1, 1, 1}).value();
  Op matmul{OpKind::kMatmul, {&w, &x}, &out, {}};
  EXPECT_TRUE(ValidateOp(matmul).ok());
  EXPECT_FALSE(ReferenceBackend().Supports(matmul)) << "the reference reads block types a row at a time";
  for (DeviceType d : {DeviceType::kVulkan, DeviceType::kCUDA}) {
    if (Backend* b = GetBackend(d)) {
      EXPECT_FALSE(b->Supports(matmul)) << b->name();
    }
  }
  Tensor ids = NewTensor(cpu, DType::kI32, {1, 1, 1, 1}).value(), rows = NewTensor(cpu, DType::kF32, {64, 1, 1, 1}).value();
  Status get = ValidateOp(Op{OpKind::kGetRows, {&w, &ids}, &rows, {}});
  EXPECT_FALSE(get.ok());
  EXPECT_NE(get.message().find("q4_0x16"), std::string::npos) << get.message();
}

}  // namespace
}  // namespace vt::cpu
