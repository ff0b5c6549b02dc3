#include "host_backend.h"

#include <cstdlib>
#include <cstring>

namespace vt {

HostBackend::~HostBackend() {
  for (auto& [size, p] : kept_) std::free(p);
}

// 64-byte alignment: a cache line, and what AVX-512 loads like. A large block comes from the
// kept ones when one is the size asked for or at most an eighth larger.
StatusOr<void*> HostBackend::Alloc(size_t bytes) {
  size_t rounded = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
  if (rounded >= kKeptBlockMinBytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = kept_.lower_bound(rounded);
    if (it != kept_.end() && it->first <= rounded + rounded / 8) {
      void* p = it->second;
      kept_bytes_ -= it->first;
      large_[p] = it->first;
      kept_.erase(it);
      return p;
    }
  }
  void* p = std::aligned_alloc(64, rounded);
  if (!p) return Status(StatusCode::kUnavailable, "out of host memory allocating " + std::to_string(bytes) + " bytes");
  if (rounded >= kKeptBlockMinBytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    large_[p] = rounded;
  }
  return p;
}

void HostBackend::Free(void* data) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = large_.find(data);
  if (it == large_.end() || kept_bytes_ + it->second > kKeptBytesMax) {
    if (it != large_.end()) large_.erase(it);
    lock.unlock();
    std::free(data);
    return;
  }
  kept_.emplace(it->second, data);
  kept_bytes_ += it->second;
  large_.erase(it);
}

size_t HostBackend::kept_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return kept_bytes_;
}

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
