// Which matmul kernel set the CPU backend runs, as the tools report it (vt-bench's `kernels`
// setting, vt-run -v): the set asked for with VT_MATMUL, the one resolved on this CPU, and why
// they differ (specs/amx.md).
#pragma once

#include <string>

namespace vt {

struct CpuKernelsInfo {
  std::string requested;  // VT_MATMUL's value, or "auto (default)"
  std::string resolved;   // the set that runs: amx, avx512-bf16, avx512, avx2 or generic
  std::string why;        // why a better set does not run (e.g. the kernel refused AMX); may be empty
};

CpuKernelsInfo CpuKernels();

// The fewest activation rows a matmul needs to go to the tiles (the amx set, specs/amx.md)
// by default: smaller steps are the decode's and short prompts' kernels. (Where batch
// invariance is kept, f16 and bf16 weights held in tile order take every step there.)
inline constexpr int kCpuTileMinRows = 49;

// Leaves the amx set's tile gemm of weights packed per call out of the CPU's default choice,
// for a program whose requests must get the same tokens alone, batched, speculated or
// preempted (vt-serve): a row of such a step past 48 rows is rounded to bf16 there and not in a
// smaller step. f16 and bf16 weights held in tile order run on the tiles in every step, so they
// stay. VT_MATMUL=amx still asks for the rest. Call before the first matmul and before loading
// weights; later calls change nothing.
void KeepBatchInvariantKernels();

}  // namespace vt
