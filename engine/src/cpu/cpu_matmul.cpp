#include <algorithm>
#include <chrono>
#include <mutex>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"
#include "cpu/tile_threads.h"
#include "vt/cpu_kernels.h"
#include "vt/quant.h"

namespace vt::cpu {

namespace {

// Rows [n0, n1) of block-type weights in their type's plain order: where they are, or for an
// interleaved type (vt/quant.h) put back into `plain` all at once.
const char* PlainRows(const GemmArgs& a, int64_t n0, int64_t n1, std::vector<uint8_t>* plain) {
  if (!IsInterleaved(a.wtype)) return a.w + n0 * a.w_stride;
  plain->resize((n1 - n0) * a.w_stride);
  PlainRowsOf(a.wtype, a.w, a.N, a.K, n0, n1, plain->data());
  return reinterpret_cast<const char*>(plain->data());
}

// Block-type weights without an integer path (specs/quantized.md): the thread's weight rows
// dequantized in blocks (one row for a decode, kNC rows for a gemm), to f32 for the f32
// kernels, or to bf16 for a gemm where the set's bf16 gemm is its fastest.
void QuantizedRange(const GemmArgs& a, int64_t n0, int64_t n1) {
  const int64_t rows = a.M <= kGemvMaxRows ? 1 : kNC;
  const MatmulKernels& kernels = BestKernels();
  const bool bf16 = rows > 1 && kernels.dequantize_bf16 != nullptr;
  thread_local std::vector<float> block;  // f32 rows, or bf16 rows in the first half
  thread_local std::vector<uint8_t> plain;
  block.resize(static_cast<size_t>(rows * a.K));
  const DType type = PlainOf(a.wtype);
  for (int64_t nb = n0; nb < n1; nb += rows) {
    int64_t ne = std::min(n1, nb + rows);
    const char* rows_at = PlainRows(a, nb, ne, &plain);
    for (int64_t n = nb; n < ne; ++n) {
      const char* row = rows_at + (n - nb) * a.w_stride;
      if (bf16) {
        kernels.dequantize_bf16(type, row, reinterpret_cast<uint16_t*>(block.data()) + (n - nb) * a.K, a.K);
        continue;
      }
      float* to = block.data() + (n - nb) * a.K;
      if (!kernels.dequantize || !kernels.dequantize(type, row, to, a.K)) DequantizeRow(type, row, to, a.K);
    }
    GemmArgs f = a;
    f.w = reinterpret_cast<const char*>(block.data());
    f.wtype = bf16 ? DType::kBF16 : DType::kF32;
    f.w_stride = static_cast<size_t>(a.K) * (bf16 ? sizeof(uint16_t) : sizeof(float));
    f.out = a.out + nb;
    f.N = ne - nb;
    GemmRange(f, 0, ne - nb);
  }
}

// A decode of block-type weights through the kernel set's integer path, the activation rows
// rounded once here rather than by each thread's chunk; false when the set has none for it.
// Interleaved weights on a set that reads only plain rows (`a.wtype` then the plain type):
// each thread's rows put back in plain order, 16 at a time, for the set's plain decode.
void PlainRowsGemv(const MatmulKernels& kernels, const GemmArgs& a, const uint8_t* acts, int64_t n0, int64_t n1) {
  thread_local std::vector<uint8_t> rows;
  rows.resize(kInterleavedRows * a.w_stride);
  for (int64_t nb = n0; nb < n1; nb += kInterleavedRows) {
    const int64_t ne = std::min(n1, nb + kInterleavedRows);
    PlainRowsOf(InterleavedOf(a.wtype), a.w, a.N, a.K, nb, ne, rows.data());
    GemmArgs part = a;
    part.w = reinterpret_cast<const char*>(rows.data());
    part.out = a.out + nb;
    part.N = ne - nb;
    kernels.quant_gemv(part, acts, 0, ne - nb);
  }
}

// f16 or bf16 panels (vt/quant.h) on a set that does not read them, or tiles on one without
// tiles: the thread's rows put back in plain order, 16 at a time, for the set's own kernels.
void PlainPanelRange(const GemmArgs& a, int64_t n0, int64_t n1) {
  thread_local std::vector<uint8_t> rows;
  rows.resize(kInterleavedRows * static_cast<size_t>(a.K) * sizeof(uint16_t));
  for (int64_t nb = n0; nb < n1; nb += kInterleavedRows) {
    const int64_t ne = std::min(n1, nb + kInterleavedRows);
    PlainRowsOf(a.wtype, a.w, a.N, a.K, nb, ne, rows.data());
    GemmArgs part = a;
    part.w = reinterpret_cast<const char*>(rows.data());
    part.wtype = PlainOf(a.wtype);
    part.w_stride = static_cast<size_t>(a.K) * sizeof(uint16_t);
    part.out = a.out + nb;
    part.N = ne - nb;
    GemmRange(part, 0, ne - nb);
  }
}

// Weights in tile order reached outside Matmul and the decode (a caller's own column range):
// the activations rounded here, by this thread, for its columns.
void TileRange(const MatmulKernels& kernels, const GemmArgs& a, int64_t n0, int64_t n1) {
  thread_local std::vector<uint16_t> xb;
  const int64_t rows = a.M <= kGemvMaxRows ? a.M : TileRowsOf(a.M);
  xb.resize(static_cast<size_t>((rows + 15) / 16 * 16 * TileDepthOf(a.K)));
  kernels.tile_activations(a, 0, rows, xb.data());
  kernels.tile_gemm(a, xb.data(), n0, n1);
}

// A short prompt of f16 or bf16 panels through the set's panel gemv, a pass over each group
// per 12 activation rows (cpu/panels_avx512.cpp); false where the weights are not panels or
// the set does not read them.
bool PanelShortGemm(const GemmArgs& a, ThreadPool& pool) {
  if (!IsPanels(a.wtype) || a.M > kShortGemmRows || !BestKernels().panels) return false;
  pool.ParallelFor(a.N, 16, [&](int64_t n0, int64_t n1, int) { BestKernels().gemv(a, n0, n1); });
  return true;
}

bool QuantizedDecode(const GemmArgs& a, ThreadPool& pool) {
  thread_local std::vector<uint8_t> acts;  // the caller's; the workers only read it
  const DecodeRows d = PrepareDecode(a, &acts);
  if (d.acts == nullptr) return false;
  pool.ParallelFor(a.N, 16, [&](int64_t n0, int64_t n1, int) { DecodeRange(d, n0, n1); });
  return true;
}

// A short prompt through the set's short_gemm: the activations packed once here, by the
// caller, and read by every thread; false when the set or the weight type has none, and for
// bf16 weights where the set's bf16 gemm is its fastest (AVX512_BF16's dot product: 1.2-1.4x
// the short gemm's f32 multiply-adds on the 2048-wide bf16 model's pp24-48).
bool ShortGemm(const GemmArgs& a, ThreadPool& pool) {
  const MatmulKernels& kernels = BestKernels();
  if (a.M < kShortGemmMinRows || a.M > kShortGemmRows || IsQuantized(a.wtype) || IsInterleaved(a.wtype) || kernels.short_gemm == nullptr) return false;
  if (a.wtype == DType::kBF16 && kernels.dequantize_bf16 != nullptr) return false;
  thread_local std::vector<float> panel;
  const float* packed = kernels.pack_short(a, &panel);
  // Multiples of both tile heights (12 and 8 weight rows), so only a thread's last block is short.
  pool.ParallelFor(a.N, 24, [&](int64_t n0, int64_t n1, int) { kernels.short_gemm(a, packed, n0, n1); });
  return true;
}

// A gemm on the set's tile unit (the amx set, specs/amx.md): the activations rounded to bf16
// once, split by rows across the pool, then the columns in blocks of 32 (two B tiles); false
// where the set has no tiles or they do not read the weights. Weights in tile order take every
// step past kGemvMaxRows here (and smaller ones through PrepareDecode), so their rows are the
// same sums in every step. Others come for steps past kShortGemmRows only, where per-call
// tiles are on: their f16 and bf16 rows up to there are the decode's fused multiply-add chains
// bit for bit (a request's tokens stay the same alone, batched, speculated or preempted: bf16
// tiles there changed greedy answers in VtServeSpec and VtServeKv).
static_assert(kCpuTileMinRows == kShortGemmRows + 1, "vt/cpu_kernels.h tells the tools where the tiles start");
bool TileGemm(const GemmArgs& a, ThreadPool& pool) {
  const MatmulKernels& kernels = BestKernels();
  if (kernels.tile_gemm == nullptr || !TileReads(a.wtype)) return false;
  if (IsTiles(a.wtype) ? a.M <= kGemvMaxRows : a.M <= kShortGemmRows || ChosenKernels().batch_invariant) return false;
  thread_local std::vector<uint16_t> buffer;  // the caller's: the workers reach it through xb
  const int64_t rows = TileRowsOf(a.M);
  buffer.resize(static_cast<size_t>(rows * TileDepthOf(a.K)));
  uint16_t* xb = buffer.data();
  pool.ParallelFor(rows, 32, [&](int64_t m0, int64_t m1, int) { kernels.tile_activations(a, m0, m1, xb); });
  static std::mutex lock;  // one choice per process: the tile unit is the machine's, not a pool's
  static TileThreads choice;
  bool threads = true;
  {
    std::lock_guard<std::mutex> hold(lock);
    threads = pool.size() > 1 && choice.UseThreads();
  }
  const auto start = std::chrono::steady_clock::now();
  if (threads) pool.ParallelFor(a.N, 32, [&](int64_t n0, int64_t n1, int) { kernels.tile_gemm(a, xb, n0, n1); });
  else kernels.tile_gemm(a, xb, 0, a.N);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (pool.size() > 1) {
    std::lock_guard<std::mutex> hold(lock);
    choice.Record(threads, seconds, static_cast<double>(a.M) * static_cast<double>(a.N) * static_cast<double>(a.K));
  }
  return true;
}

}  // namespace

DecodeRows PrepareDecode(const GemmArgs& a, std::vector<uint8_t>* acts) {
  const MatmulKernels& kernels = BestKernels();
  if (IsTiles(a.wtype) && kernels.tile_gemm != nullptr) {  // the rows in an A tile's order, rounded once
    acts->resize(static_cast<size_t>(TileDepthOf(a.K)) * 16 * sizeof(uint16_t));
    kernels.tile_activations(a, 0, a.M, reinterpret_cast<uint16_t*>(acts->data()));
    return DecodeRows{a, a, acts->data(), false};
  }
  DecodeRows d{a, a, nullptr, IsInterleaved(a.wtype) && !kernels.interleaved};
  if (d.put_back) d.read.wtype = PlainOf(a.wtype);
  if (IsQuantized(a.wtype) && kernels.quantize_activations && kernels.quantize_activations(d.read, acts)) d.acts = acts->data();
  return d;
}

void DecodeRange(const DecodeRows& d, int64_t n0, int64_t n1) {
  const MatmulKernels& kernels = BestKernels();
  if (d.acts == nullptr) GemmRange(d.a, n0, n1);
  else if (IsTiles(d.a.wtype)) kernels.tile_gemm(d.a, reinterpret_cast<const uint16_t*>(d.acts), n0, n1);
  else if (d.put_back) PlainRowsGemv(kernels, d.read, d.acts, n0, n1);
  else kernels.quant_gemv(d.a, d.acts, n0, n1);
}

// The experts' 3-D tensors keep the panels their code reads; f16 in tile order is rounded to
// bf16, as vLLM's CPU backend casts f16 models to bf16, so only where batch invariance asks for
// the tiles in every step.
bool HoldsInTileOrder(const KernelChoice& c, const Tensor& w) {
  return c.batch_invariant && c.set->tile_gemm != nullptr && TilesHold(w.dtype, w.ne[1], w.ne[0]) && w.ne[2] == 1 && w.ne[3] == 1 &&
         w.IsContiguous();
}

// f16 and bf16 matrices go to the tiles' order where HoldsInTileOrder says, block types and the
// rest to InterleavedOf's.
StatusOr<Tensor> AdoptMatmulWeight(Backend& backend, const Tensor& w) {
  if (HoldsInTileOrder(ChosenKernels(), w)) {
    auto t = NewTensor(backend, DType::kBF16Tiles, w.ne);
    if (!t.ok()) return t.status();
    PackTiles(w.dtype, w.data, t->data, w.ne[1], w.ne[0]);
    return t;
  }
  const DType mixed = InterleavedOf(w.dtype);
  const bool reads = IsPanels(mixed) ? BestKernels().panels : BestKernels().interleaved;
  if (mixed == w.dtype || !reads || w.ne[1] < kInterleavedRows || !w.IsContiguous()) return w;
  auto t = NewTensor(backend, mixed, w.ne);
  if (!t.ok()) return t.status();
  for (int64_t i3 = 0; i3 < w.ne[3]; ++i3) {
    for (int64_t i2 = 0; i2 < w.ne[2]; ++i2) Interleave(w.dtype, w.Row<char>(0, i2, i3), t->Row<char>(0, i2, i3), w.ne[1], w.ne[0]);
  }
  return t;
}

void GemmRange(const GemmArgs& a, int64_t n0, int64_t n1) {
  if (IsQuantized(a.wtype)) {
    QuantizedRange(a, n0, n1);
    return;
  }
  const MatmulKernels& kernels = BestKernels();
  if (IsPanels(a.wtype) && !kernels.panels) {
    PlainPanelRange(a, n0, n1);
    return;
  }
  if (IsTiles(a.wtype)) {
    if (kernels.tile_gemm == nullptr) PlainPanelRange(a, n0, n1);
    else TileRange(kernels, a, n0, n1);
    return;
  }
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

// A gemm as column tasks of at least kNC columns (one packed block: each activation tile is
// reused across its eight panels), wider when there are more of them than the pool has chunks
// (8 per thread; tasks of kNC columns were 22 for a 5632-wide gemm, which the pool merged into
// 11 chunks of two: one thread ran six while the other waited), by a few row blocks when
// there are too few columns to give every thread several tasks. Split by columns alone, a 512-wide layer's gemm at two threads was sixteen
// 32-column chunks, each rereading every activation row for one panel (0.92x llama-bench's
// pp512 where the 2048-wide model was at 1.0x); rows split in multiples of the 12-row tile.
GemmSplit SplitGemm(int64_t M, int64_t N, int threads) {
  int64_t chunks = ThreadPool::kChunksPerThread * threads;
  GemmSplit s;
  s.width = std::max<int64_t>(kNC, ((N + chunks - 1) / chunks + kNR - 1) / kNR * kNR);
  s.col_tasks = (N + s.width - 1) / s.width;
  int64_t want = 4 * int64_t{threads};
  s.row_tasks = threads == 1 ? 1 : std::clamp<int64_t>((want + s.col_tasks - 1) / s.col_tasks, 1, (M + 47) / 48);
  s.rows_per = (M + s.row_tasks - 1) / s.row_tasks;
  s.rows_per = (s.rows_per + kMR - 1) / kMR * kMR;
  // The last row block takes the remainder: a tail of kGemvMaxRows rows or fewer would go
  // through the decode kernels and sum its rows differently from the rest of the gemm.
  s.row_tasks = std::max<int64_t>(1, M / s.rows_per);
  return s;
}

void GemmTasks(const GemmArgs& a, ThreadPool& pool) {
  const GemmSplit s = SplitGemm(a.M, a.N, pool.size());
  const int64_t width = s.width, row_tasks = s.row_tasks, rows_per = s.rows_per;
  pool.ParallelFor(s.col_tasks * row_tasks, 1, [&](int64_t t0, int64_t t1, int) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t r = t % row_tasks, m0 = r * rows_per, m1 = r == row_tasks - 1 ? a.M : m0 + rows_per;
      GemmArgs part = a;
      part.x = a.x + m0 * a.x_stride;
      part.out = a.out + m0 * a.out_stride;
      part.M = m1 - m0;
      GemmRange(part, t / row_tasks * width, std::min(a.N, (t / row_tasks + 1) * width));
    }
  });
}

