// The CPU matmul kernel sets called directly, on one thread, over a column range that starts
// and ends mid-panel and crosses every blocking edge (k slices, activation and weight blocks):
// the parity suite goes through the thread pool, whose ranges depend on the machine's cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"
#include "matmul_problem.h"
#include "vt/backend.h"
#include "vt/quant.h"

namespace vt::cpu {
namespace {

TEST(CpuMatmul, EveryKernelSetWritesItsColumnsAcrossBlockEdges) {
  // M = 101: past one 96-row activation block and not a multiple of 6 or 12. K = 602: past
  // one k slice of every set (256 or 512 deep), the last one partial and not a multiple of 16
  // or 8 (the AVX2 packing's 8-wide transposes end in a scalar tail of 2), and even (the
  // bf16-dot set takes pairs; an odd K goes around it). Columns 5..1100 of
  // 1109: starts and ends mid-panel, crosses the 256-, 512- and 1024-column weight blocks.
  for (DType wt : {DType::kF32, DType::kF16, DType::kBF16}) {
    Problem p = MakeProblem(101, 602, 1109, wt);
    for (const MatmulKernels* k : KernelSets()) {
      SCOPED_TRACE(std::string(k->name) + " " + std::string(DTypeName(wt)));
      Check(*k, p, 5, 1100);
    }
  }
}

TEST(CpuMatmul, EveryKernelSetStreamsRowsWithTailsForEveryDecodeBatchSize) {
  // The decode path (M <= kGemvMaxRows). K = 300: four 64-wide steps, then a 44-element tail
  // (AVX-512: two full vectors and a masked one; AVX2: one 8-wide step and a scalar tail of 4).
  for (DType wt : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int64_t m = 1; m <= kGemvMaxRows; ++m) {
      Problem p = MakeProblem(m, 300, 67, wt);
      for (const MatmulKernels* k : KernelSets()) {
        SCOPED_TRACE(std::string(k->name) + " " + std::string(DTypeName(wt)) +
                     " M=" + std::to_string(m));
        Check(*k, p, 3, 61, Path::kGemv);
      }
    }
  }
}

// A batch of decodes (vt-serve's continuous batching) changes no sequence's numbers: an
// activation row's outputs are bit for bit the same alone (M = 1) as at any row of a batch up
// to kGemvMaxRows, through the dispatcher the model's matmuls take and through every kernel
// set's decode (the dispatcher picks one set per machine).
TEST(CpuMatmul, ADecodeRowSumsBitForBitTheSameAloneAndInABatch) {
  // K = 1100: 17 steps of 64 (AVX-512) or 34 of 32 (AVX2), then tails. N = 67: blocks of four
  // (AVX-512) or two (AVX2) weight rows and the rows left alone. Batches of 16, 7, 6 and 5:
  // activation rows four at a time, then three, two or one.
  using Decode = std::function<void(const GemmArgs&)>;
  std::vector<std::pair<std::string, Decode>> paths{
      {"dispatcher", [](const GemmArgs& a) { GemmRange(a, 0, a.N); }}};
  for (const MatmulKernels* k : KernelSets())
    paths.emplace_back(k->name, [k](const GemmArgs& a) { k->gemv(a, 0, a.N); });
  for (auto [wt, rows] : std::vector<std::pair<DType, int64_t>>{{DType::kF32, kGemvMaxRows},
                                                                {DType::kF16, kGemvMaxRows},
                                                                {DType::kBF16, kGemvMaxRows},
                                                                {DType::kF16, 7},
                                                                {DType::kF32, 6},
                                                                {DType::kBF16, 5}}) {
    Problem batch = MakeProblem(rows, 1100, 67, wt);
    size_t wstride = static_cast<size_t>(batch.K) * (wt == DType::kF32 ? 4 : 2);
    auto args = [&](const float* x, float* out, int64_t m) {
      return GemmArgs{reinterpret_cast<const char*>(batch.w.data()),
                      wt,
                      wstride,
                      x,
                      static_cast<size_t>(batch.K),
                      out,
                      static_cast<size_t>(batch.N),
                      m,
                      batch.N,
                      batch.K};
    };
    for (const auto& [name, decode] : paths) {
      std::vector<float> together(static_cast<size_t>(batch.M * batch.N));
      decode(args(batch.x.data(), together.data(), batch.M));
      for (int64_t m = 0; m < batch.M; ++m) {
        std::vector<float> alone(static_cast<size_t>(batch.N));
        decode(args(batch.x.data() + m * batch.K, alone.data(), 1));
        EXPECT_EQ(
            std::memcmp(alone.data(), together.data() + m * batch.N, alone.size() * sizeof(float)),
            0)
            << name << " " << DTypeName(wt) << ": row " << m << " of a batch of " << batch.M
            << " differs from the row alone";
      }
    }
  }
}

TEST(CpuMatmul, EveryKernelSetAddsWeightedRowsIntoTheAccumulator) {
  // hd = 80: one full 64-wide AVX-512 step and a masked 16; AVX2: two 32-wide steps and a
  // scalar tail of 16. Rows are strided wider than hd (a cache's other heads lie between).
  const int64_t hd = 80, n = 37;
  const size_t stride_elems = 3 * hd;
  for (DType t : {DType::kF32, DType::kF16}) {
    Problem p = MakeProblem(1, static_cast<int64_t>(stride_elems), n, t);
    std::vector<float> weights(p.x.begin(), p.x.begin() + n);
    for (const MatmulKernels* k : KernelSets()) {
      SCOPED_TRACE(std::string(k->name) + " " + std::string(DTypeName(t)));
      std::vector<float> acc(hd + 8, 0.5f);
      k->weighted_rows(reinterpret_cast<const char*>(p.w.data()), t,
                       stride_elems * (t == DType::kF32 ? 4 : 2), weights.data(), n, acc.data(),
                       hd);
      for (int64_t d = 0; d < hd; ++d) {
        double ref = 0.5, mag = 0.5;
        for (int64_t j = 0; j < n; ++j) {
          double term = double{weights[j]} * p.wf[static_cast<size_t>(j) * stride_elems + d];
          ref += term;
          mag += std::fabs(term);
        }
        ASSERT_NEAR(acc[d], ref, 1e-5 * mag) << "acc[" << d << "]";
      }
      for (int64_t d = hd; d < hd + 8; ++d)
        ASSERT_EQ(acc[d], 0.5f) << "acc[" << d << "] is past hd and was written";
    }
  }
}

TEST(CpuMatmul, EveryKernelSetExponentiatesWithinAFewUlpOfStdExp) {
  // Lengths around each vector width (tails of 1..15 and none), inputs from 0 down to below
  // where e^x leaves f32's normal range.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-95.0f, 5.0f);
  for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 40, 333}) {
    std::vector<float> in(static_cast<size_t>(n));
    for (float& v : in) v = dist(rng);
    const float shift = 5.0f;
    for (const MatmulKernels* k : KernelSets()) {
      SCOPED_TRACE(std::string(k->name) + " n=" + std::to_string(n));
      std::vector<float> s = in;
      double want_sum = 0;
      float sum = k->exp_shifted(s.data(), n, shift);
      for (int64_t j = 0; j < n; ++j) {
        // The shift is subtracted in f32, as a kernel does; e^x from there in double.
        double want = std::exp(double{in[static_cast<size_t>(j)] - shift});
        want_sum += want;
        EXPECT_NEAR(s[static_cast<size_t>(j)], want, 4e-7 * want + 1e-37)
            << "s[" << j << "] for x = " << in[static_cast<size_t>(j)];
      }
      EXPECT_NEAR(sum, want_sum, 1e-6 * want_sum);
    }
  }
}

