// Matmul kernels of the CPU backend. out[m][n] = Σ_k w[n][k]·x[m][k]: weights and activations
// are both contiguous along k (ggml's layout). Large M runs a packed GEMM: a block of weight
// rows is converted to f32 and packed k-major into 32-wide panels that stay in cache while a
// 6×32 register tile of outputs accumulates rank-1 updates. Small M runs streaming dot
// products: the weights are read once, which is what a memory-bound decode step needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vt/dtype.h"

namespace vt {
struct Tensor;
class ThreadPool;  // cpu/thread_pool.h: not included here, where AVX-512 files would compile its inline code
}

namespace vt::cpu {

inline constexpr int kNR = 32;    // panel width (output columns per register tile)
inline constexpr int kMR = 12;    // output rows per register tile: 24 accumulators of 32 zmm
inline constexpr int kKC = 256;   // k per packed block: a 256×32 f32 panel is 32 KiB (L1)
inline constexpr int kNC = 256;   // columns per packed block: 256 KiB of panels (L2)
inline constexpr int64_t kGemvMaxRows = 16;  // M up to this streams the weights instead
// Interleaved weights (vt/quant.h) take the integer decode path up to this many rows, prompts
// included: putting their rows back and dequantizing them for the gemm cost more than the
// integer dot products below it (specs/quantized.md: pp32 to pp512 of the 2048-wide Q4_0 and
// Q4_K_M files 1.2-2.8x faster; the 512-wide MoE's pp512 0.9x).
inline constexpr int64_t kInterleavedGemvMaxRows = 512;
// M in [kShortGemmMinRows, kShortGemmRows] packs the activations instead (short_gemm). The
// ends are measured (specs/engine-core.md): below 21 rows half of a 32-row tile is padding,
// and from 49 the packed gemm's cost of transposing the weights is spread thin enough.
inline constexpr int64_t kShortGemmMinRows = 21;
inline constexpr int64_t kShortGemmRows = 48;
// The AVX2 set packs both sides (BLIS's order): kAvx2BlockCols weight rows per packed block
// (L2/L3; activations are repacked once per block, so it is wide) and kAvx2BlockRows
// activation rows per packed block (L2), kAvx2KC deep: one slice for K = 512, where two of
// 256 cost a read-modify-write of the whole output (4096×512×4096: 0.90× OpenBLAS's Haswell
// kernels at 256 × 1024, 1.01-1.03× at 512 × 256, specs/engine-core.md).
inline constexpr int kAvx2KC = 512;
inline constexpr int kAvx2BlockCols = 512;
inline constexpr int kAvx2BlockRows = 96;
// Floats of per-thread scratch every kernel set's gemm may use.
inline constexpr size_t kGemmScratchFloats = size_t{kAvx2KC} * (kAvx2BlockCols + kAvx2BlockRows);
static_assert(kGemmScratchFloats >= size_t{kKC} * kNC);

struct GemmArgs {
  const char* w;       // weight row n starts at w + n * w_stride
  DType wtype;         // f32, f16 or bf16
  size_t w_stride;     // bytes
  const float* x;      // activation row m starts at x + m * x_stride
  size_t x_stride;     // floats
  float* out;          // output row m starts at out + m * out_stride
  size_t out_stride;   // floats
  int64_t M, N, K;
};

struct MatmulKernels {
  const char* name;
  // Columns [n0, n1) of every output row; `scratch` holds kGemmScratchFloats, 64-byte aligned.
  void (*gemm)(const GemmArgs& a, int64_t n0, int64_t n1, float* scratch);
  // Columns [n0, n1) of every output row, for M <= kGemvMaxRows.
  void (*gemv)(const GemmArgs& a, int64_t n0, int64_t n1);
  // acc[d] += Σ_{j<n} p[j]·row_j[d] for d < hd, row j at rows + j·stride, f32, f16 or bf16: a decode
  // token's weighted sum of cached values, one pass over each row's hd values.
  void (*weighted_rows)(const char* rows, DType t, size_t stride, const float* p, int64_t n, float* acc, int64_t hd);
  // s[j] = exp(s[j] - shift) for j < n, returning their sum: a softmax row's exponentials.
  // The SIMD sets use Cephes' expf polynomial (within 2 ulp of std::exp); at 512 scores per
  // token of a prompt, libm's scalar expf was a sixth of a 512-wide model's pp512 profile.
  float (*exp_shifted)(float* s, int64_t n, float shift);
  // A row of a block type as f32, the portable code's values bit for bit; false (or null) for
  // a type the set has no vector code for, which the caller then dequantizes portably.
  bool (*dequantize)(DType t, const void* src, float* dst, int64_t n);
  // The activation rows of a decode (M <= kGemvMaxRows; for interleaved weights, on a set that
  // reads them, M <= kInterleavedGemvMaxRows) of block-type weights rounded to the
  // 8-bit blocks that quant_gemv multiplies, into *acts in the set's own layout; false (or
  // null) for a weight type it has no integer path for. Run once per Matmul, not per thread.
  bool (*quantize_activations)(const GemmArgs& a, std::vector<uint8_t>* acts);
  // Columns [n0, n1) of that decode, over the rows quantize_activations wrote.
  void (*quant_gemv)(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1);
  // A row of a block type dequantized and rounded to bf16 (nearest even), n a multiple of 32,
  // where the set's gemm of bf16 weights is its fastest (AVX512_BF16): a quantized gemm then
  // runs it over bf16 rows instead of the f32 gemm. Null elsewhere.
  void (*dequantize_bf16)(DType t, const void* src, uint16_t* dst, int64_t n);
  // A short prompt's gemm (kShortGemmMinRows <= M <= kShortGemmRows) of f32, f16 or bf16 weights:
  // pack_short lays the activation rows out once per matmul in *panel (returning where they
  // start), short_gemm computes columns [n0, n1) from them. Null where the set has none.
  const float* (*pack_short)(const GemmArgs& a, std::vector<float>* panel);
  void (*short_gemm)(const GemmArgs& a, const float* panel, int64_t n0, int64_t n1);
  // quantize_activations and quant_gemv read DType::kQ4_0x16 and kQ4_Kx16 weights in their
  // own order (vt/quant.h); elsewhere each thread's rows are put back in plain order first.
  bool interleaved;
  // gemv (for any M) and gemm read DType::kF16x16 and kBF16x16 weights (vt/quant.h);
  // elsewhere each thread's rows are put back in plain order first.
  bool panels;
  // A gemm on the set's tile unit (the amx set, specs/amx.md; null elsewhere) for M >
  // kShortGemmRows and weights TileReads() takes, and for any M over weights in tile order
  // (DType::kBF16Tiles: for M <= 16, xb's first 16-row block holds only the M rows): tile_activations rounds activation rows
  // [m0, m1) of TileRowsOf(M) to bf16 into xb (rows of TileDepthOf(K) values, zero-padded), once
  // per matmul, split across the pool; tile_gemm computes columns [n0, n1) of every row from it.
  void (*tile_activations)(const GemmArgs& a, int64_t m0, int64_t m1, uint16_t* xb);
  void (*tile_gemm)(const GemmArgs& a, const uint16_t* xb, int64_t n0, int64_t n1);
};

// The tile gemm's padding: activation rows to whole pairs of 16-row tiles, k to whole tiles of
// 32 values, so every tile is a full 16 x 64 bytes.
inline int64_t TileRowsOf(int64_t M) { return (M + 31) / 32 * 32; }
inline int64_t TileDepthOf(int64_t K) { return (K + 31) / 32 * 32; }
inline bool TileReads(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16 || t == DType::kF16x16 || t == DType::kBF16x16 || t == DType::kBF16Tiles || BlockSize(t) > 1;
}

// The AVX-512 set's short-prompt gemm (cpu/short_gemm_avx512.cpp).
const float* PackShortAvx512(const GemmArgs& a, std::vector<float>* panel);
void ShortGemmAvx512(const GemmArgs& a, const float* panel, int64_t n0, int64_t n1);
// The AVX-512 sets' matmuls of f16 and bf16 panels (cpu/panels_avx512.cpp): columns [n0, n1)
// for any M; the packed gemm's panel of columns [n, n + ncols) from them; and the bf16 dot
// gemm's panel of pairs (pc pairs from k0: panel[p][j] = w[n + j][k0 + 2p] in the low half,
// w[n + j][k0 + 2p + 1] in the high) from bf16 panels.
void PanelGemvAvx512(const GemmArgs& a, int64_t n0, int64_t n1);
void PackPanelsAvx512(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int kc, float* panel);
void PackPairsOfPanelsAvx512(const GemmArgs& a, int64_t n, int ncols, int64_t k0, int pc, uint32_t* panel);
// The AVX-512 set's dequantize (cpu/dequant_avx512.cpp).
bool DequantizeRowAvx512(DType t, const void* src, float* dst, int64_t n);
// The AVX-512 VNNI q8 decode (cpu/quant_dot_avx512.cpp); call only where the CPU has VNNI.
bool QuantizeActivationsAvx512(const GemmArgs& a, std::vector<uint8_t>* acts);
void QuantGemvAvx512(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1);
// The generic set's q8 decode and the activation rounding it shares with the AVX2 set
// (cpu/quant_dot_portable.cpp), and the AVX2 set's (cpu/quant_dot_avx2.cpp).
bool QuantizeActivationsPortable(const GemmArgs& a, std::vector<uint8_t>* acts);
void QuantGemvPortable(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1);
void QuantGemvAvx2(const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1);

const MatmulKernels& GenericKernels();
// Null when this CPU lacks AVX-512 (F, BW, VL) with FMA and F16C.
const MatmulKernels* Avx512Kernels();
// The AVX-512 set whose gemm of bf16 weights uses AVX512_BF16's dot product (activations
// rounded to bf16); null when this CPU lacks it.
const MatmulKernels* Avx512Bf16Kernels();
// The AVX-512 set with its gemm on AMX tiles (cpu/amx_gemm.cpp); null unless this CPU has
// AVX512_BF16 and AMX and the kernel granted this process the tiles (cpu/amx_grant.h).
const MatmulKernels* AmxKernels();
// Null when this CPU lacks AVX2 with FMA and F16C.
const MatmulKernels* Avx2Kernels();
// The best kernels this CPU runs (amx where the kernel grants the tiles, else avx512-bf16 on
// AMD's CPUs that have AVX512_BF16, else avx512, avx2 or generic); VT_MATMUL=amx|avx512-bf16|
// avx512|avx2|generic asks for one (a set the CPU cannot run falls back to the next best that
// it can). Chosen once per process (cpu/kernel_choice.cpp).
const MatmulKernels& BestKernels();
// That choice: VT_MATMUL's value ("" when unset), the set, and why a better or the requested
// set does not run (empty when nothing stands in the way).
struct KernelChoice {
  std::string requested;
  const MatmulKernels* set;
  std::string why;
  // vt::KeepBatchInvariantKernels() kept the amx set, which then holds f16 and bf16 matrices
  // in tile order (every step over them on the tiles), and left out the tile gemm of weights
  // packed per call (f32, block types, the experts' panels), whose small steps run other kernels.
  bool batch_invariant = false;
};
const KernelChoice& ChosenKernels();
// The choice for `want` ("" for the default) on a CPU of that vendor, given the amx set (null
// when it cannot run, and `amx_why` says why) and whether the default may be it
// (vt::KeepBatchInvariantKernels).
KernelChoice ChooseKernels(const std::string& want, bool amd, const MatmulKernels* amx, const std::string& amx_why,
                           bool tiles_default = true);

// Whether the CPU backend holds matmul weight w in tile order (DType::kBF16Tiles) under choice
// c: f16 or bf16, 2-D, whole 16-row groups and 32-value k tiles, where c keeps batch invariance
// with the amx set (specs/amx.md). Elsewhere the panels keep f16 exact.
bool HoldsInTileOrder(const KernelChoice& c, const Tensor& w);

// How a gemm of M rows by N columns is split into tasks on `threads` threads (cpu_matmul.cpp):
// column tasks of `width` columns times `row_tasks` row blocks of `rows_per` rows (the last
// one takes the remainder); never more tasks than the pool makes chunks.
struct GemmSplit {
  int64_t width = 0, col_tasks = 0, rows_per = 0, row_tasks = 0;
};
GemmSplit SplitGemm(int64_t M, int64_t N, int threads);
// A gemm (M > kGemvMaxRows) of the set's `gemm` as those tasks on the pool: what a model's
// matmul runs where no tile, short-prompt or panel path takes it.
void GemmTasks(const GemmArgs& a, ThreadPool& pool);

// Columns [n0, n1) of `a` on the calling thread with the best kernels: streaming for small M,
// packed (with this thread's scratch) otherwise.
void GemmRange(const GemmArgs& a, int64_t n0, int64_t n1);

// A decode (M <= kGemvMaxRows; interleaved weights up to kInterleavedGemvMaxRows) made ready
// to split its columns across threads: block-type weights' activation rows rounded once, by
// the caller, into *acts for the set's integer path where it has one (then `acts` points
// there); otherwise DecodeRange runs GemmRange. `read` is `a` as the integer path reads it:
// the plain type where each thread's interleaved rows are put back first.
struct DecodeRows {
  GemmArgs a, read;
  const uint8_t* acts;
  bool put_back;
};
DecodeRows PrepareDecode(const GemmArgs& a, std::vector<uint8_t>* acts);
// Columns [n0, n1) of that decode on the calling thread; n0 a multiple of 16 (interleaved
// weights come in groups of 16 rows).
void DecodeRange(const DecodeRows& d, int64_t n0, int64_t n1);

}  // namespace vt::cpu
