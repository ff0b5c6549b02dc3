#include <map>
#include <mutex>
#include <vector>

#include "vt/backend.h"
#include "vt/queue.h"
#include "vt/cuda.h"
#include "vt/vulkan.h"

namespace vt {

Backend& CpuBackendInstance();        // cpu/cpu_backend.cpp
Backend& ReferenceBackendInstance();  // reference/reference_backend.cpp

namespace {
std::mutex g_mutex;
std::map<DeviceType, Backend*>& Registry() {
  static std::map<DeviceType, Backend*> registry;
  return registry;
}

Backend* OwnerOf(const Tensor& t) {
  return t.buffer && t.buffer->backend ? t.buffer->backend : GetBackend(t.device.type);
}
}  // namespace

Status NoKernel(const Op& op, const Device& device) {
  return Status(StatusCode::kUnimplemented, "no kernel for op " + std::string(OpName(op.kind)) +
                                                " on device " + std::string(DeviceTypeName(device.type)));
}

Status RunOp(Backend& backend, const Op& op) {
  VT_RETURN_IF_ERROR(ValidateOp(op));
  if (!backend.Supports(op)) return NoKernel(op, backend.device());
  return backend.Run(op);
}

Status RunOps(Backend& backend, const std::vector<Op>& ops) {
  for (const Op& op : ops) {
    VT_RETURN_IF_ERROR(ValidateOp(op));
    if (!backend.Supports(op)) return NoKernel(op, backend.device());
  }
  return backend.RunGroup(ops);
}

Backend* GetBackend(DeviceType type) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = Registry().find(type);
    if (it != Registry().end()) return it->second;
  }
  // Devices that may be absent open on first use (outside the lock: opening takes a while).
  if (type == DeviceType::kVulkan) return DefaultVulkanBackend();
  if (type == DeviceType::kCUDA) return DefaultCudaBackend();
  return type == DeviceType::kCPU ? &CpuBackendInstance() : nullptr;
}

void RegisterBackend(DeviceType type, Backend* backend) {
  std::lock_guard<std::mutex> lock(g_mutex);
  Registry()[type] = backend;
}

Backend& ReferenceBackend() { return ReferenceBackendInstance(); }

Queue MakeQueue(Backend& backend) { return Queue{&backend, backend.device()}; }

Status CopyTensor(const Tensor& src, Tensor& dst) {
  if (src.dtype != dst.dtype || src.ne != dst.ne || !src.IsContiguous() || !dst.IsContiguous()) {
    return Status(StatusCode::kInvalidArgument, "CopyTensor: " + Describe(src) + " -> " + Describe(dst));
  }
  size_t bytes = src.ByteSize();
  Backend* from = OwnerOf(src);
  Backend* to = OwnerOf(dst);
  if (!from || !to) return Status(StatusCode::kUnavailable, "CopyTensor: no backend for a device");
  if (src.device == dst.device) return to->CopyWithin(dst.data, src.data, bytes);
  if (src.device.type == DeviceType::kCPU) return to->CopyIn(dst.data, src.data, bytes);
  if (dst.device.type == DeviceType::kCPU) return from->CopyOut(dst.data, src.data, bytes);
  std::vector<char> staging(bytes);
  VT_RETURN_IF_ERROR(from->CopyOut(staging.data(), src.data, bytes));
  return to->CopyIn(dst.data, staging.data(), bytes);
}

}  // namespace vt
