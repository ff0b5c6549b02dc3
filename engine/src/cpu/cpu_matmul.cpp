#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"

namespace vt::cpu {

void GemmRange(const GemmArgs& a, int64_t n0, int64_t n1) {
  const MatmulKernels& kernels = BestKernels();
  if (a.M <= kGemvMaxRows) {
    kernels.gemv(a, n0, n1);
    return;
  }
  // Per thread, kept across calls: a fresh block of a megabyte per call would be mapped and
  // faulted in every time. Panels are loaded with aligned loads: start on a 64-byte boundary.
  thread_local std::vector<float> scratch(kGemmScratchFloats + 16);
  float* aligned = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  kernels.gemm(a, n0, n1, aligned);
}

// Each thread takes a range of output columns (weight rows) for every batch; weights are
// broadcast over the batch as ggml does (w batch = x batch / ratio).
void Matmul(const Op& op, ThreadPool& pool) {
  const Tensor &w = *op.src[0], &x = *op.src[1];
  Tensor& out = *op.out;
  int64_t r2 = x.ne[2] / w.ne[2], r3 = x.ne[3] / w.ne[3];
  for (int64_t i3 = 0; i3 < x.ne[3]; ++i3) {
    for (int64_t i2 = 0; i2 < x.ne[2]; ++i2) {
      GemmArgs a{static_cast<const char*>(w.data) + (i2 / r2) * w.nb[2] + (i3 / r3) * w.nb[3],
                 w.dtype,
                 w.nb[1],
                 x.Row<const float>(0, i2, i3),
                 x.nb[1] / sizeof(float),
                 out.Row<float>(0, i2, i3),
                 out.nb[1] / sizeof(float),
                 x.ne[1],
                 w.ne[1],
                 w.ne[0]};
      pool.ParallelFor(a.N, a.M <= kGemvMaxRows ? 16 : kNR,
                       [&](int64_t n0, int64_t n1, int) { GemmRange(a, n0, n1); });
    }
  }
}

}  // namespace vt::cpu
