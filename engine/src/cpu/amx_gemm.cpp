// The amx kernel set: the AVX-512 set with its gemm of f32, f16, bf16 and block-type weights on
// Intel's tile registers (specs/amx.md). One TDPBF16PS multiplies a 16 x 32 tile of bf16 activations by a
// 32 x 16 tile of bf16 weight pairs into 16 x 16 f32 sums: 16,384 flops, where an AVX-512 FMA
// does 32. The activations are rounded to bf16 once per matmul (tile_activations, rows and K
// zero-padded to multiples of 32, so every tile is a whole 16 x 64 bytes and one configuration
// serves every call); the weights are rounded to bf16 as a thread packs a block of them into
// tile order (block types dequantized to f32 first: bf16 tiles for every type, where int8
// tiles would need a scale per 32 k). Only the model's matmuls (OpKind::kMatmul) run here: the set's `gemm`, which
// attention's scores and weighted values reach through GemmRange, stays the AVX-512 set's f32
// gemm (a score rounded to bf16 moves softmax by up to 2^-8 of its logit: NMSE 1.8e-5
// on the attention parity tests, where f32 weights' matmuls measure 4.5e-6). Compiled with the
// AMX flags and called only where GrantAmx() said yes.
#include <immintrin.h>

#include <cstring>
#include <vector>

#include "cpu/amx_grant.h"
#include "cpu/avx512_tile.h"
#include "cpu/matmul_kernels.h"
#include "vt/quant.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's _mm512_undefined_ps (bug 105593)