TEST(CpuMatmul, EveryKernelSetExponentiatesUpToF32sLargestAndInfinityPastIt) {
  // SiLU's e^-x meets large x (softmax's shifted x <= 0 never does): e^88.5 is 2^127.7, whose
  // 2^128 no exponent field holds; e^88.8 and beyond are past f32's largest.
  const std::vector<float> in = {80.0f, 88.0f, 88.5f, 88.7f, 88.8f, 89.0f, 104.5f, 1000.0f};
  for (const MatmulKernels* k : KernelSets()) {
    SCOPED_TRACE(k->name);
    std::vector<float> s = in;
    k->exp_shifted(s.data(), static_cast<int64_t>(s.size()), 0.0f);
    for (size_t j = 0; j < in.size(); ++j) {
      double want = std::exp(double{in[j]});
      if (want > std::numeric_limits<float>::max()) {
        EXPECT_EQ(s[j], std::numeric_limits<float>::infinity()) << "e^" << in[j];
      } else {
        EXPECT_NEAR(s[j], want, 4e-7 * want) << "e^" << in[j];
      }
    }
  }
}

void SplitMatchesOneThread(int64_t M);

TEST(CpuMatmul, AGemmSplitIntoRowAndColumnTasksGivesTheNumbersOfOneThread) {
  // Four threads and 300 columns (two 256-column tasks): 130 rows split into blocks of 48
  // and 82 so that every thread has tasks; 50 rows must not leave a tail of 16 or fewer
  // (the decode kernels would sum it differently). No number may change with the split.
  for (int64_t M : {130, 50}) {
    SCOPED_TRACE("M=" + std::to_string(M));
    SplitMatchesOneThread(M);
  }
}

