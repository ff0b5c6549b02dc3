// The Vulkan backend: the backend contract over one vulkan::Device. A tensor's `data` is a
// buffer's handle plus an offset (the mapped address where the host can map the memory), so
// views are pointer arithmetic as on every backend; copies go through the device, which runs
// the queued kernels first.

#include "core/device_choice.h"
#include "vulkan/vulkan_device.h"
#include "vulkan/vulkan_kernels.h"

namespace vt {
namespace {

class VulkanBackend final : public Backend {
 public:
  explicit VulkanBackend(std::unique_ptr<vulkan::Device> device) : device_(std::move(device)) {}

  std::string name() const override { return "vulkan:" + device_->name(); }
  Device device() const override { return Device{DeviceType::kVulkan, device_->index()}; }

  StatusOr<void*> Alloc(size_t bytes) override { return device_->Alloc(bytes); }
  void Free(void* data) override { device_->Free(data); }

  Status CopyIn(void* dst, const void* host_src, size_t bytes) override { return device_->Write(dst, host_src, bytes); }
  Status CopyOut(void* host_dst, const void* src, size_t bytes) override { return device_->Read(host_dst, src, bytes); }
  Status CopyWithin(void* dst, const void* src, size_t bytes) override { return device_->Move(dst, src, bytes); }

  bool Supports(const Op& op) const override { return vulkan::HasKernel(op); }
  Status Run(const Op& op) override {
    if (!Supports(op)) return NoKernel(op, device());
    return vulkan::RunKernel(*device_, op);
  }

 private:
  std::unique_ptr<vulkan::Device> device_;
};

}  // namespace

StatusOr<std::vector<VulkanDeviceInfo>> ListVulkanDevices() { return vulkan::Device::List(); }

StatusOr<std::unique_ptr<Backend>> OpenVulkanBackend(const std::string& selector) {
  auto infos = ListVulkanDevices();
  if (!infos.ok()) return infos.status();
  std::vector<std::string> names;
  for (const VulkanDeviceInfo& d : infos.value()) names.push_back(d.name);
  auto chosen = ChooseDevice(names, selector, "VT_VULKAN_DEVICE", "vulkan");
  if (!chosen.ok()) return chosen.status();
  auto device = vulkan::Device::Open(chosen.value());
  if (!device.ok()) return device.status();
  return std::unique_ptr<Backend>(std::make_unique<VulkanBackend>(std::move(device).value()));
}

Backend* DefaultVulkanBackend() {
  static Backend* backend = OpenDefault("VT_VULKAN_DEVICE", OpenVulkanBackend);
  return backend;
}

}  // namespace vt
