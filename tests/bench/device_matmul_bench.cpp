// The GPU backends' matmul against cuBLAS, same shapes and data, one binary, one run: vt's own
// kernels on GetBackend(kCUDA), cuBLAS on a second CUDA backend opened with
// VT_CUDA_MATMUL=cublas, and vt's Vulkan kernels on GetBackend(kVulkan) (on the GPU's Vulkan
// driver there; filter them out where only lavapipe is). Shapes (M×K×N): 4096³ (compute-bound; f32,
// f16, bf16 weights) and 1×4096×4096 (decode, memory-bound). Each iteration ends with a 4-byte read
// back, so the queued kernel has finished. Without a device a case is skipped, saying why.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "vt/backend.h"
#include "vt/cuda.h"
#include "vt/vulkan.h"

namespace {

using vt::DType;

vt::Backend* Cublas() {
  static std::unique_ptr<vt::Backend> backend = [] {
    setenv("VT_CUDA_MATMUL", "cublas", 1);
    auto b = vt::OpenCudaBackend("");
    unsetenv("VT_CUDA_MATMUL");
    return b.ok() ? std::move(b).value() : nullptr;
  }();
  return backend.get();
}

enum class Path { kVtCuda, kCublas, kVtVulkan };

void Matmul(benchmark::State& state, DType wtype, Path path) {
  vt::Backend* b = path == Path::kCublas   ? Cublas()
                   : path == Path::kVtCuda ? vt::GetBackend(vt::DeviceType::kCUDA)
                                           : vt::GetBackend(vt::DeviceType::kVulkan);
  if (!b) {
    auto why =
        path == Path::kVtVulkan ? vt::ListVulkanDevices().status() : vt::ListCudaDevices().status();
    state.SkipWithError(why.ok() ? "the device did not open" : why.message().c_str());
    return;
  }
  state.SetLabel(b->name());
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  auto w = vt::NewTensor(*b, wtype, {k, n, 1, 1});
  auto x = vt::NewTensor(*b, DType::kF32, {k, m, 1, 1});
  auto out = vt::NewTensor(*b, DType::kF32, {n, m, 1, 1});
  if (!w.ok() || !x.ok() || !out.ok()) {
    state.SkipWithError("out of device memory");
    return;
  }
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<uint16_t> wh(static_cast<size_t>(k * n));
  std::vector<float> wf(static_cast<size_t>(k * n)), xf(static_cast<size_t>(k * m));
  for (size_t i = 0; i < wf.size(); ++i)
    wf[i] = dist(rng), wh[i] = wtype == DType::kF16 ? vt::F32ToF16(wf[i]) : vt::F32ToBF16(wf[i]);
  for (float& v : xf) v = dist(rng);
  (void)b->CopyIn(w->data, wtype == DType::kF32 ? static_cast<void*>(wf.data()) : wh.data(),
                  w->ByteSize());
  (void)b->CopyIn(x->data, xf.data(), x->ByteSize());
  vt::Op op{vt::OpKind::kMatmul, {&w.value(), &x.value()}, &out.value(), {}};
  float probe;
  for (auto _ : state) {
    if (!vt::RunOp(*b, op).ok() || !b->CopyOut(&probe, out->data, 4).ok())
      state.SkipWithError("matmul failed");
  }
  state.counters["TFLOPS"] =
      benchmark::Counter(2.0 * m * k * n / 1e12, benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(w->ByteSize()));
}

void Shapes(benchmark::internal::Benchmark* b) {
  b->Args({4096, 4096, 4096})->Args({1, 4096, 4096})->UseRealTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK_CAPTURE(Matmul, cuda_f32, DType::kF32, Path::kVtCuda)->Apply(Shapes);
BENCHMARK_CAPTURE(Matmul, cublas_f32, DType::kF32, Path::kCublas)->Apply(Shapes);
BENCHMARK_CAPTURE(Matmul, vulkan_f32, DType::kF32, Path::kVtVulkan)->Apply(Shapes);
BENCHMARK_CAPTURE(Matmul, cuda_f16, DType::kF16, Path::kVtCuda)->Apply(Shapes);
BENCHMARK_CAPTURE(Matmul, cublas_f16, DType::kF16, Path::kCublas)->Apply(Shapes);
BENCHMARK_CAPTURE(Matmul, vulkan_f16, DType::kF16, Path::kVtVulkan)->Apply(Shapes);
BENCHMARK_CAPTURE(Matmul, cuda_bf16, DType::kBF16, Path::kVtCuda)->Apply(Shapes);
BENCHMARK_CAPTURE(Matmul, cublas_bf16, DType::kBF16, Path::kCublas)->Apply(Shapes);
BENCHMARK_CAPTURE(Matmul, vulkan_bf16, DType::kBF16, Path::kVtVulkan)->Apply(Shapes);

}  // namespace

BENCHMARK_MAIN();