TEST(CpuMatmul, AGemmSplitsIntoNoMoreTasksThanThePoolHasChunks) {
  // More tasks than chunks are merged by the pool into uneven chunks: 22 tasks of 256 columns
  // (a 2048-wide model's 5632-wide feed-forward) became 11 chunks of two on two threads, and
  // one thread ran six while the other waited. Each task is at least one packed block wide.
  for (int threads : {1, 2, 3, 8}) {
    for (int64_t N : {32, 300, 512, 1408, 2048, 5632, 11264, 152064}) {
      for (int64_t M : {17, 130, 512}) {
        GemmSplit s = SplitGemm(M, N, threads);
        std::string at = std::to_string(M) + "x" + std::to_string(N) + " on " +
                         std::to_string(threads) + " threads";
        EXPECT_LE(s.col_tasks * s.row_tasks, ThreadPool::kChunksPerThread * threads) << at;
        EXPECT_GE(s.width, kNC) << at;
        EXPECT_EQ(s.width % kNR, 0) << at;
        EXPECT_GE(s.col_tasks * s.width, N) << at;
        EXPECT_LT((s.col_tasks - 1) * s.width, N) << at;
        EXPECT_GT(M - (s.row_tasks - 1) * s.rows_per, kGemvMaxRows)
            << at;  // the last row block's rows
      }
    }
  }
  GemmSplit big = SplitGemm(512, 5632, 2);
  EXPECT_EQ(big.col_tasks * big.row_tasks, 16);
}

// Through GemmTasks itself: the backend's Matmul takes a gemm to the tiles where the set has
// them (specs/amx.md), which would leave the split untested there.
void SplitMatchesOneThread(int64_t M) {
  const int64_t K = 70, N = 300;
  Problem p = MakeProblem(M, K, N, DType::kF16);
  std::vector<float> one(static_cast<size_t>(M * N)), four(one.size());
  for (auto [threads, out] : {std::pair{1, &one}, std::pair{4, &four}}) {
    ThreadPool pool(threads);
    GemmTasks(ArgsOf(p, out->data()), pool);
  }
  for (int64_t i = 0; i < M * N; ++i) {
    ASSERT_EQ(one[static_cast<size_t>(i)], four[static_cast<size_t>(i)])
        << "row " << i / N << " column " << i % N << " differs on four threads";
  }
}

