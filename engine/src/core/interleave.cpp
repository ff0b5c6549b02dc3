// Q4_0 rows interleaved in groups of 16 (DType::kQ4_0x16, vt/quant.h) and back. The CPU's
// decode reads one 64-byte chunk for 16 rows at once (cpu/q4_0x16_avx512.cpp); every other
// reader takes a row back in plain order.
#include <cstring>

#include "vt/quant.h"

namespace vt {
namespace {

constexpr size_t kBlock = 18;  // a Q4_0 block: f16 scale, 16 nibble bytes

// Where block b's byte `i` (0-1 scale, 2-17 nibbles) of row r of a group lies in the group.
size_t InGroup(int64_t b, int64_t r, size_t i) {
  const size_t base = static_cast<size_t>(b) * kInterleavedBlockBytes;
  if (i < 2) return base + 2 * static_cast<size_t>(r) + i;
  const size_t q = i - 2;  // nibble byte 0..15
  return base + 32 + 64 * (q / 4) + 4 * static_cast<size_t>(r) + q % 4;
}

}  // namespace

void InterleaveQ4_0(const void* src, void* dst, int64_t N, int64_t K) {
  const auto* from = static_cast<const uint8_t*>(src);
  auto* to = static_cast<uint8_t*>(dst);
  const size_t row_bytes = RowBytes(DType::kQ4_0, K);
  const int64_t blocks = K / 32, grouped = N / kInterleavedRows * kInterleavedRows;
  for (int64_t n = 0; n < grouped; ++n) {
    uint8_t* group = to + static_cast<size_t>(n / kInterleavedRows * kInterleavedRows) * row_bytes;
    const uint8_t* row = from + static_cast<size_t>(n) * row_bytes;
    for (int64_t b = 0; b < blocks; ++b) {
      // Four bytes at a time: a chunk's four bytes of a row are adjacent in both orders.
      std::memcpy(group + InGroup(b, n % kInterleavedRows, 0), row + b * kBlock, 2);
      for (size_t q = 0; q < 16; q += 4) std::memcpy(group + InGroup(b, n % kInterleavedRows, 2 + q), row + b * kBlock + 2 + q, 4);
    }
  }
  std::memcpy(to + static_cast<size_t>(grouped) * row_bytes, from + static_cast<size_t>(grouped) * row_bytes,
              static_cast<size_t>(N - grouped) * row_bytes);
}

void PlainRowOfQ4_0x16(const void* src, int64_t N, int64_t K, int64_t n, void* dst) {
  const auto* from = static_cast<const uint8_t*>(src);
  auto* to = static_cast<uint8_t*>(dst);
  const size_t row_bytes = RowBytes(DType::kQ4_0, K);
  if (n >= N / kInterleavedRows * kInterleavedRows) {
    std::memcpy(to, from + static_cast<size_t>(n) * row_bytes, row_bytes);
    return;
  }
  const uint8_t* group = from + static_cast<size_t>(n / kInterleavedRows * kInterleavedRows) * row_bytes;
  for (int64_t b = 0; b < K / 32; ++b) {
    std::memcpy(to + b * kBlock, group + InGroup(b, n % kInterleavedRows, 0), 2);
    for (size_t q = 0; q < 16; q += 4) std::memcpy(to + b * kBlock + 2 + q, group + InGroup(b, n % kInterleavedRows, 2 + q), 4);
  }
}

}  // namespace vt
