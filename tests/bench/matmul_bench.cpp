// vt's CPU matmul vs OpenBLAS cblas_sgemm, same shapes, same thread count, one binary, one run.
// Shapes (M×K×N): 4096×512×4096 and 512³ (compute-bound), 1×4096×4096 (decode, memory-bound),
// with f32 weights and with f16/bf16 weights; plus a streaming-read bandwidth figure for the
// decode shape's ceiling. Run the baseline at its best: set OPENBLAS_CORETYPE to the CPU's real
// family (SkylakeX on AVX-512) in this command only; the core in use is printed.
#include <benchmark/benchmark.h>
#include <cblas-openblas.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "vt/backend.h"
#include "vt/quant.h"

namespace {

using vt::DType;

struct Operands {
  vt::Tensor w, x, out;
};

Operands Make(DType wtype, int64_t m, int64_t k, int64_t n) {
  vt::Backend& cpu = *vt::GetBackend(vt::DeviceType::kCPU);
  Operands o{vt::NewTensor(cpu, wtype, {k, n, 1, 1}).value(),
             vt::NewTensor(cpu, DType::kF32, {k, m, 1, 1}).value(),
             vt::NewTensor(cpu, DType::kF32, {n, m, 1, 1}).value()};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0; i < k * m; ++i) static_cast<float*>(o.x.data)[i] = dist(rng);
  if (vt::IsQuantized(wtype)) {  // random rows through vt's quantizer
    std::vector<float> row(static_cast<size_t>(k));
    for (int64_t j = 0; j < n; ++j) {
      for (float& v : row) v = dist(rng);
      if (!vt::QuantizeRow(wtype, row.data(), o.w.Row<char>(j), k).ok()) std::abort();
    }
    return o;
  }
  for (int64_t i = 0; i < k * n; ++i) {
    float v = dist(rng);
    if (wtype == DType::kF32)
      static_cast<float*>(o.w.data)[i] = v;
    else
      static_cast<uint16_t*>(o.w.data)[i] =
          wtype == DType::kF16 ? vt::F32ToF16(v) : vt::F32ToBF16(v);
  }
  return o;
}

void Ours(benchmark::State& state, DType wtype) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Operands o = Make(wtype, m, k, n);
  vt::Backend& cpu = *vt::GetBackend(vt::DeviceType::kCPU);
  vt::Op op{vt::OpKind::kMatmul, {&o.w, &o.x}, &o.out, {}};
  for (auto _ : state) {
    if (!vt::RunOp(cpu, op).ok()) state.SkipWithError("matmul failed");
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(o.w.ByteSize()));
}

// As Ours, but each iteration multiplies the next of enough copies of the weights to fill
// 512 MiB, so they come from memory as a model's do (one matrix stays in L3 between calls and
// a decode of it reads at cache speed, not the machine's).
void OursFromMemory(benchmark::State& state, DType wtype) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Operands o = Make(wtype, m, k, n);
  vt::Backend& cpu = *vt::GetBackend(vt::DeviceType::kCPU);
  size_t copies = std::max<size_t>(2, (size_t{512} << 20) / o.w.ByteSize());
  std::vector<vt::Tensor> ws;
  for (size_t c = 0; c < copies; ++c) {
    ws.push_back(vt::NewTensor(cpu, wtype, {k, n, 1, 1}).value());
    std::memcpy(ws.back().data, o.w.data, o.w.ByteSize());
  }
  size_t next = 0;
  for (auto _ : state) {
    vt::Op op{vt::OpKind::kMatmul, {&ws[next], &o.x}, &o.out, {}};
    next = (next + 1) % copies;
    if (!vt::RunOp(cpu, op).ok()) state.SkipWithError("matmul failed");
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(o.w.ByteSize()));
}