namespace {

// The matmul of batch (i2, i3) of `op`: weights broadcast over the batch as ggml does (w
// batch = x batch / ratio).
GemmArgs ArgsOf(const Op& op, int64_t i2, int64_t i3) {
  const Tensor &w = *op.src[0], &x = *op.src[1];
  Tensor& out = *op.out;
  const int64_t r2 = x.ne[2] / w.ne[2], r3 = x.ne[3] / w.ne[3];
  return GemmArgs{static_cast<const char*>(w.data) + (i2 / r2) * w.nb[2] + (i3 / r3) * w.nb[3],
                  w.dtype,
                  w.nb[1],
                  x.Row<const float>(0, i2, i3),
                  x.nb[1] / sizeof(float),
                  out.Row<float>(0, i2, i3),
                  out.nb[1] / sizeof(float),
                  x.ne[1],
                  w.ne[1],
                  w.ne[0]};
}

}  // namespace

// Each thread takes a range of output columns (weight rows) for every batch.
void Matmul(const Op& op, ThreadPool& pool) {
  const Tensor& x = *op.src[1];
  for (int64_t i3 = 0; i3 < x.ne[3]; ++i3) {
    for (int64_t i2 = 0; i2 < x.ne[2]; ++i2) {
      const GemmArgs a = ArgsOf(op, i2, i3);
      if (TileGemm(a, pool)) continue;  // before interleaved weights' integer path for prompts
      const bool integer_rows = a.M <= (IsInterleaved(a.wtype) ? kInterleavedGemvMaxRows : kGemvMaxRows);
      if (integer_rows && QuantizedDecode(a, pool)) continue;
      if (a.M > kGemvMaxRows) {
        if (!PanelShortGemm(a, pool) && !ShortGemm(a, pool)) GemmTasks(a, pool);
      } else {
        pool.ParallelFor(a.N, 16, [&](int64_t n0, int64_t n1, int) { GemmRange(a, n0, n1); });
      }
    }
  }
}

