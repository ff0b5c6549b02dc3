// Backends whose memory is ordinary host memory (CPU, reference, loopback) share this.
#pragma once

#include "vt/backend.h"

namespace vt {

class HostBackend : public Backend {
 public:
  StatusOr<void*> Alloc(size_t bytes) override;
  void Free(void* data) override;
  Status CopyIn(void* dst, const void* host_src, size_t bytes) override;
  Status CopyOut(void* host_dst, const void* src, size_t bytes) override;
  Status CopyWithin(void* dst, const void* src, size_t bytes) override;
};

}  // namespace vt
