// The walk shared by the decodes of interleaved weights (cpu/q4_0x16_avx512.cpp,
// q4_kx16_avx512.cpp): a thread's columns [n0, n1) as groups of 16 rows, the partial ones
// (the range's ends, the rows past the last whole group) gathered into a zero-padded group.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/matmul_kernels.h"
#include "cpu/quant_acts.h"
#include "vt/quant.h"

namespace vt::cpu {

// f(group bytes, first column, columns to store) for each group; f stores the first
// `count` of the group's 16 outputs at column `nb` and leaves the others alone.
template <class F>
void ForEachInterleavedGroup(const GemmArgs& a, int64_t n0, int64_t n1, F&& f) {
  const int64_t grouped = a.N / kInterleavedRows * kInterleavedRows;
  for (int64_t nb = n0; nb < n1;) {
    const int64_t ne = std::min(n1, (nb / kInterleavedRows + 1) * kInterleavedRows);
    const bool whole = nb % kInterleavedRows == 0 && ne - nb == kInterleavedRows && ne <= grouped;
    const uint8_t* g = whole ? reinterpret_cast<const uint8_t*>(a.w + nb * a.w_stride) : GatherGroup(a, nb, ne);
    f(g, nb, static_cast<int>(ne - nb));
    nb = ne;
  }
}

// f(rows, group bytes, first activation row, out, count) for each group and each tile of up
// to four activation rows (`rows`: std::integral_constant, so a kernel's accumulators stay in
// registers); f stores the tile's outputs for the group's first `count` rows at `out`.
template <class F>
void ForEachGroupTile(const GemmArgs& a, int64_t n0, int64_t n1, F&& f) {
  ForEachInterleavedGroup(a, n0, n1, [&](const uint8_t* g, int64_t nb, int count) {
    for (int64_t m0 = 0; m0 < a.M; m0 += 4) {
      WithRowCount(static_cast<int>(std::min<int64_t>(4, a.M - m0)),
                   [&](auto rows) { f(rows, g, m0, a.out + m0 * a.out_stride + nb, count); });
    }
  });
}

}  // namespace vt::cpu
