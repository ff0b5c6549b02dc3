#include "device_flag.h"

#include "vt/cuda.h"
#include "vt/vulkan.h"

namespace vttools {

vt::StatusOr<vt::Backend*> OpenDevice(const std::string& spec, std::unique_ptr<vt::Backend>& opened) {
  size_t colon = spec.find(':');
  std::string kind = spec.substr(0, colon), selector = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (spec == "cpu") return vt::GetBackend(vt::DeviceType::kCPU);
  if (kind != "vulkan" && kind != "cuda") {
    return vt::Status(vt::StatusCode::kInvalidArgument, "--device: unknown device \"" + spec + "\" (cpu, vulkan[:N], cuda[:N])");
  }
  auto backend = kind == "vulkan" ? vt::OpenVulkanBackend(selector) : vt::OpenCudaBackend(selector);
  if (!backend.ok()) return vt::Status(backend.status().code(), "--device " + spec + ": " + backend.status().message());
  opened = std::move(backend).value();
  return opened.get();
}

}  // namespace vttools
