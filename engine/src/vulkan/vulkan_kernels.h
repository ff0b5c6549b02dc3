// The core ops on a Vulkan device: which ops the shaders can run, and packing an op's tensors
// into a shader's bindings and push constants.
#pragma once

#include "vt/ops.h"
#include "vulkan/vulkan_device.h"

namespace vt::vulkan {

bool HasKernel(const Op& op);
// Queues `op`'s kernel on `device` (HasKernel(op) must hold).
Status RunKernel(Device& device, const Op& op);

}  // namespace vt::vulkan
