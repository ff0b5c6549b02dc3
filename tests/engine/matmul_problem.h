// What the CPU matmul tests share: a random problem (weights in a dtype and as f32), a check
// of one kernel path's columns against float64, the kernel sets this CPU runs, and the
// backend's Matmul of a problem.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"
#include "vt/backend.h"
#include "vt/dtype.h"

namespace vt::cpu {

struct Problem {
  int64_t M, K, N;
  DType wtype;
  std::vector<uint8_t> w;  // N rows of K weights
  std::vector<float> wf;   // the same weights as f32 (what every kernel set computes with)
  std::vector<float> x;    // M rows of K activations
};

inline Problem MakeProblem(int64_t M, int64_t K, int64_t N, DType wtype) {
  Problem p{M, K, N, wtype, {}, {}, {}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  size_t elem = wtype == DType::kF32 ? 4 : 2;
  p.w.resize(static_cast<size_t>(N * K) * elem);
  for (int64_t i = 0; i < N * K; ++i) {
    float v = dist(rng);
    if (wtype == DType::kF32) {
      std::memcpy(p.w.data() + 4 * i, &v, 4);
    } else {
      uint16_t h = wtype == DType::kF16 ? F32ToF16(v) : F32ToBF16(v);
      std::memcpy(p.w.data() + 2 * i, &h, 2);
      v = wtype == DType::kF16 ? F16ToF32(h) : BF16ToF32(h);
    }
    p.wf.push_back(v);
  }
  for (int64_t i = 0; i < M * K; ++i) p.x.push_back(dist(rng));
  return p;
}

enum class Path { kGemm, kGemv, kShort, kTiles };

// Runs `kernels.gemm` (or `kernels.gemv`, for M <= kGemvMaxRows, the short-prompt gemm or the tile
// gemm) for columns [n0, n1) into an output prefilled with a sentinel, and compares every element:
// in range against float64 (tolerance scaled by Σ|w·x|), out of range still the sentinel.
inline void Check(const MatmulKernels& kernels, const Problem& p, int64_t n0, int64_t n1,
                  Path path = Path::kGemm) {
  const bool gemv = path == Path::kGemv;
  const float kSentinel = 1234.5f;
  std::vector<float> out(static_cast<size_t>(p.M * p.N), kSentinel);
  std::vector<float> scratch(kGemmScratchFloats + 16);
  float* aligned =
      reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  GemmArgs a{reinterpret_cast<const char*>(p.w.data()),
             p.wtype,
             static_cast<size_t>(p.K) * (p.wtype == DType::kF32 ? 4 : 2),
             p.x.data(),
             static_cast<size_t>(p.K),
             out.data(),
             static_cast<size_t>(p.N),
             p.M,
             p.N,
             p.K};
  std::vector<float> panel;
  if (gemv) {
    kernels.gemv(a, n0, n1);
  } else if (path == Path::kShort) {
    kernels.short_gemm(a, kernels.pack_short(a, &panel), n0, n1);
  } else if (path == Path::kTiles) {
    std::vector<uint16_t> xb(static_cast<size_t>(TileRowsOf(p.M) * TileDepthOf(p.K)));
    kernels.tile_activations(a, 0, TileRowsOf(p.M), xb.data());
    kernels.tile_gemm(a, xb.data(), n0, n1);
  } else {
    kernels.gemm(a, n0, n1, aligned);
  }
  // The bf16-dot set rounds activations to bf16 for a gemm of bf16 weights: the reference
  // does too, so the tolerance stays that of f32 sums.
  bool bf16_x = std::string(kernels.name) == "avx512-bf16" && p.wtype == DType::kBF16 &&
                path == Path::kGemm && p.K % 2 == 0;
  // The tile gemm (specs/amx.md) rounds both operands to bf16.
  const bool tiles = path == Path::kTiles;
  bf16_x = bf16_x || tiles;
  int bad = 0;
  for (int64_t m = 0; m < p.M && bad < 5; ++m) {
    for (int64_t n = 0; n < p.N && bad < 5; ++n) {
      float got = out[static_cast<size_t>(m * p.N + n)];
      if (n < n0 || n >= n1) {
        if (got != kSentinel)
          ++bad, ADD_FAILURE() << "column " << n << " of row " << m
                               << " is outside the range and was written";
        continue;
      }
      double ref = 0, mag = 0;
      for (int64_t k = 0; k < p.K; ++k) {
        float x = p.x[static_cast<size_t>(m * p.K + k)];
        const float w = p.wf[static_cast<size_t>(n * p.K + k)];
        double t =
            double{tiles ? BF16ToF32(F32ToBF16(w)) : w} * (bf16_x ? BF16ToF32(F32ToBF16(x)) : x);
        ref += t;
        mag += std::fabs(t);
      }
      if (std::fabs(got - ref) > 1e-5 * mag + 1e-6)
        ++bad, ADD_FAILURE() << "out[" << m << "][" << n << "] = " << got << ", want " << ref;
    }
  }
}

// The q8_0 rounding of an activation row as ggml's quantize_row_q8_0 defines it (scale
// amax/127 kept as f16, each value times 1/scale rounded to nearest even), as doubles.
inline std::vector<double> Q8Rounded(const float* x, int64_t K) {
  std::vector<double> out(static_cast<size_t>(K));
  for (int64_t b = 0; b < K / 32; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[32 * b + j]));
    float scale = amax / 127.0f, inv = scale != 0.0f ? 1.0f / scale : 0.0f;
    double d = F16ToF32(F32ToF16(scale));
    for (int j = 0; j < 32; ++j)
      out[static_cast<size_t>(32 * b + j)] = d * std::nearbyint(x[32 * b + j] * inv);
  }
  return out;
}

