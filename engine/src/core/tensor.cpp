#include "vt/tensor.h"

#include "vt/backend.h"

namespace vt {

Buffer::~Buffer() {
  if (backend && data) backend->Free(data);
}

// Strides of dimensions of size 1 never matter: a one-row view of a matrix is contiguous.
bool Tensor::IsContiguous() const {
  std::array<size_t, 4> want = ContiguousStrides(dtype, ne);
  if (nb[0] != want[0]) return false;
  for (int i = 1; i < 4; ++i) {
    if (ne[i] > 1 && nb[i] != want[i]) return false;
  }
  return true;
}

std::array<size_t, 4> ContiguousStrides(DType dtype, const std::array<int64_t, 4>& ne) {
  std::array<size_t, 4> nb;
  nb[0] = BlockBytes(dtype);
  nb[1] = RowBytes(dtype, ne[0]);
  nb[2] = nb[1] * static_cast<size_t>(ne[1]);
  nb[3] = nb[2] * static_cast<size_t>(ne[2]);
  return nb;
}

StatusOr<Tensor> NewTensor(Backend& backend, DType dtype, std::array<int64_t, 4> ne) {
  for (int64_t n : ne) {
    if (n < 1) return Status(StatusCode::kInvalidArgument, "tensor dimension < 1");
  }
  if (ne[0] % BlockSize(dtype) != 0) {
    return Status(StatusCode::kInvalidArgument, std::string("ne[0] is not a multiple of the ") +
                                                    std::string(DTypeName(dtype)) + " block size");
  }
  Tensor t;
  t.dtype = dtype;
  t.ne = ne;
  t.nb = ContiguousStrides(dtype, ne);
  t.device = backend.device();
  auto data = backend.Alloc(t.ByteSize());
  if (!data.ok()) return data.status();
  t.buffer = std::make_shared<Buffer>();
  t.buffer->backend = &backend;
  t.buffer->data = data.value();
  t.buffer->bytes = t.ByteSize();
  t.data = data.value();
  return t;
}

Tensor View(const Tensor& parent, std::array<int64_t, 4> ne, std::array<size_t, 4> nb, size_t offset) {
  Tensor v = parent;
  v.ne = ne;
  v.nb = nb;
  v.data = static_cast<char*>(parent.data) + offset;
  return v;
}

std::string Describe(const Tensor& t) {
  std::string s(DTypeName(t.dtype));
  s += "[" + std::to_string(t.ne[0]) + "," + std::to_string(t.ne[1]) + "," + std::to_string(t.ne[2]) +
       "," + std::to_string(t.ne[3]) + "]@" + std::string(DeviceTypeName(t.device.type));
  return s;
}

}  // namespace vt
