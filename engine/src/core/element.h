// Reading and writing one element of a float-like tensor as float or double, for code that
// is not the hot path (reference ops, tests, conversions).
#pragma once

#include <cstring>

#include "vt/dtype.h"

namespace vt {

inline double LoadElement(DType t, const void* p) {
  uint16_t h;
  switch (t) {
    case DType::kF32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::kF16: std::memcpy(&h, p, 2); return F16ToF32(h);
    case DType::kBF16: std::memcpy(&h, p, 2); return BF16ToF32(h);
    case DType::kI32: { int32_t i; std::memcpy(&i, p, 4); return i; }
    default: return 0;
  }
}

inline void StoreElement(DType t, void* p, double v) {
  uint16_t h;
  switch (t) {
    case DType::kF32: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); return; }
    case DType::kF16: h = F32ToF16(static_cast<float>(v)); std::memcpy(p, &h, 2); return;
    case DType::kBF16: h = F32ToBF16(static_cast<float>(v)); std::memcpy(p, &h, 2); return;
    case DType::kI32: { int32_t i = static_cast<int32_t>(v); std::memcpy(p, &i, 4); return; }
    default: return;
  }
}

}  // namespace vt
