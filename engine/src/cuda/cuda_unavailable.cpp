// The CUDA entry points of a build without nvcc (VT_HAVE_CUDA off): a Status that says so.
#include "vt/cuda.h"

namespace vt {

StatusOr<std::vector<CudaDeviceInfo>> ListCudaDevices() {
  return Status(StatusCode::kUnavailable, "cuda: vt was built without CUDA (nvcc was not found, cmake/Backends.cmake)");
}

StatusOr<std::unique_ptr<Backend>> OpenCudaBackend(const std::string&) { return ListCudaDevices().status(); }

Backend* DefaultCudaBackend() { return nullptr; }

}  // namespace vt