// The q8_K rounding of ggml's quantize_row_q8_K: per 256, v the value of largest magnitude,
// iscale = -127 / v, q = nearest(iscale·x) capped at 127, value q / iscale.
inline std::vector<double> Q8KRounded(const float* x, int64_t K) {
  std::vector<double> out(static_cast<size_t>(K));
  for (int64_t b = 0; b < K / 256; ++b) {
    float amax = 0, max = 0;
    for (int j = 0; j < 256; ++j) {
      if (std::fabs(x[256 * b + j]) > amax) amax = std::fabs(x[256 * b + j]), max = x[256 * b + j];
    }
    float iscale = amax != 0 ? -127.0f / max : 0.0f, d = amax != 0 ? 1.0f / iscale : 0.0f;
    for (int j = 0; j < 256; ++j)
      out[static_cast<size_t>(256 * b + j)] =
          double{d} * std::min(127.0f, std::nearbyint(iscale * x[256 * b + j]));
  }
  return out;
}

inline std::vector<const MatmulKernels*> KernelSets() {
  std::vector<const MatmulKernels*> sets{&GenericKernels()};
  if (const MatmulKernels* k = Avx2Kernels()) sets.push_back(k);
  if (const MatmulKernels* k = Avx512Kernels()) sets.push_back(k);
  if (const MatmulKernels* k = Avx512Bf16Kernels()) sets.push_back(k);
  if (const MatmulKernels* k = AmxKernels()) sets.push_back(k);
  return sets;
}

// The backend's Matmul of p (weights f32, f16 or bf16) on `threads` threads: what a model's
// matmul computes.
inline std::vector<float> BackendMatmul(const Problem& p, int threads) {
  Backend& cpu = *GetBackend(DeviceType::kCPU);
  Tensor w = NewTensor(cpu, p.wtype, {p.K, p.N, 1, 1}).value(),
         x = NewTensor(cpu, DType::kF32, {p.K, p.M, 1, 1}).value();
  Tensor out = NewTensor(cpu, DType::kF32, {p.N, p.M, 1, 1}).value();
  std::memcpy(w.data, p.w.data(), p.w.size());
  std::memcpy(x.data, p.x.data(), p.x.size() * sizeof(float));
  ThreadPool pool(threads);
  Matmul(Op{OpKind::kMatmul, {&w, &x}, &out, {}}, pool);
  return {static_cast<const float*>(out.data), static_cast<const float*>(out.data) + p.M * p.N};
}

// p's GemmArgs writing into out (M x N).
inline GemmArgs ArgsOf(const Problem& p, float* out) {
  return GemmArgs{reinterpret_cast<const char*>(p.w.data()),
                  p.wtype,
                  static_cast<size_t>(p.K) * (p.wtype == DType::kF32 ? 4 : 2),
                  p.x.data(),
                  static_cast<size_t>(p.K),
                  out,
                  static_cast<size_t>(p.N),
                  p.M,
                  p.N,
                  p.K};
}

}  // namespace vt::cpu
