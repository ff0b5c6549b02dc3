#include "host_backend.h"

#include <cstdlib>
#include <cstring>

namespace vt {

// 64-byte alignment: a cache line, and what AVX-512 loads like.
StatusOr<void*> HostBackend::Alloc(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (!p) return Status(StatusCode::kUnavailable, "out of host memory allocating " + std::to_string(bytes) + " bytes");
  return p;
}

void HostBackend::Free(void* data) { std::free(data); }

Status HostBackend::CopyIn(void* dst, const void* host_src, size_t bytes) {
  std::memcpy(dst, host_src, bytes);
  return Status();
}

Status HostBackend::CopyOut(void* host_dst, const void* src, size_t bytes) {
  std::memcpy(host_dst, src, bytes);
  return Status();
}

Status HostBackend::CopyWithin(void* dst, const void* src, size_t bytes) {
  std::memmove(dst, src, bytes);
  return Status();
}

}  // namespace vt
