// Q4_0, MXFP4 and Q4_K rows interleaved in groups of 16 (DType::kQ4_0x16, kMXFP4x16, kQ4_Kx16, vt/quant.h),
// f16 and bf16 rows as k-major panels of 16 (kF16x16, kBF16x16), and back. The CPU's decode reads one 64-byte
// chunk for 16 rows at once (cpu/q4_0x16_avx512.cpp, q4_kx16_avx512.cpp, panels_avx512.cpp);
// every other reader takes a row back in plain order.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/quant_blocks.h"
#include "vt/quant.h"

namespace vt {
namespace {

// Where block b's byte `i` (the first `s` the scale: 2 for Q4_0, 1 for MXFP4; then 16 nibble
// bytes) of row r of a group lies in the group.
size_t InGroup(int64_t b, int64_t r, size_t i, size_t s) {
  const size_t base = static_cast<size_t>(b) * 16 * (s + 16);
  if (i < s) return base + s * static_cast<size_t>(r) + i;
  const size_t q = i - s;  // nibble byte 0..15
  return base + 16 * s + 64 * (q / 4) + 4 * static_cast<size_t>(r) + q % 4;
}

// Q4_0 and MXFP4 (`plain`): blocks of a scale and the same 16 nibble bytes.
void InterleaveNibbleBlocks(DType plain, const void* src, void* dst, int64_t N, int64_t K) {
  const auto* from = static_cast<const uint8_t*>(src);
  auto* to = static_cast<uint8_t*>(dst);
  const size_t row_bytes = RowBytes(plain, K), s = plain == DType::kQ4_0 ? 2 : 1, block = s + 16;
  const int64_t blocks = K / 32, grouped = N / kInterleavedRows * kInterleavedRows;
  for (int64_t n = 0; n < grouped; ++n) {
    uint8_t* group = to + static_cast<size_t>(n / kInterleavedRows * kInterleavedRows) * row_bytes;
    const uint8_t* row = from + static_cast<size_t>(n) * row_bytes;
    for (int64_t b = 0; b < blocks; ++b) {
      // Four bytes at a time: a chunk's four bytes of a row are adjacent in both orders.
      std::memcpy(group + InGroup(b, n % kInterleavedRows, 0, s), row + b * block, s);
      for (size_t q = 0; q < 16; q += 4) std::memcpy(group + InGroup(b, n % kInterleavedRows, s + q, s), row + b * block + s + q, 4);
    }
  }
  std::memcpy(to + static_cast<size_t>(grouped) * row_bytes, from + static_cast<size_t>(grouped) * row_bytes,
              static_cast<size_t>(N - grouped) * row_bytes);
}

void PlainRowOfNibbleBlocks(DType plain, const void* src, int64_t N, int64_t K, int64_t n, void* dst) {
  const auto* from = static_cast<const uint8_t*>(src);
  auto* to = static_cast<uint8_t*>(dst);
  const size_t row_bytes = RowBytes(plain, K), s = plain == DType::kQ4_0 ? 2 : 1, block = s + 16;
  if (n >= N / kInterleavedRows * kInterleavedRows) {
    std::memcpy(to, from + static_cast<size_t>(n) * row_bytes, row_bytes);
    return;
  }
  const uint8_t* group = from + static_cast<size_t>(n / kInterleavedRows * kInterleavedRows) * row_bytes;
  for (int64_t b = 0; b < K / 32; ++b) {
    std::memcpy(to + b * block, group + InGroup(b, n % kInterleavedRows, 0, s), s);
    for (size_t q = 0; q < 16; q += 4) std::memcpy(to + b * block + s + q, group + InGroup(b, n % kInterleavedRows, s + q, s), 4);
  }
}

}  // namespace

void InterleaveQ4_0(const void* src, void* dst, int64_t N, int64_t K) { InterleaveNibbleBlocks(DType::kQ4_0, src, dst, N, K); }
void InterleaveMXFP4(const void* src, void* dst, int64_t N, int64_t K) { InterleaveNibbleBlocks(DType::kMXFP4, src, dst, N, K); }

void PlainRowOfQ4_0x16(const void* src, int64_t N, int64_t K, int64_t n, void* dst) {
  PlainRowOfNibbleBlocks(DType::kQ4_0, src, N, K, n, dst);
}
void PlainRowOfMXFP4x16(const void* src, int64_t N, int64_t K, int64_t n, void* dst) {
  PlainRowOfNibbleBlocks(DType::kMXFP4, src, N, K, n, dst);
}

namespace {

constexpr size_t kSuperBlock = 144;  // a Q4_K super-block: d, dmin, 12 scale bytes, 128 nibble bytes

// 128 six-bit values in the 96 bytes vt/quant.h describes, and back.
void Pack6(const uint8_t v[128], uint8_t* out) {
  for (int k = 0; k < 64; ++k) out[k] = static_cast<uint8_t>((v[k] & 0xF) | (v[k + 64] & 0xF) << 4);
  for (int k = 0; k < 32; ++k) {
    out[64 + k] = static_cast<uint8_t>((v[k] >> 4) | (v[k + 32] >> 4) << 2 | (v[k + 64] >> 4) << 4 | (v[k + 96] >> 4) << 6);
  }
}

void Unpack6(const uint8_t* in, uint8_t v[128]) {
  for (int k = 0; k < 128; ++k) {
    const int low = (in[k % 64] >> (k < 64 ? 0 : 4)) & 0xF;
    v[k] = static_cast<uint8_t>(low | ((in[64 + k % 32] >> (2 * (k / 32))) & 3) << 4);
  }
}

int ScaleIndex(int j, int r) { return 16 * j + r; }
int MinIndex(int j, int r) { return 32 * (j / 2) + 2 * r + j % 2; }

// Super-block b of the 16 plain rows at `rows` (row_bytes apart) into its 2304 bytes at `to`.
void InterleaveSuperBlock(const uint8_t* rows, size_t row_bytes, int64_t b, uint8_t* to) {
  uint8_t scales[128], mins[128];
  for (int r = 0; r < 16; ++r) {
    const uint8_t* block = rows + r * row_bytes + b * kSuperBlock;
    std::memcpy(to + 2 * r, block, 2);
    std::memcpy(to + 32 + 2 * r, block + 2, 2);
    for (int j = 0; j < 8; ++j) quant::ScaleMinK4(j, block + 4, &scales[ScaleIndex(j, r)], &mins[MinIndex(j, r)]);
    for (int p = 0; p < 4; ++p) {
      for (int c = 0; c < 8; ++c) std::memcpy(to + 256 + 512 * p + 64 * c + 4 * r, block + 16 + 32 * p + 4 * c, 4);
    }
  }
  Pack6(scales, to + 64);
  Pack6(mins, to + 160);
}

}  // namespace

void InterleaveQ4_K(const void* src, void* dst, int64_t N, int64_t K) {
  const auto* from = static_cast<const uint8_t*>(src);
  auto* to = static_cast<uint8_t*>(dst);
  const size_t row_bytes = RowBytes(DType::kQ4_K, K);
  const int64_t grouped = N / kInterleavedRows * kInterleavedRows;
  for (int64_t g = 0; g < grouped; g += kInterleavedRows) {
    for (int64_t b = 0; b < K / 256; ++b) {
      InterleaveSuperBlock(from + g * row_bytes, row_bytes, b, to + g * row_bytes + b * kInterleavedSuperBlockBytes);
    }
  }
  std::memcpy(to + grouped * row_bytes, from + grouped * row_bytes, static_cast<size_t>(N - grouped) * row_bytes);
}

void PlainRowOfQ4_Kx16(const void* src, int64_t N, int64_t K, int64_t n, void* dst) {
  PlainRowsOf(DType::kQ4_Kx16, src, N, K, n, n + 1, dst);
}

namespace {

// Rows [n0, n1) of one group of a q4_Kx16 matrix (the group starting at row g) in plain
// order at dst: each super-block's scales and mins unpacked once for all of them, where a
// row at a time unpacked them once per row (a prompt's gemm puts every row back).
void PlainRowsOfQ4_KGroup(const uint8_t* group, int64_t K, int64_t g, int64_t n0, int64_t n1, uint8_t* dst) {
  const size_t row_bytes = RowBytes(DType::kQ4_K, K);
  for (int64_t b = 0; b < K / 256; ++b) {
    const uint8_t* sb = group + b * kInterleavedSuperBlockBytes;
    uint8_t scales[128], mins[128];
    Unpack6(sb + 64, scales);
    Unpack6(sb + 160, mins);
    for (int64_t n = n0; n < n1; ++n) {
      const int r = static_cast<int>(n - g);
      uint8_t* block = dst + (n - n0) * row_bytes + b * kSuperBlock;
      std::memcpy(block, sb + 2 * r, 2);
      std::memcpy(block + 2, sb + 32 + 2 * r, 2);
      int ls[8], lm[8];
      for (int j = 0; j < 8; ++j) ls[j] = scales[ScaleIndex(j, r)], lm[j] = mins[MinIndex(j, r)];
      quant::PackScaleMinK4(ls, lm, block + 4);
      for (int p = 0; p < 4; ++p) {
        for (int c = 0; c < 8; ++c) std::memcpy(block + 16 + 32 * p + 4 * c, sb + 256 + 512 * p + 64 * c + 4 * r, 4);
      }
    }
  }
}

}  // namespace

void InterleavePanels(const void* src, void* dst, int64_t N, int64_t K) {
  const auto* from = static_cast<const uint16_t*>(src);
  auto* to = static_cast<uint16_t*>(dst);
  for (int64_t g = 0; g < N; g += kInterleavedRows) {  // each group written in order, its rows read in step
    const int64_t rows = std::min(kInterleavedRows, N - g);
    for (int64_t k = 0; k < K; ++k) {
      for (int64_t j = 0; j < rows; ++j) to[g * K + k * rows + j] = from[(g + j) * K + k];
    }
  }
}

// Written in order (TileIndex's), the 16 rows of a group read in step; f16 rounded to bf16
// through a table of every f16's bf16 (a conversion per value was most of a load's time).
void PackTiles(DType plain, const void* src, void* dst, int64_t N, int64_t K) {
  std::vector<uint16_t> bf16(plain == DType::kF16 ? 65536 : 0);
  for (size_t h = 0; h < bf16.size(); ++h) bf16[h] = F32ToBF16(F16ToF32(static_cast<uint16_t>(h)));
  const auto* from = static_cast<const uint16_t*>(src);
  auto* to = static_cast<uint16_t*>(dst);
  for (int64_t g = 0; g < N; g += 16) {
    for (int64_t t = 0; t < K; t += 32) {
      for (int64_t p = 0; p < 32; p += 2) {
        for (int64_t j = 0; j < 16; ++j) {
          const uint16_t* v = from + (g + j) * K + t + p;
          *to++ = bf16.empty() ? v[0] : bf16[v[0]];
          *to++ = bf16.empty() ? v[1] : bf16[v[1]];
        }
      }
    }
  }
}

void PlainRowsOf(DType t, const void* src, int64_t N, int64_t K, int64_t n0, int64_t n1, void* dst) {
  if (IsTiles(t)) {
    const auto* from = static_cast<const uint16_t*>(src);
    auto* to = static_cast<uint16_t*>(dst);
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t k = 0; k < K; ++k) to[(n - n0) * K + k] = from[TileIndex(K, n, k)];
    }
    return;
  }
  if (IsPanels(t)) {
    const auto* from = static_cast<const uint16_t*>(src);
    auto* to = static_cast<uint16_t*>(dst);
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t k = 0; k < K; ++k) to[(n - n0) * K + k] = from[PanelIndex(N, K, n, k)];
    }
    return;
  }
  const auto* from = static_cast<const uint8_t*>(src);
  auto* to = static_cast<uint8_t*>(dst);
  const size_t row_bytes = RowBytes(PlainOf(t), K);
  const int64_t grouped = t == DType::kQ4_Kx16 ? N / kInterleavedRows * kInterleavedRows : 0;
  for (int64_t n = n0; n < n1;) {
    if (n >= grouped) {  // plain rows, or Q4_0's (a row's blocks are copies, nothing to unpack)
      if (t == DType::kQ4_0x16) PlainRowOfQ4_0x16(src, N, K, n, to + (n - n0) * row_bytes);
      else if (t == DType::kMXFP4x16) PlainRowOfMXFP4x16(src, N, K, n, to + (n - n0) * row_bytes);
      else std::memcpy(to + (n - n0) * row_bytes, from + n * row_bytes, row_bytes);
      ++n;
      continue;
    }
    const int64_t g = n / kInterleavedRows * kInterleavedRows, ne = std::min(n1, g + kInterleavedRows);
    PlainRowsOfQ4_KGroup(from + g * row_bytes, K, g, n, ne, to + (n - n0) * row_bytes);
    n = ne;
  }
}

void Interleave(DType plain, const void* src, void* dst, int64_t N, int64_t K) {
  if (plain == DType::kQ4_0) InterleaveQ4_0(src, dst, N, K);
  else if (plain == DType::kQ4_K) InterleaveQ4_K(src, dst, N, K);
  else if (plain == DType::kMXFP4) InterleaveMXFP4(src, dst, N, K);
  else if (IsPanels(InterleavedOf(plain))) InterleavePanels(src, dst, N, K);
  else std::memcpy(dst, src, RowBytes(plain, K) * static_cast<size_t>(N));
}

void PlainRowOf(DType t, const void* src, int64_t N, int64_t K, int64_t n, void* dst) { PlainRowsOf(t, src, N, K, n, n + 1, dst); }

}  // namespace vt
