// Vulkan devices: what the loader reports, and a backend on one of them (specs/vulkan.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vt/backend.h"
#include "vt/status.h"

namespace vt {

struct VulkanDeviceInfo {
  int index = 0;
  std::string name;
  std::string type;  // cpu, integrated-gpu, discrete-gpu, virtual-gpu, other
};

StatusOr<std::vector<VulkanDeviceInfo>> ListVulkanDevices();

// `selector`: an index or a case-insensitive substring of a device name; empty means
// VT_VULKAN_DEVICE, else the first device.
StatusOr<std::unique_ptr<Backend>> OpenVulkanBackend(const std::string& selector);

// The process's Vulkan backend, opened on first use as OpenVulkanBackend("") would and kept:
// what GetBackend(DeviceType::kVulkan) returns. Null when there is no usable device, or when
// VT_VULKAN_DEVICE is "none".
Backend* DefaultVulkanBackend();

}  // namespace vt