void OpenBlas(benchmark::State& state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  Operands o = Make(DType::kF32, m, k, n);
  openblas_set_num_threads(static_cast<int>(std::thread::hardware_concurrency()));
  for (auto _ : state) {
    // C[M×N] = X[M×K] · W[N×K]ᵀ: vt's layout, row-major.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, static_cast<float*>(o.x.data), static_cast<int>(k),
                static_cast<float*>(o.w.data), static_cast<int>(k), 0.0f,
                static_cast<float*>(o.out.data), static_cast<int>(n));
  }
  state.counters["GFLOPS"] = benchmark::Counter(
      2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
  state.SetBytesProcessed(state.iterations() * k * n * 4);
  state.SetLabel(openblas_get_corename());
}

// Streaming read of 256 MiB with every thread: the decode shape's memory ceiling.
void StreamRead(benchmark::State& state) {
  const size_t floats = size_t{64} << 20;
  std::vector<float> data(floats, 1.0f);
  unsigned threads = std::thread::hardware_concurrency();
  std::vector<float> sums(threads * 16);
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        float acc[16] = {};
        size_t begin = floats / threads * t, end = floats / threads * (t + 1);
        for (size_t i = begin; i < end; i += 16)
          for (int u = 0; u < 16; ++u) acc[u] += data[i + u];
        for (int u = 0; u < 16; ++u) sums[t * 16 + u] = acc[u];
      });
    }
    for (auto& th : pool) th.join();
    benchmark::DoNotOptimize(sums.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(floats * 4));
}

void Shapes(benchmark::internal::Benchmark* b) {
  // 512x2048x5632 and 512x5632x2048: a 512-token prompt through the 2048-wide fixture's
  // feed-forward (up and gate, then down: K = 5632 takes eleven 512-deep slices).
  b->Args({4096, 512, 4096})
      ->Args({512, 512, 512})
      ->Args({512, 2048, 5632})
      ->Args({512, 5632, 2048});
  b->Args({1, 4096, 4096});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

// Decodes: the 2048-wide fixture's up/gate (K 2048) and down (K 5632) projections, one token
// and batches of eight and sixteen (vt-serve's step).
void DecodeShapes(benchmark::internal::Benchmark* b) {
  b->Args({1, 2048, 5632})
      ->Args({1, 5632, 2048})
      ->Args({8, 2048, 5632})
      ->Args({16, 2048, 5632})
      ->Args({16, 5632, 2048});
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
}

// Short prompts (vt-serve's 32-token prompts and prefill chunks): the same projections with
// 17, 32 and 48 activation rows, the short-prompt gemm's range (specs/engine-core.md).
void ShortShapes(benchmark::internal::Benchmark* b) {
  b->Args({17, 2048, 5632})
      ->Args({32, 2048, 5632})
      ->Args({32, 5632, 2048})
      ->Args({48, 2048, 5632})
      ->Args({48, 5632, 2048});
  b->Unit(benchmark::kMicrosecond)->UseRealTime();
}

}  // namespace

BENCHMARK(OpenBlas)->Apply(Shapes);
BENCHMARK_CAPTURE(Ours, f32, DType::kF32)->Apply(Shapes);
BENCHMARK_CAPTURE(Ours, f16, DType::kF16)->Apply(Shapes);
BENCHMARK_CAPTURE(Ours, bf16, DType::kBF16)->Apply(Shapes);
BENCHMARK_CAPTURE(Ours, f16_decode, DType::kF16)->Apply(DecodeShapes);
BENCHMARK_CAPTURE(Ours, f16_short, DType::kF16)->Apply(ShortShapes);
BENCHMARK_CAPTURE(OursFromMemory, f16_decode, DType::kF16)->Apply(DecodeShapes);
BENCHMARK_CAPTURE(Ours, q4_K, DType::kQ4_K)->Apply(DecodeShapes);
BENCHMARK_CAPTURE(Ours, q6_K, DType::kQ6_K)->Apply(DecodeShapes);
BENCHMARK_CAPTURE(Ours, q8_0, DType::kQ8_0)->Apply(DecodeShapes);
BENCHMARK_CAPTURE(Ours, q4_0, DType::kQ4_0)->Apply(DecodeShapes);
BENCHMARK(StreamRead)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