// What q8_1 changes for Q4_1 and Q5_1 (ggml's quantize_row_q8_1): a block's minimum m
// multiplies s = f16(scale·Σq), the scale before its f16 rounding, where Σ w·x̂ has
// m·f16(scale)·Σq. Σ over the row's blocks of m·(s − f16(scale)·Σq); m is the f16 after d.
double Q8_1Correction(DType t, const uint8_t* row, const float* x, int64_t K) {
  const int64_t bytes = t == DType::kQ4_1 ? 20 : 24;
  double total = 0;
  for (int64_t b = 0; b < K / 32; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[32 * b + j]));
    float scale = amax / 127.0f, inv = scale != 0.0f ? 1.0f / scale : 0.0f;
    int sum = 0;
    for (int j = 0; j < 32; ++j) sum += static_cast<int>(std::nearbyint(x[32 * b + j] * inv));
    uint16_t m;
    std::memcpy(&m, row + bytes * b + 2, 2);
    double s = F16ToF32(F32ToF16(scale * static_cast<float>(sum)));
    total += double{F16ToF32(m)} * (s - double{F16ToF32(F32ToF16(scale))} * sum);
  }
  return total;
}

TEST(CpuMatmul, AQ8DecodeIsTheBlockFormulaOnQ8RoundedActivations) {
  // Every kernel set's quant_gemv for Q8_0, Q4_0, Q5_0, Q4_1, Q5_1 and MXFP4 (q8_0 activations, K =
  // 352: eleven blocks, an odd one for the pairs of Q4_0 and Q5_0)
  // and Q2_K, Q3_K, Q4_K, Q5_K, Q6_K (q8_K activations, K = 512: two super-blocks), M = 1, 3 and 6
  // (a group of four activation rows and two), columns 2..9 of 11: Σ dequantized weight · rounded
  // activation (Q4_1, Q5_1: with q8_1's minimum term), to 1e-6 of the magnitude of its terms (the
  // f32 scaling of exact integer block sums).
  const int64_t N = 11;
  int ran = 0;
  for (DType t :
       {DType::kQ8_0, DType::kQ4_0, DType::kQ5_0, DType::kQ4_1, DType::kQ5_1, DType::kQ2_K,
        DType::kQ3_K, DType::kQ4_K, DType::kQ5_K, DType::kQ6_K, DType::kMXFP4}) {
    const bool k_quant = BlockSize(t) == 256;
    const int64_t K = k_quant ? 512 : 352;
    for (int64_t M : {1, 3, 6}) {
      Problem p = MakeProblem(M, K, N, DType::kF32);
      std::vector<uint8_t> w(RowBytes(t, K) * N);
      std::vector<float> wf(static_cast<size_t>(K));
      for (int64_t n = 0; n < N; ++n)
        ASSERT_TRUE(QuantizeRow(t, p.wf.data() + n * K, w.data() + n * RowBytes(t, K), K).ok());
      for (const MatmulKernels* k : KernelSets()) {
        if (k->quant_gemv == nullptr) continue;
        SCOPED_TRACE(std::string(k->name) + " " + std::string(DTypeName(t)) +
                     " M=" + std::to_string(M));
        std::vector<float> out(static_cast<size_t>(M * N), 1234.5f);
        GemmArgs a{reinterpret_cast<const char*>(w.data()),
                   t,
                   RowBytes(t, K),
                   p.x.data(),
                   static_cast<size_t>(K),
                   out.data(),
                   static_cast<size_t>(N),
                   M,
                   N,
                   K};
        std::vector<uint8_t> acts;
        ASSERT_TRUE(k->quantize_activations(a, &acts));
        k->quant_gemv(a, acts.data(), 2, 9);
        ++ran;
        for (int64_t m = 0; m < M; ++m) {
          std::vector<double> xq =
              k_quant ? Q8KRounded(p.x.data() + m * K, K) : Q8Rounded(p.x.data() + m * K, K);
          for (int64_t n = 0; n < N; ++n) {
            float got = out[static_cast<size_t>(m * N + n)];
            if (n < 2 || n >= 9) {
              EXPECT_EQ(got, 1234.5f) << "column " << n << " is outside the range and was written";
              continue;
            }
            DequantizeRow(t, w.data() + n * RowBytes(t, K), wf.data(), K);
            double want = 0, mag = 0;
            for (int64_t i = 0; i < K; ++i) want += wf[i] * xq[i], mag += std::fabs(wf[i] * xq[i]);
            if (t == DType::kQ4_1 || t == DType::kQ5_1)
              want += Q8_1Correction(t, w.data() + n * RowBytes(t, K), p.x.data() + m * K, K);
            EXPECT_NEAR(got, want, 1e-6 * mag) << "out[" << m << "][" << n << "]";
          }
        }
      }
    }
  }
  if (Avx512Kernels() != nullptr && __builtin_cpu_supports("avx512vnni")) {
    EXPECT_GT(ran, 0) << "the AVX-512 VNNI decode ran";
  }
}