namespace vt::cpu {
namespace {

constexpr int kTileBytes = 1024;   // 16 rows of 64 bytes
constexpr int64_t kBlockCols = 128;  // weight columns packed at once: four pairs of B tiles
constexpr int64_t kBlockDepth = 2048;  // k values packed at once: 512 KiB of tiles per block (L2)
// A decode's B tiles are fetched this many k tiles ahead: tile loads streaming from memory
// alone ran the 2048-wide f16 model's decode at 47-49 tokens/s on 2 threads, 58-64 with this.
constexpr int64_t kPrefetchTiles = 4;

struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Every tile 16 rows of 64 bytes, for this thread until TILERELEASE; with `rows` < 16 (a
// decode's few activation rows), tiles 0-4 (the sums and the activations) that many rows.
void ConfigureTiles(int rows = 16) {
  TileConfig c;
  for (int t = 0; t < 8; ++t) c.colsb[t] = 64, c.rows[t] = static_cast<uint8_t>(t <= 4 ? rows : 16);
  _tile_loadconfig(&c);
}

// 32 values of k from `at` (valid lanes: `left`) as bf16 pairs rounded to nearest even, as
// sixteen 32-bit words: word p = (value 2p, value 2p + 1).
template <DType T>
inline __m512i PairsOfRow(const char* at, int64_t left) {
  // A bf16 value widened to f32 converts back exactly, so one conversion serves every type.
  const __m512 lo = LoadAs<T>(at, 0, TailMask(left)), hi = LoadAs<T>(at, 16, TailMask(left - 16 > 0 ? left - 16 : 0));
  __m512bh pairs = _mm512_cvtne2ps_pbh(hi, lo);
  return reinterpret_cast<__m512i&>(pairs);
}

// One B tile from plain rows: columns [n, n + cols) (cols <= 16, the rest zero), k [k, k + 32).
// Row j's 16 pairs are a row of words; the tile wants them as its column j: a transpose.
template <DType T>
void PackPlainTile(const GemmArgs& a, int64_t n, int cols, int64_t k, uint32_t* tile) {
  __m512 r[16];
  for (int j = 0; j < 16; ++j) {
    const char* row = a.w + (n + j) * a.w_stride + k * (T == DType::kF32 ? 4 : 2);
    r[j] = j < cols ? _mm512_castsi512_ps(PairsOfRow<T>(row, a.K - k)) : _mm512_setzero_ps();
  }
  Transpose16(r);
  for (int p = 0; p < 16; ++p) _mm512_store_ps(tile + 16 * p, r[p]);
}

// One B tile from k-major panels (vt/quant.h): group of rows from n (n a multiple of 16), its
// 16 values at k next to its 16 at k + 1 give the tile's row of pairs directly.
template <DType T>
void PackPanelTile(const GemmArgs& a, int64_t n, int64_t k, uint32_t* tile) {
  const int rows = static_cast<int>(Min(kInterleavedRows, a.N - n));
  const uint16_t* at = reinterpret_cast<const uint16_t*>(a.w) + n * a.K;
  const __mmask16 mask = TailMask(rows);
  for (int p = 0; p < 16; ++p) {
    const int64_t k0 = k + 2 * p;
    __m512i word = _mm512_setzero_si512();
    for (int half = 0; half < 2 && k0 + half < a.K; ++half) {
      const __m256i v = _mm256_maskz_loadu_epi16(mask, at + (k0 + half) * rows);
      __m256i bits = v;
      if constexpr (T == DType::kF16x16) {
        __m256bh rounded = _mm512_cvtneps_pbh(_mm512_cvtph_ps(v));
        bits = reinterpret_cast<__m256i&>(rounded);
      }
      word = _mm512_or_si512(word, _mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16 * half));
    }
    _mm512_store_si512(tile + 16 * p, word);
  }
}

void PackTile(const GemmArgs& a, int64_t n, int cols, int64_t k, uint32_t* tile) {
  if (cols <= 0) {
    std::memset(tile, 0, kTileBytes);
    return;
  }
  switch (a.wtype) {
    case DType::kF16x16: PackPanelTile<DType::kF16x16>(a, n, k, tile); break;
    case DType::kBF16x16: PackPanelTile<DType::kBF16x16>(a, n, k, tile); break;
    case DType::kF16: PackPlainTile<DType::kF16>(a, n, cols, k, tile); break;
    case DType::kBF16: PackPlainTile<DType::kBF16>(a, n, cols, k, tile); break;
    default: PackPlainTile<DType::kF32>(a, n, cols, k, tile); break;
  }
}

// Block-type weights (specs/quantized.md's types, plain or interleaved): each 16 rows' k block
// dequantized to f32 (the AVX-512 set's values, which are the portable code's bit for bit), then
// packed as f32 rows are. `plain` holds the column block's rows in plain order when the weights
// are interleaved (put back once per column block, PlainRowsOf); `rows` the 16 dequantized rows.
struct BlockTypeScratch {
  std::vector<uint8_t> plain;
  std::vector<float> rows;
};

void PlainBlockRows(const GemmArgs& a, int64_t nb, int64_t ne, BlockTypeScratch* s) {
  if (!IsInterleaved(a.wtype)) return;
  s->plain.resize(static_cast<size_t>(ne - nb) * RowBytes(PlainOf(a.wtype), a.K));
  PlainRowsOf(a.wtype, a.w, a.N, a.K, nb, ne, s->plain.data());
}

// The tiles of rows [n, n + cols) (cols <= 16) over k [k0, k0 + 32 kts) at `tiles` (kts tiles,
// one per 32 k, each 2 tiles apart: TileAt's order for one half of a sub-block).
void PackBlockTypeTiles(const GemmArgs& a, int64_t nb, int64_t n, int cols, int64_t k0, int64_t kts, uint32_t* tiles,
                        BlockTypeScratch* s) {
  const DType type = PlainOf(a.wtype);
  const int64_t kc = Min(32 * kts, a.K - k0);
  const size_t row_bytes = RowBytes(type, a.K);
  s->rows.resize(static_cast<size_t>(16 * 32 * kts));
  for (int j = 0; j < cols; ++j) {
    const char* row = IsInterleaved(a.wtype) ? reinterpret_cast<const char*>(s->plain.data()) + (n + j - nb) * row_bytes
                                             : a.w + (n + j) * a.w_stride;
    float* to = s->rows.data() + j * 32 * kts;
    if (!DequantizeRowAvx512(type, row + RowBytes(type, k0), to, kc)) DequantizeRow(type, row + RowBytes(type, k0), to, kc);
  }
  const GemmArgs f{reinterpret_cast<const char*>(s->rows.data()), DType::kF32, static_cast<size_t>(32 * kts) * sizeof(float),
                   nullptr, 0, nullptr, 0, a.M, cols, kc};
  for (int64_t kt = 0; kt < kts; ++kt) PackPlainTile<DType::kF32>(f, 0, cols, 32 * kt, tiles + kt * 2 * (kTileBytes / 4));
}

// Where the tiles of columns [nb + 32 s, nb + 32 s + 32) and k tile kt of a packed block lie:
// each pair of B tiles for one k tile is contiguous, so a 32-column sub-block streams.
inline uint32_t* TileAt(uint32_t* block, int64_t kts, int64_t s, int64_t kt, int half) {
  return block + ((s * kts + kt) * 2 + half) * (kTileBytes / 4);
}

// The activations in tile order: each 16 rows by 32 k values one contiguous kilobyte, the k
// tiles of a row block one after another. Rows a K apart would be 4 KiB apart at K = 2048,
// all in one set of the L1 cache: an A tile of 16 such rows missed every load (TileGemm at
// 40% of the time in the A tiles' loads); contiguous, a load is 16 lines in a row.
template <typename T>
inline T* ActivationTile(T* xb, int64_t kp, int64_t m, int64_t k) {
  return xb + ((m / 16) * (kp / 32) + k / 32) * 512;
}

// One 16 x 16 output tile: rows [m, m + rows) and columns [n, n + cols) of out. A whole tile
// is read and written in place; an edge tile through `edge`. GCC's tile intrinsics paste their
// register number into the assembly text, so the tile ops themselves take literal numbers in
// Block32 and these only say where.
struct CPlace {
  float* at;
  size_t stride;  // bytes
};

inline bool Whole(int rows, int cols) { return rows == 16 && cols == 16; }

// Where a later k block reads the tile's sums from: out itself, or a copy of its part in `edge`.
CPlace SumsSoFar(const GemmArgs& a, int64_t m, int64_t n, int rows, int cols, float* edge) {
  if (Whole(rows, cols)) return {a.out + m * a.out_stride + n, a.out_stride * sizeof(float)};
  std::memset(edge, 0, 16 * 16 * sizeof(float));
  for (int i = 0; i < rows; ++i) std::memcpy(edge + 16 * i, a.out + (m + i) * a.out_stride + n, Max0(cols) * sizeof(float));
  return {edge, 64};
}

// Where the tile is stored: out itself, or `edge`, whose part PutEdge then copies out.
CPlace StoreTo(const GemmArgs& a, int64_t m, int64_t n, int rows, int cols, float* edge) {
  if (Whole(rows, cols)) return {a.out + m * a.out_stride + n, a.out_stride * sizeof(float)};
  return {edge, 64};
}

void PutEdge(const GemmArgs& a, int64_t m, int64_t n, int rows, int cols, const float* edge) {
  if (Whole(rows, cols)) return;
  for (int i = 0; i < rows; ++i) std::memcpy(a.out + (m + i) * a.out_stride + n, edge + 16 * i, Max0(cols) * sizeof(float));
}

// The B tiles of a 32-column block: the first 16 columns' tile for the first k tile at b0, the
// next 16 columns' at b1, each later k tile `step` words on (a packed block interleaves the
// two halves; weights in tile order keep each group's tiles in a row).
struct BTiles {
  const uint32_t *b0, *b1;
  int64_t step;
};

// Rows [m, m + 32) by columns [n, n + 32) over kts k tiles from k0.
// Tiles: 0..3 accumulate the 2 x 2 outputs, 4 and 5 hold 32 activation rows' 32 k values, 6
// and 7 32 k of the 32 weight columns.
void Block32(const GemmArgs& a, const uint16_t* xb, int64_t kp, BTiles b, int64_t m, int64_t n, int64_t cols,
             int64_t k0, int64_t kts, float* edge) {
  const int r0 = static_cast<int>(Min(16, a.M - m)), r1 = static_cast<int>(Min(16, a.M - m - 16));
  const int c0 = static_cast<int>(Min(16, cols)), c1 = static_cast<int>(Min(16, cols - 16));
  if (k0 == 0) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  } else {
    CPlace p = SumsSoFar(a, m, n, r0, c0, edge);
    _tile_loadd(0, p.at, p.stride);
    p = SumsSoFar(a, m, n + 16, r0, c1, edge);
    _tile_loadd(1, p.at, p.stride);
    p = SumsSoFar(a, m + 16, n, r1, c0, edge);
    _tile_loadd(2, p.at, p.stride);
    p = SumsSoFar(a, m + 16, n + 16, r1, c1, edge);
    _tile_loadd(3, p.at, p.stride);
  }
  const uint16_t* x0 = ActivationTile(xb, kp, m, k0);
  const uint16_t* x1 = ActivationTile(xb, kp, m + 16, k0);
  for (int64_t kt = 0; kt < kts; ++kt) {
    _tile_loadd(4, x0 + 512 * kt, 64);
    _tile_loadd(5, x1 + 512 * kt, 64);
    _tile_loadd(6, b.b0 + kt * b.step, 64);
    _tile_loadd(7, b.b1 + kt * b.step, 64);
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  CPlace p = StoreTo(a, m, n, r0, c0, edge);
  _tile_stored(0, p.at, p.stride);
  PutEdge(a, m, n, r0, c0, edge);
  if (c1 > 0) {
    p = StoreTo(a, m, n + 16, r0, c1, edge);
    _tile_stored(1, p.at, p.stride);
    PutEdge(a, m, n + 16, r0, c1, edge);
  }
  if (r1 <= 0) return;
  p = StoreTo(a, m + 16, n, r1, c0, edge);
  _tile_stored(2, p.at, p.stride);
  PutEdge(a, m + 16, n, r1, c0, edge);
  if (c1 > 0) {
    p = StoreTo(a, m + 16, n + 16, r1, c1, edge);
    _tile_stored(3, p.at, p.stride);
    PutEdge(a, m + 16, n + 16, r1, c1, edge);
  }
}

// Weights in tile order (DType::kBF16Tiles, vt/quant.h): k tile kt of the group of 16 columns
// from n (n a multiple of 16).
inline const uint32_t* WeightTile(const GemmArgs& a, int64_t n, int64_t kt) {
  return reinterpret_cast<const uint32_t*>(a.w) + ((n / 16) * (a.K / 32) + kt) * (kTileBytes / 4);
}

void PrefetchTile(const uint32_t* tile) {
  for (int line = 0; line < 16; ++line) _mm_prefetch(reinterpret_cast<const char*>(tile) + 64 * line, _MM_HINT_T0);
}

// Tile 0's M rows of sums into columns [n, n + cols) (cols <= 16): in place when whole.
void StoreDecodeSums(const GemmArgs& a, int64_t n, int cols, float* edge) {
  if (cols == 16) {
    _tile_stored(0, a.out + n, a.out_stride * sizeof(float));
    return;
  }
  _tile_stored(0, edge, 64);
  for (int64_t i = 0; i < a.M; ++i) std::memcpy(a.out + i * a.out_stride + n, edge + 16 * i, Max0(cols) * sizeof(float));
}

// A decode's rows (M <= 16) by columns [n0, n1) (n0 a multiple of 16) over weights in tile
// order, nothing packed: one A tile of M rows per 32 k against the streaming B tiles of four
// column groups, each group's sums in a tile over the whole K. Row for row the same
// TDPBF16PS, in the same order, as Block32's: a row's sums do not depend on the step's rows.
void TileDecode(const GemmArgs& a, const uint16_t* xb, int64_t n0, int64_t n1) {
  alignas(64) float edge[256];
  const int64_t kts = a.K / 32, step = kTileBytes / 4;
  ConfigureTiles(static_cast<int>(a.M));
  int64_t n = n0;
  for (; n + 64 <= n1; n += 64) {
    const uint32_t *w0 = WeightTile(a, n, 0), *w1 = WeightTile(a, n + 16, 0), *w2 = WeightTile(a, n + 32, 0),
                   *w3 = WeightTile(a, n + 48, 0);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int64_t kt = 0; kt < kts; ++kt) {
      if (kt + kPrefetchTiles < kts) {
        for (const uint32_t* w : {w0, w1, w2, w3}) PrefetchTile(w + (kt + kPrefetchTiles) * step);
      }
      _tile_loadd(4, xb + 512 * kt, 64);
      _tile_loadd(5, w0 + kt * step, 64);
      _tile_dpbf16ps(0, 4, 5);
      _tile_loadd(6, w1 + kt * step, 64);
      _tile_dpbf16ps(1, 4, 6);
      _tile_loadd(7, w2 + kt * step, 64);
      _tile_dpbf16ps(2, 4, 7);
      _tile_loadd(5, w3 + kt * step, 64);
      _tile_dpbf16ps(3, 4, 5);
    }
    const size_t stride = a.out_stride * sizeof(float);
    _tile_stored(0, a.out + n, stride);
    _tile_stored(1, a.out + n + 16, stride);
    _tile_stored(2, a.out + n + 32, stride);
    _tile_stored(3, a.out + n + 48, stride);
  }
  for (; n < n1; n += 16) {
    const uint32_t* w = WeightTile(a, n, 0);
    _tile_zero(0);
    for (int64_t kt = 0; kt < kts; ++kt) {
      _tile_loadd(4, xb + 512 * kt, 64);
      _tile_loadd(5, w + kt * step, 64);
      _tile_dpbf16ps(0, 4, 5);
    }
    StoreDecodeSums(a, n, static_cast<int>(Min(16, n1 - n)), edge);
  }
  _tile_release();
}

// More rows over weights in tile order: TileGemm's blocks, their B tiles read where they lie.
void PackedTileGemm(const GemmArgs& a, const uint16_t* xb, int64_t n0, int64_t n1) {
  alignas(64) float edge[256];
  const int64_t mp = TileRowsOf(a.M);
  ConfigureTiles();
  for (int64_t nb = n0; nb < n1; nb += kBlockCols) {
    const int64_t ne = Min(n1, nb + kBlockCols);
    for (int64_t k0 = 0; k0 < a.K; k0 += kBlockDepth) {
      const int64_t kts = Min(kBlockDepth, a.K - k0) / 32;
      for (int64_t m = 0; m < mp; m += 32) {
        for (int64_t n = nb; n < ne; n += 32) {
          const uint32_t* b0 = WeightTile(a, n, k0 / 32);
          const uint32_t* b1 = n + 16 < ne ? WeightTile(a, n + 16, k0 / 32) : b0;
          Block32(a, xb, a.K, {b0, b1, kTileBytes / 4}, m, n, ne - n, k0, kts, edge);
        }
      }
    }
  }
  _tile_release();
}

void TileGemm(const GemmArgs& a, const uint16_t* xb, int64_t n0, int64_t n1) {
  if (IsTiles(a.wtype)) {
    if (a.M <= 16) TileDecode(a, xb, n0, n1);
    else PackedTileGemm(a, xb, n0, n1);
    return;
  }
  thread_local std::vector<uint32_t> packed(kBlockCols * kBlockDepth / 2 + 16);
  thread_local BlockTypeScratch blocks;
  uint32_t* block = reinterpret_cast<uint32_t*>((reinterpret_cast<uintptr_t>(packed.data()) + 63) & ~uintptr_t{63});
  alignas(64) float edge[256];
  const int64_t kp = TileDepthOf(a.K), mp = TileRowsOf(a.M);
  ConfigureTiles();
  for (int64_t nb = n0; nb < n1; nb += kBlockCols) {
    const int64_t ne = Min(n1, nb + kBlockCols), subs = (ne - nb + 31) / 32;
    if (IsQuantized(a.wtype)) PlainBlockRows(a, nb, ne, &blocks);
    for (int64_t k0 = 0; k0 < kp; k0 += kBlockDepth) {
      const int64_t kts = Min(kBlockDepth, kp - k0) / 32;
      for (int64_t s = 0; s < subs; ++s) {
        for (int half = 0; half < 2; ++half) {
          const int64_t n = nb + 32 * s + 16 * half;
          const int cols = static_cast<int>(Min(16, ne - n));
          if (IsQuantized(a.wtype) && cols > 0) {
            PackBlockTypeTiles(a, nb, n, cols, k0, kts, TileAt(block, kts, s, 0, half), &blocks);
            continue;
          }
          for (int64_t kt = 0; kt < kts; ++kt) PackTile(a, n, cols, k0 + 32 * kt, TileAt(block, kts, s, kt, half));
        }
      }
      for (int64_t m = 0; m < mp; m += 32) {
        for (int64_t s = 0; s < subs; ++s) {
          const int64_t n = nb + 32 * s;
          const uint32_t* b0 = TileAt(block, kts, s, 0, 0);
          Block32(a, xb, kp, {b0, b0 + kTileBytes / 4, 2 * (kTileBytes / 4)}, m, n, ne - n, k0, kts, edge);
        }
      }
    }
  }
  _tile_release();
}

// Rows [m0, m1) of the activations as bf16 in tile order (ActivationTile), K padded with zeros
// to TileDepthOf(K); rows past M are zeros (their outputs are computed and never stored).
void TileActivations(const GemmArgs& a, int64_t m0, int64_t m1, uint16_t* xb) {
  const int64_t kp = TileDepthOf(a.K);
  for (int64_t m = m0; m < m1; ++m) {
    for (int64_t k = 0; k < kp; k += 32) {
      const __m512i pairs = m < a.M ? PairsOfRow<DType::kF32>(reinterpret_cast<const char*>(a.x + m * a.x_stride + k), a.K - k)
                                    : _mm512_setzero_si512();
      _mm512_storeu_si512(ActivationTile(xb, kp, m, k) + (m % 16) * 32, pairs);
    }
  }
}

}  // namespace

const MatmulKernels* AmxKernels() {
  const MatmulKernels* base = Avx512Kernels();
  if (base == nullptr || !__builtin_cpu_supports("avx512bf16") || !GrantAmx().granted) return nullptr;
  static const MatmulKernels kernels{"amx", base->gemm, base->gemv, base->weighted_rows, base->exp_shifted, base->dequantize,
                                     base->quantize_activations, base->quant_gemv, nullptr, base->pack_short, base->short_gemm,
                                     base->interleaved, base->panels, TileActivations, TileGemm};
  return &kernels;
}

}  // namespace vt::cpu

#pragma GCC diagnostic pop
