// Parity harness (like ggml's test-backend-ops): build random inputs, run an op on a backend
// and on the float64 reference, compare with NMSE, check the output is finite and that no
// byte past it was written.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "vt/backend.h"

namespace vt::testing {

inline constexpr double kTierGeneral = 1e-7;
inline constexpr double kTierHalfWeights = 5e-4;
// Both operands rounded to bf16 and summed in f32: the amx set's tile gemm (specs/amx.md),
// NMSE 4.4e-6 measured on random f32 weights.
inline constexpr double kTierBf16Operands = 2e-5;

// Every registered backend that has kernels (CPU always; CUDA and Vulkan when built and present).
std::vector<Backend*> KernelBackends();

// A host tensor of `dtype` filled from U(lo, hi) (rounded to the dtype).
Tensor RandomTensor(DType dtype, std::array<int64_t, 4> ne, std::mt19937& rng, float lo = -1,
                    float hi = 1);
// A host i32 tensor with the given values.
Tensor IntTensor(const std::vector<int32_t>& values);

// Runs `kind` on `backend` and on the reference and compares. Inputs are host tensors.
// A tier of 0 demands identical results (TopK indices, Copy).
::testing::AssertionResult Parity(Backend& backend, OpKind kind, const std::vector<Tensor>& inputs,
                                  const OpParams& params, double tier);

// The same, with the backend writing its output over its first input (in place), as the
// model's forward pass does for rope, residual adds and gating.
::testing::AssertionResult ParityInPlace(Backend& backend, OpKind kind,
                                         const std::vector<Tensor>& inputs, const OpParams& params,
                                         double tier);

// The float64 reference's output of `kind` over host tensors `src` (a failure, and empty, if
// it does not run): negative controls compare two of these.
std::vector<float> ReferenceOutput(OpKind kind, std::vector<const Tensor*> src,
                                   const OpParams& params);

// Σ(a−b)² / Σa², with a the reference.
double Nmse(const std::vector<float>& ref, const std::vector<float>& out);

}  // namespace vt::testing
