// float64 implementations of every op: slow, obvious, and the truth for parity tests.
#pragma once

#include "vt/ops.h"
#include "vt/status.h"

namespace vt::reference {

void Matmul(const Op& op);
void Elementwise(const Op& op);  // Add, Mul, Scale, Silu, Swiglu, Geglu, SwigluOai
void RmsNorm(const Op& op);
void Rope(const Op& op);
void Softmax(const Op& op);
void GetRows(const Op& op);
void TopK(const Op& op);
void Attention(const Op& op);
void Copy(const Op& op);
// An id outside [0, experts) is an error naming the token, not a read out of bounds.
Status Experts(const Op& op);

}  // namespace vt::reference