TEST(CpuMatmul, ABatchOfQuantizedDecodesGetsEachRowsNumbersAlone) {
  // Seven activation rows (groups of four and three) against each row alone: the same bits,
  // so batching decodes (vt-serve's step) changes no token.
  const int64_t M = 7, K = 768, N = 5;
  int ran = 0;
  for (DType t :
       {DType::kQ8_0, DType::kQ4_0, DType::kQ5_0, DType::kQ4_1, DType::kQ5_1, DType::kQ2_K,
        DType::kQ3_K, DType::kQ4_K, DType::kQ5_K, DType::kQ6_K, DType::kMXFP4}) {
    Problem p = MakeProblem(M, K, N, DType::kF32);
    std::vector<uint8_t> w(RowBytes(t, K) * N);
    for (int64_t n = 0; n < N; ++n)
      ASSERT_TRUE(QuantizeRow(t, p.wf.data() + n * K, w.data() + n * RowBytes(t, K), K).ok());
    for (const MatmulKernels* k : KernelSets()) {
      if (k->quant_gemv == nullptr) continue;
      SCOPED_TRACE(std::string(k->name) + " " + std::string(DTypeName(t)));
      auto run = [&](int64_t rows, const float* x) {
        std::vector<float> out(static_cast<size_t>(rows * N));
        GemmArgs a{reinterpret_cast<const char*>(w.data()),
                   t,
                   RowBytes(t, K),
                   x,
                   static_cast<size_t>(K),
                   out.data(),
                   static_cast<size_t>(N),
                   rows,
                   N,
                   K};
        std::vector<uint8_t> acts;
        EXPECT_TRUE(k->quantize_activations(a, &acts));
        k->quant_gemv(a, acts.data(), 0, N);
        return out;
      };
      std::vector<float> batch = run(M, p.x.data());
      ++ran;
      for (int64_t m = 0; m < M; ++m) {
        std::vector<float> alone = run(1, p.x.data() + m * K);
        for (int64_t n = 0; n < N; ++n) {
          ASSERT_EQ(batch[static_cast<size_t>(m * N + n)], alone[static_cast<size_t>(n)])
              << "row " << m << " column " << n << " changed when batched";
        }
      }
    }
  }
  if (Avx512Kernels() != nullptr && __builtin_cpu_supports("avx512vnni")) {
    EXPECT_GT(ran, 0) << "the AVX-512 VNNI decode ran";
  }
}

