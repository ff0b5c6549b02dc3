// CPU kernels other than the backend class: one function per op family.
#pragma once

#include <vector>

#include "cpu/thread_pool.h"
#include "vt/ops.h"

namespace vt::cpu {

void Matmul(const Op& op, ThreadPool& pool);
// A group of decode matmuls (each M <= kGemvMaxRows, 2-D) as one pool dispatch, each
// matmul's bits those it gets alone; false (nothing run) for any other group.
bool DecodeGroup(const std::vector<Op>& ops, ThreadPool& pool);
// The weight as the best kernel set decodes it fastest: Q4_0 interleaved (vt/quant.h) into
// memory from `backend` where the set reads that order; otherwise `w` itself.
StatusOr<Tensor> AdoptMatmulWeight(Backend& backend, const Tensor& w);
void Elementwise(const Op& op, ThreadPool& pool);  // Add, Mul, Scale, Silu, Swiglu, Geglu, SwigluOai
void RmsNorm(const Op& op, ThreadPool& pool);
void Rope(const Op& op, ThreadPool& pool);
void Softmax(const Op& op, ThreadPool& pool);
void GetRows(const Op& op, ThreadPool& pool);
void TopK(const Op& op);
void Attention(const Op& op, ThreadPool& pool);
// Attention with `per_token` given: every query token's scores, softmax and values as a decode
// step of that token alone computes them (what Attention does under the batch-invariant
// choice, specs/amx.md), else a prompt's blocks through the packed gemms.
void AttentionOf(const Op& op, ThreadPool& pool, bool per_token);
void Copy(const Op& op, ThreadPool& pool);
// A MoE decode step's routed experts (T <= kGemvMaxRows); an id that names no expert is an
// error (ids are data, read here for the first time).
Status Experts(const Op& op, ThreadPool& pool);
// o = x·σ(x), times y when y is given; `o` may be `x`. Every op that applies SiLU calls it,
// so a fused op gives the bits of the single ones.
void SiluRow(const float* x, const float* y, float* o, int64_t n);

}  // namespace vt::cpu
