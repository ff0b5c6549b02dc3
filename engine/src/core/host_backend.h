// Backends whose memory is ordinary host memory (CPU, reference, loopback) share this.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>

#include "vt/backend.h"

namespace vt {

// Large blocks kept when freed (specs/engine-core.md): a forward pass frees and allocates the
// same sizes every step, and glibc returns blocks this large to the kernel, so every pass
// page-faulted its outputs in again.
inline constexpr size_t kKeptBlockMinBytes = size_t{128} << 10;
inline constexpr size_t kKeptBytesMax = size_t{512} << 20;

class HostBackend : public Backend {
 public:
  ~HostBackend() override;
  StatusOr<void*> Alloc(size_t bytes) override;
  void Free(void* data) override;
  Status CopyIn(void* dst, const void* host_src, size_t bytes) override;
  Status CopyOut(void* host_dst, const void* src, size_t bytes) override;
  Status CopyWithin(void* dst, const void* src, size_t bytes) override;
  size_t kept_bytes() const;  // freed large blocks held for reuse

 private:
  mutable std::mutex mutex_;
  std::unordered_map<void*, size_t> large_;  // large blocks handed out, by their sizes
  std::multimap<size_t, void*> kept_;        // large blocks freed and kept, by size
  size_t kept_bytes_ = 0;
};

}  // namespace vt