TEST(CpuMatmul, ADecodeOfQ8WeightsThroughTheBackendTakesTheQ8Path) {
  if (BestKernels().quant_gemv == nullptr)
    GTEST_SKIP() << "the best kernel set here has no q8 decode (" << BestKernels().name << ")";
  // One token through the CPU backend's Matmul: the q8_0 formula to 1e-6 of its terms, which
  // the dequantizing path (f32 activations, about 1e-3 away) would not meet.
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  const int64_t K = 256, N = 8;
  Problem p = MakeProblem(1, K, N, DType::kF32);
  Tensor w = NewTensor(cpu, DType::kQ8_0, {K, N, 1, 1}).value(),
         x = NewTensor(cpu, DType::kF32, {K, 1, 1, 1}).value();
  Tensor out = NewTensor(cpu, DType::kF32, {N, 1, 1, 1}).value();
  for (int64_t n = 0; n < N; ++n)
    ASSERT_TRUE(QuantizeRow(DType::kQ8_0, p.wf.data() + n * K, w.Row<char>(n), K).ok());
  std::memcpy(x.data, p.x.data(), K * sizeof(float));
  ThreadPool pool(1);
  Matmul(Op{OpKind::kMatmul, {&w, &x}, &out, {}}, pool);
  std::vector<double> xq = Q8Rounded(p.x.data(), K);
  std::vector<float> wf(static_cast<size_t>(K));
  for (int64_t n = 0; n < N; ++n) {
    DequantizeRow(DType::kQ8_0, w.Row<const char>(n), wf.data(), K);
    double want = 0, mag = 0;
    for (int64_t i = 0; i < K; ++i) want += wf[i] * xq[i], mag += std::fabs(wf[i] * xq[i]);
    EXPECT_NEAR(static_cast<float*>(out.data)[n], want, 1e-6 * mag)
        << "column " << n << ": not the q8_0 decode";
  }
}

TEST(CpuMatmul, AGemmOfBlockTypeWeightsRunsTheBf16GemmWhereTheSetHasIt) {
  if (BestKernels().dequantize_bf16 == nullptr)
    GTEST_SKIP() << "the best kernel set here has no bf16 gemm (" << BestKernels().name << ")";
  // 40 activation rows by Q4_K weights through the backend's Matmul: bit for bit the bf16 gemm
  // of the dequantized weights rounded to bf16, which the f32 gemm would not give.
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  const int64_t M = 40, K = 512, N = 200;
  Problem p = MakeProblem(M, K, N, DType::kF32);
  Tensor w = NewTensor(cpu, DType::kQ4_K, {K, N, 1, 1}).value(),
         x = NewTensor(cpu, DType::kF32, {K, M, 1, 1}).value();
  Tensor out = NewTensor(cpu, DType::kF32, {N, M, 1, 1}).value();
  for (int64_t n = 0; n < N; ++n)
    ASSERT_TRUE(QuantizeRow(DType::kQ4_K, p.wf.data() + n * K, w.Row<char>(n), K).ok());
  std::memcpy(x.data, p.x.data(), M * K * sizeof(float));
  ThreadPool pool(1);
  Matmul(Op{OpKind::kMatmul, {&w, &x}, &out, {}}, pool);
  std::vector<uint16_t> wb(static_cast<size_t>(N * K));
  std::vector<float> wf(static_cast<size_t>(K)), want(static_cast<size_t>(M * N));
  for (int64_t n = 0; n < N; ++n) {
    DequantizeRow(DType::kQ4_K, w.Row<const char>(n), wf.data(), K);
    for (int64_t i = 0; i < K; ++i)
      wb[static_cast<size_t>(n * K + i)] = F32ToBF16(wf[static_cast<size_t>(i)]);
  }
  GemmArgs a{reinterpret_cast<const char*>(wb.data()),
             DType::kBF16,
             K * sizeof(uint16_t),
             p.x.data(),
             static_cast<size_t>(K),
             want.data(),
             static_cast<size_t>(N),
             M,
             N,
             K};
  GemmRange(a, 0, N);
  for (int64_t i = 0; i < M * N; ++i) {
    ASSERT_EQ(static_cast<float*>(out.data)[i], want[static_cast<size_t>(i)])
        << "out[" << i / N << "][" << i % N << "]: not the bf16 gemm";
  }
}

