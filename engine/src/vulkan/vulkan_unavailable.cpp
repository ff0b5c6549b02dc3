// The Vulkan entry points of a build without Vulkan (VT_HAVE_VULKAN off): a Status that says so.
#include "vt/vulkan.h"

namespace vt {

StatusOr<std::vector<VulkanDeviceInfo>> ListVulkanDevices() {
  return Status(StatusCode::kUnavailable, "vulkan: vt was built without Vulkan (libvulkan-dev and glslc, cmake/Backends.cmake)");
}

StatusOr<std::unique_ptr<Backend>> OpenVulkanBackend(const std::string&) { return ListVulkanDevices().status(); }

Backend* DefaultVulkanBackend() { return nullptr; }

}  // namespace vt
