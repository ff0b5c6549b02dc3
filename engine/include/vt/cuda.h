// CUDA devices: what the runtime reports, and a backend on one of them (specs/cuda.md).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "vt/backend.h"
#include "vt/status.h"

namespace vt {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  int major = 0, minor = 0;  // compute capability
  size_t memory_bytes = 0;
};

// No driver or no device: kUnavailable in the CUDA runtime's words.
StatusOr<std::vector<CudaDeviceInfo>> ListCudaDevices();

// `selector`: an index or a case-insensitive substring of a device name; empty means
// VT_CUDA_DEVICE, else device 0.
StatusOr<std::unique_ptr<Backend>> OpenCudaBackend(const std::string& selector);

// The process's CUDA backend, opened on first use and kept: what GetBackend(DeviceType::kCUDA)
// returns. Null when there is no usable device, or when VT_CUDA_DEVICE is "none".
Backend* DefaultCudaBackend();

}  // namespace vt