// A group of decode matmuls (the forward pass's q, k and v) run as one pool dispatch through
// RunOps: each output bit for bit what the matmul gives alone, for f16, Q4_0 and bf16 weights
// of 40, 24 and 33 rows (33 and 40 not multiples of the 16-row units the group is split
// into), one token and a batch of 5 and 16, on four threads and one. 17 rows are no decode:
// the group runs them one by one, the same bits too.
TEST(CpuMatmul, AGroupOfDecodeMatmulsGivesEachMatmulsBitsAlone) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  const int64_t K = 96;
  const std::pair<DType, int64_t> weights[] = {
      {DType::kF16, 40}, {DType::kQ4_0, 24}, {DType::kBF16, 33}};
  std::vector<Tensor> ws;
  for (auto [type, n] : weights) {
    Problem p = MakeProblem(1, K, n, DType::kF32);
    ws.push_back(NewTensor(cpu, type, {K, n, 1, 1}).value());
    for (int64_t r = 0; r < n; ++r) {
      const float* row = p.wf.data() + r * K;
      uint16_t* half = ws.back().Row<uint16_t>(r);
      if (type == DType::kF16)
        std::transform(row, row + K, half, F32ToF16);
      else if (type == DType::kBF16)
        std::transform(row, row + K, half, F32ToBF16);
      else
        ASSERT_TRUE(QuantizeRow(type, row, ws.back().Row<char>(r), K).ok());
    }
  }
  for (int64_t m : {1, 5, 16, 17}) {
    SCOPED_TRACE("M=" + std::to_string(m));
    Problem p = MakeProblem(m, K, 1, DType::kF32);
    Tensor x = NewTensor(cpu, DType::kF32, {K, m, 1, 1}).value();
    std::memcpy(x.data, p.x.data(), m * K * sizeof(float));
    std::vector<Tensor> alone, grouped;
    std::vector<Op> group;
    for (const Tensor& w : ws) {
      alone.push_back(NewTensor(cpu, DType::kF32, {w.ne[1], m, 1, 1}).value());
      grouped.push_back(NewTensor(cpu, DType::kF32, {w.ne[1], m, 1, 1}).value());
      ASSERT_TRUE(RunOp(cpu, Op{OpKind::kMatmul, {&w, &x}, &alone.back(), {}}).ok());
    }
    for (size_t i = 0; i < ws.size(); ++i)
      group.push_back(Op{OpKind::kMatmul, {&ws[i], &x}, &grouped[i], {}});
    for (int threads : {4, 1}) {
      ThreadPool pool(threads);
      for (const Tensor& g : grouped) std::memset(g.data, 0xff, g.ByteSize());
      if (!DecodeGroup(group, pool)) {
        ASSERT_GT(m, kGemvMaxRows) << "a group of decodes was not run as one";
        ASSERT_TRUE(RunOps(cpu, group).ok());
      }
      for (size_t i = 0; i < ws.size(); ++i) {
        EXPECT_EQ(std::memcmp(alone[i].data, grouped[i].data, alone[i].ByteSize()), 0)
            << DTypeName(ws[i].dtype) << " on " << threads
            << " threads: not the matmul's bits alone";
      }
    }
  }
}

// A group is checked whole before any of it runs: the first bad op is the answer.
TEST(CpuMatmul, AGroupWithABadOpRunsNothingAndNamesIt) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor w = NewTensor(cpu, DType::kF32, {64, 16, 1, 1}).value(),
         narrow = NewTensor(cpu, DType::kF32, {32, 16, 1, 1}).value();
  Tensor x = NewTensor(cpu, DType::kF32, {64, 1, 1, 1}).value(),
         a = NewTensor(cpu, DType::kF32, {16, 1, 1, 1}).value();
  Tensor b = NewTensor(cpu, DType::kF32, {16, 1, 1, 1}).value();
  std::memset(w.data, 0, w.ByteSize());
  std::memset(x.data, 0, x.ByteSize());
  std::memset(a.data, 0xff, a.ByteSize());
  Status s = RunOps(
      cpu, {Op{OpKind::kMatmul, {&w, &x}, &a, {}}, Op{OpKind::kMatmul, {&narrow, &x}, &b, {}}});
  EXPECT_EQ(s.message().rfind("Matmul: K differs", 0), 0u) << s.message();
  EXPECT_TRUE(std::isnan(static_cast<float*>(a.data)[0]))
      << "the good op ran before the bad one was seen";
}

}  // namespace
}  // namespace vt::cpu
