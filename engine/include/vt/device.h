// Where memory lives and kernels run.
#pragma once

#include <string_view>

namespace vt {

// kXPU is the loopback test device: host memory, counted transfers, no kernels.
enum class DeviceType { kCPU, kCUDA, kVulkan, kXPU };

std::string_view DeviceTypeName(DeviceType t);  // "cpu", "cuda", "vulkan", "xpu"

struct Device {
  DeviceType type = DeviceType::kCPU;
  int index = 0;
  bool operator==(const Device&) const = default;
};

}  // namespace vt
