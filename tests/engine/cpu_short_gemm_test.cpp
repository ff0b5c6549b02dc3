// The short-prompt gemm (kShortGemmMinRows..kShortGemmRows activation rows, the AVX-512 set's
// short_gemm): its numbers against float64 for every such M, and which gemm the backend's
// Matmul takes for a short prompt.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/matmul_kernels.h"
#include "matmul_problem.h"

namespace vt::cpu {
namespace {

TEST(CpuMatmul, EveryKernelSetsShortGemmMatchesFloat64ForEveryShortPromptLength) {
  // Every M of the short-prompt range: 2 activation vectors up to 32 rows, 3 after, each with
  // padding lanes. K = 600: a 512-deep converted slice, then 88 (not a multiple of 16). K =
  // 3100 for the ends and the switch: past one chunk of the packed activations (2048 or 3072
  // deep), so later chunks add to the output. N = 67, columns 5..61: blocks of 12 or 8 rows
  // starting mid-matrix and a short last block.
  int sets = 0;
  for (const MatmulKernels* k : KernelSets()) {
    if (k->short_gemm == nullptr) continue;
    ++sets;
    for (DType wt : {DType::kF32, DType::kF16, DType::kBF16}) {
      for (int64_t m = kShortGemmMinRows; m <= kShortGemmRows; ++m) {
        bool ends = m == kShortGemmMinRows || m == 32 || m == 33 || m == kShortGemmRows;
        Problem p = MakeProblem(m, ends ? 3100 : 600, 67, wt);
        SCOPED_TRACE(std::string(k->name) + " " + std::string(DTypeName(wt)) +
                     " M=" + std::to_string(m) + " K=" + std::to_string(p.K));
        Check(*k, p, 5, 61, Path::kShort);
      }
    }
  }
  if (sets == 0) GTEST_SKIP() << "no kernel set of this CPU has a short-prompt gemm (AVX-512's)";
}

// The model's matmuls take the short-prompt gemm where the best set has one: through the
// backend's Matmul on two threads, a 32-row f16 product equals the set's short gemm on one
// thread bit for bit. K = 1100 tells them from the packed gemm, which adds its 512-deep
// slices' sums into the output where the short gemm sums the whole K in one register.
TEST(CpuMatmul, AShortPromptsMatmulIsTheShortGemmsBitForBit) {
  const MatmulKernels& best = BestKernels();
  if (best.short_gemm == nullptr) GTEST_SKIP() << best.name << " has no short-prompt gemm";
  const int64_t M = 32, K = 1100, N = 300;
  Problem p = MakeProblem(M, K, N, DType::kF16);
  std::vector<float> got = BackendMatmul(p, 2), want(static_cast<size_t>(M * N)), panel;
  GemmArgs a = ArgsOf(p, want.data());
  best.short_gemm(a, best.pack_short(a, &panel), 0, N);
  for (int64_t i = 0; i < M * N; ++i) {
    ASSERT_EQ(got[static_cast<size_t>(i)], want[static_cast<size_t>(i)])
        << "row " << i / N << " column " << i % N << ": not the short gemm's number";
  }
}

// Where the best set's gemm of bf16 weights is its fastest (AVX512_BF16's dot product), a
// short prompt of bf16 weights stays on it: the backend's two-thread Matmul of 32 rows equals
// that gemm's numbers on one thread bit for bit (the activations rounded to bf16 as it does).
TEST(CpuMatmul, ABf16ShortPromptTakesTheBf16DotGemmWhereTheSetHasIt) {
  const MatmulKernels& best = BestKernels();
  if (best.dequantize_bf16 == nullptr) GTEST_SKIP() << best.name << " has no bf16 dot-product gemm";
  const int64_t M = 32, K = 1100, N = 300;
  Problem p = MakeProblem(M, K, N, DType::kBF16);
  std::vector<float> got = BackendMatmul(p, 2), want(static_cast<size_t>(M * N)),
                     scratch(kGemmScratchFloats + 16);
  float* aligned =
      reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  best.gemm(ArgsOf(p, want.data()), 0, N, aligned);
  for (int64_t i = 0; i < M * N; ++i) {
    ASSERT_EQ(got[static_cast<size_t>(i)], want[static_cast<size_t>(i)])
        << "row " << i / N << " column " << i % N << ": not the bf16 gemm's number";
  }
}

}  // namespace
}  // namespace vt::cpu
