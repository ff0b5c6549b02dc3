// A tensor: up to 4 dimensions in ggml order (ne[0] contiguous), byte strides, a dtype, the
// device its bytes live on, and either owned memory or a view into another tensor's memory.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "vt/device.h"
#include "vt/dtype.h"
#include "vt/status.h"

namespace vt {

class Backend;

// Device memory from one backend, freed through it when the last tensor lets go.
// Memory not from a backend (a mapped file) has no backend and is kept alive by `owner`.
struct Buffer {
  Backend* backend = nullptr;
  void* data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<const void> owner;
  ~Buffer();
};

struct Tensor {
  DType dtype = DType::kF32;
  std::array<int64_t, 4> ne{1, 1, 1, 1};
  std::array<size_t, 4> nb{0, 0, 0, 0};
  Device device;
  void* data = nullptr;
  std::shared_ptr<Buffer> buffer;  // keeps `data` alive (owner or the viewed tensor's)

  int64_t NumElements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
  int64_t Rows() const { return ne[1] * ne[2] * ne[3]; }
  // Bytes of a contiguous tensor of this dtype and shape.
  size_t ByteSize() const { return RowBytes(dtype, ne[0]) * static_cast<size_t>(Rows()); }
  bool IsContiguous() const;
  bool SameShape(const Tensor& o) const { return ne == o.ne; }

  template <typename T>
  T* Row(int64_t i1, int64_t i2 = 0, int64_t i3 = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(data) + i1 * nb[1] + i2 * nb[2] + i3 * nb[3]);
  }
};

// Contiguous strides for a dtype and shape.
std::array<size_t, 4> ContiguousStrides(DType dtype, const std::array<int64_t, 4>& ne);

// Allocates a contiguous tensor on `backend`'s device.
StatusOr<Tensor> NewTensor(Backend& backend, DType dtype, std::array<int64_t, 4> ne);

// A view of `parent` starting `offset` bytes in, with its own shape and strides.
Tensor View(const Tensor& parent, std::array<int64_t, 4> ne, std::array<size_t, 4> nb, size_t offset);

// "f32[64,8,1,1]@cpu" for messages.
std::string Describe(const Tensor& t);

}  // namespace vt