// Units of 16 weight rows of every matmul, one after another, split across the pool; a
// thread's run of units is cut where one matmul's rows end and the next one's begin.
bool DecodeGroup(const std::vector<Op>& ops, ThreadPool& pool) {
  const bool decodes = std::all_of(ops.begin(), ops.end(), [](const Op& op) {
    return op.kind == OpKind::kMatmul && op.src[1]->ne[1] <= kGemvMaxRows && op.src[1]->ne[2] == 1 && op.src[1]->ne[3] == 1;
  });
  if (ops.size() < 2 || !decodes) return false;
  thread_local std::vector<std::vector<uint8_t>> acts;  // the caller's; the workers only read them
  if (acts.size() < ops.size()) acts.resize(ops.size());
  std::vector<DecodeRows> rows;
  std::vector<int64_t> first{0};  // first unit of each matmul, then the total
  for (size_t i = 0; i < ops.size(); ++i) {
    rows.push_back(PrepareDecode(ArgsOf(ops[i], 0, 0), &acts[i]));
    first.push_back(first.back() + (rows.back().a.N + 15) / 16);
  }
  pool.ParallelFor(first.back(), 1, [&](int64_t u0, int64_t u1, int) {
    for (size_t i = 0; i < rows.size() && u0 < u1; ++i) {
      if (u0 >= first[i + 1]) continue;
      const int64_t end = std::min(u1, first[i + 1]);
      DecodeRange(rows[i], (u0 - first[i]) * 16, std::min(rows[i].a.N, (end - first[i]) * 16));
      u0 = end;
    }
  });
  return true;
}

}  // namespace vt::cpu
