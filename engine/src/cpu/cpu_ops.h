// CPU kernels other than the backend class: one function per op family.
#pragma once

#include "cpu/thread_pool.h"
#include "vt/ops.h"

namespace vt::cpu {

void Matmul(const Op& op, ThreadPool& pool);
void Elementwise(const Op& op, ThreadPool& pool);  // Add, Mul, Scale, Silu, Swiglu
void RmsNorm(const Op& op, ThreadPool& pool);
void Rope(const Op& op, ThreadPool& pool);
void Softmax(const Op& op, ThreadPool& pool);
void GetRows(const Op& op);
void TopK(const Op& op);
void Attention(const Op& op, ThreadPool& pool);
void Copy(const Op& op);

}  // namespace vt::cpu
