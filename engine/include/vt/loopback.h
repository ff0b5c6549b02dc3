// The loopback backend: device kXPU, host memory, every transfer counted, no kernels. It lets
// every merge exercise device-crossing code (the MoE placement seam) without a GPU: a missing
// crossing fails loudly ("no kernel for op Matmul on device xpu"), and byte counts catch a copy
// of the wrong size that value comparisons miss.
#pragma once

#include <cstddef>

#include "vt/backend.h"

namespace vt {

struct TransferCounts {
  size_t to_device = 0, to_device_bytes = 0;
  size_t to_host = 0, to_host_bytes = 0;
  size_t within = 0, within_bytes = 0;
};

std::unique_ptr<Backend> MakeLoopbackBackend();
// The counters of a backend made by MakeLoopbackBackend (zeros for any other backend).
TransferCounts LoopbackCounts(const Backend& backend);
void ResetLoopbackCounts(Backend& backend);

}  // namespace vt
