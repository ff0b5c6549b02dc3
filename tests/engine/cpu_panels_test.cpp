// f16 and bf16 weights as k-major panels of 16 rows (DType::kF16x16, kBF16x16, vt/quant.h,
// specs/engine-core.md):
// the layout and its way back, the AVX-512 panel kernel against one fused multiply-add chain
// per output in k order, and the CPU's Matmul over panels (Parity.*: run once per forced
// kernel set) against those chains or the plain rows' gemm.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"
#include "matmul_problem.h"
#include "vt/quant.h"

namespace vt::cpu {
namespace {

// 53 rows: three whole groups and five rows past them; K = 1037: odd, and three of the
// packed gemm's 512-deep slices.
constexpr int64_t kN = 53, kK = 1037;

std::vector<uint8_t> PanelsOf(const Problem& p) {
  std::vector<uint8_t> panels(p.w.size());
  Interleave(p.wtype, p.w.data(), panels.data(), p.N, p.K);
  return panels;
}

// out[m][n] as one fused multiply-add chain over k = 0 .. K - 1 from zero.
std::vector<float> FmaChains(const Problem& p) {
  std::vector<float> out(static_cast<size_t>(p.M * p.N));
  for (int64_t m = 0; m < p.M; ++m) {
    for (int64_t n = 0; n < p.N; ++n) {
      float acc = 0;
      for (int64_t k = 0; k < p.K; ++k) acc = std::fma(p.wf[n * p.K + k], p.x[m * p.K + k], acc);
      out[m * p.N + n] = acc;
    }
  }
  return out;
}

// The backend's Matmul of weights w of type t over the problem's rows, on two threads.
std::vector<float> MatmulOf(const std::vector<uint8_t>& w, DType t, const Problem& p) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor wt = NewTensor(cpu, t, {p.K, p.N, 1, 1}).value(),
         x = NewTensor(cpu, DType::kF32, {p.K, p.M, 1, 1}).value();
  Tensor out = NewTensor(cpu, DType::kF32, {p.N, p.M, 1, 1}).value();
  std::memcpy(wt.data, w.data(), w.size());
  std::memcpy(x.data, p.x.data(), p.x.size() * sizeof(float));
  ThreadPool pool(2);
  Matmul(Op{OpKind::kMatmul, {&wt, &x}, &out, {}}, pool);
  return {static_cast<const float*>(out.data), static_cast<const float*>(out.data) + p.M * p.N};
}

TEST(Quant, PanellingF16RestoresEveryRowBitForBit) {
  Problem p = MakeProblem(1, kK, kN, DType::kF16);
  const std::vector<uint8_t> panels = PanelsOf(p);
  const auto* v = reinterpret_cast<const uint16_t*>(panels.data());
  const auto* w = reinterpret_cast<const uint16_t*>(p.w.data());
  EXPECT_EQ(v[16 * kK + 2 * 16 + 1], w[17 * kK + 2]) << "row 17 at k = 2: group 1, its second row";
  EXPECT_EQ(v[48 * kK + 3 * 5 + 2], w[50 * kK + 3])
      << "row 50 at k = 3: past the groups, five rows per k";
  EXPECT_EQ(PanelIndex(kN, kK, 50, 3), 48 * kK + 3 * 5 + 2);
  std::vector<uint8_t> back(RowBytes(DType::kF16, kK) * 7);
  PlainRowsOf(DType::kF16x16, panels.data(), kN, kK, 46, kN,
              back.data());  // across the last group's end
  ASSERT_EQ(0, std::memcmp(back.data(), p.w.data() + 46 * RowBytes(DType::kF16, kK), back.size()));
  for (int64_t n = 0; n < kN; ++n) {
    PlainRowOf(DType::kF16x16, panels.data(), kN, kK, n, back.data());
    ASSERT_EQ(0, std::memcmp(back.data(), p.w.data() + n * RowBytes(DType::kF16, kK),
                             RowBytes(DType::kF16, kK)))
        << "row " << n;
  }
}

// The best set's panel kernel over columns [n0, n1) alone (the rest of the output left as it
// was): every output it writes is the fma chain, bit for bit, whatever M, for rows in whole
// groups and past them, and it writes nothing else.
TEST(CpuMatmul, APanelDecodeIsOneFmaChainPerRowInKOrder) {
  if (!BestKernels().panels) GTEST_SKIP() << BestKernels().name << " reads no panels";
  for (DType t : {DType::kF16, DType::kBF16})
    for (int64_t M : {1, 2, 3, 5, 8, 12, 13, 16, 21, 48}) {
      Problem p = MakeProblem(M, kK, kN, t);
      const std::vector<uint8_t> panels = PanelsOf(p);
      const std::vector<float> want = FmaChains(p);
      for (auto [n0, n1] : {std::pair<int64_t, int64_t>{16, 48}, {0, 16}, {32, kN}, {0, kN}}) {
        SCOPED_TRACE(std::string(DTypeName(t)) + " M=" + std::to_string(M) + " columns " +
                     std::to_string(n0) + ".." + std::to_string(n1));
        std::vector<float> out(want.size(), std::numeric_limits<float>::quiet_NaN());
        GemmArgs a{reinterpret_cast<const char*>(panels.data()),
                   InterleavedOf(t),
                   RowBytes(t, kK),
                   p.x.data(),
                   static_cast<size_t>(kK),
                   out.data(),
                   static_cast<size_t>(kN),
                   M,
                   kN,
                   kK};
        BestKernels().gemv(a, n0, n1);
        for (int64_t i = 0; i < M * kN; ++i) {
          const int64_t n = i % kN;
          if (n < n0 || n >= n1) {
            ASSERT_TRUE(std::isnan(out[i]))
                << "out[" << i / kN << "][" << n << "] is outside the range and was written";
          } else {
            ASSERT_EQ(out[i], want[i]) << "out[" << i / kN << "][" << n << "]";
          }
        }
      }
    }
}

// Through the CPU's Matmul with whichever set is best (ctest runs Parity.* once per forced
// set): where the set reads panels, decodes and short prompts (M <= kShortGemmRows) are the
// fma chains and longer prompts the packed gemm of the plain rows, bit for bit; where it does
// not, the plain rows' matmul whatever M (on the tile set, past kShortGemmRows the tile gemm
// of either, which packs both into the same bf16 tiles). bf16 with K even: the dot-product gemm of
// the avx512-bf16 set takes only whole pairs (odd K goes to the f32 gemm).
TEST(Parity, PanelMatmulsAreFmaChainsOrThePlainRowsMatmul) {
  for (DType t : {DType::kF16, DType::kBF16})
    for (int64_t M : {1, 4, 16, 17, 30, 48, 49, 100}) {
      SCOPED_TRACE(std::string(DTypeName(t)) + " M=" + std::to_string(M) + " " +
                   BestKernels().name);
      Problem p = MakeProblem(M, t == DType::kBF16 ? kK + 1 : kK, kN, t);
      // The tile set (specs/amx.md) takes every M past kShortGemmRows, panels or plain rows alike.
      const bool tiles = BestKernels().tile_gemm != nullptr && M > kShortGemmRows;
      const bool chains = BestKernels().panels && M <= kShortGemmRows && !tiles;
      const std::vector<float> want = chains ? FmaChains(p) : MatmulOf(p.w, t, p);
      const std::vector<float> got = MatmulOf(PanelsOf(p), InterleavedOf(t), p);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << "out[" << i / kN << "][" << i % kN << "]: not the "
                                   << (chains ? "fma chain" : "plain matmul");
      }
    }
}

}  // namespace
}  // namespace vt::cpu
