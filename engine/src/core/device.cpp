#include "vt/device.h"

namespace vt {

std::string_view DeviceTypeName(DeviceType t) {
  switch (t) {
    case DeviceType::kCPU: return "cpu";
    case DeviceType::kCUDA: return "cuda";
    case DeviceType::kVulkan: return "vulkan";
    case DeviceType::kXPU: return "xpu";
  }
  return "?";
}

}  // namespace vt
