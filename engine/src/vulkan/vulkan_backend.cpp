// The Vulkan backend on one physical device: a logical device with a compute queue, storage
// buffers in host-visible coherent memory mapped once, copies through the mapping. The only
// file that includes the Vulkan headers.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "vt/vulkan.h"

namespace vt {
namespace {

Status VkError(const std::string& what, VkResult r) {
  return Status(StatusCode::kUnavailable, "vulkan: " + what + " failed (VkResult " + std::to_string(r) + ")");
}

std::string TypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual-gpu";
    default: return "other";
  }
}

// One instance for the process: devices outlive any one backend call.
StatusOr<VkInstance> Instance() {
  static VkInstance instance = VK_NULL_HANDLE;
  static VkResult result = [] {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "vt", 1, "vt", 1, VK_API_VERSION_1_1};
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, nullptr, 0, &app, 0, nullptr, 0, nullptr};
    return vkCreateInstance(&info, nullptr, &instance);
  }();
  if (result != VK_SUCCESS) {
    return Status(StatusCode::kUnavailable, "vulkan: no Vulkan driver could start (VkResult " + std::to_string(result) +
                                                "); lavapipe, a CPU driver, comes with mesa-vulkan-drivers");
  }
  return instance;
}

StatusOr<std::vector<VkPhysicalDevice>> PhysicalDevices() {
  auto instance = Instance();
  if (!instance.ok()) return instance.status();
  uint32_t n = 0;
  VkResult r = vkEnumeratePhysicalDevices(instance.value(), &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  if (r == VK_SUCCESS && n > 0) r = vkEnumeratePhysicalDevices(instance.value(), &n, devices.data());
  if (r != VK_SUCCESS) return VkError("vkEnumeratePhysicalDevices", r);
  if (devices.empty()) return Status(StatusCode::kUnavailable, "vulkan: the loader reports no device");
  return devices;
}

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
};

class VulkanBackend final : public Backend {
 public:
  VulkanBackend(VkPhysicalDevice physical, int index, std::string device_name)
      : physical_(physical), index_(index), device_name_(std::move(device_name)) {}
  ~VulkanBackend() override {
    if (device_) vkDestroyDevice(device_, nullptr);
  }

  Status Open() {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n, families.data());
    auto it = std::find_if(families.begin(), families.end(), [](const auto& f) { return f.queueFlags & VK_QUEUE_COMPUTE_BIT; });
    if (it == families.end()) return Status(StatusCode::kUnavailable, "vulkan: " + device_name_ + " has no compute queue");
    family_ = static_cast<uint32_t>(it - families.begin());
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, family_, 1, &priority};
    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, nullptr, 0, 1, &queue, 0, nullptr, 0, nullptr, nullptr};
    VkResult r = vkCreateDevice(physical_, &info, nullptr, &device_);
    if (r != VK_SUCCESS) return VkError("vkCreateDevice on " + device_name_, r);
    vkGetDeviceQueue(device_, family_, 0, &queue_);
    vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);
    return Status();
  }

  std::string name() const override { return "vulkan:" + device_name_; }
  Device device() const override { return Device{DeviceType::kVulkan, index_}; }

  StatusOr<void*> Alloc(size_t bytes) override {
    auto b = std::make_unique<Buffer>();
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, std::max<size_t>(bytes, 4),
                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            VK_SHARING_MODE_EXCLUSIVE, 0, nullptr};
    VkResult r = vkCreateBuffer(device_, &info, nullptr, &b->buffer);
    if (r != VK_SUCCESS) return OutOfMemory(bytes, r);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, b->buffer, &req);
    int type = MemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size, static_cast<uint32_t>(type)};
    r = type < 0 ? VK_ERROR_OUT_OF_DEVICE_MEMORY : vkAllocateMemory(device_, &alloc, nullptr, &b->memory);
    if (r == VK_SUCCESS) r = vkBindBufferMemory(device_, b->buffer, b->memory, 0);
    if (r == VK_SUCCESS) r = vkMapMemory(device_, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
    if (r != VK_SUCCESS) {
      Release(b.get());
      return OutOfMemory(bytes, r);
    }
    return static_cast<void*>(b.release());
  }

  void Free(void* data) override {
    auto* b = static_cast<Buffer*>(data);
    Release(b);
    delete b;
  }

  Status CopyIn(void* dst, const void* host_src, size_t bytes) override {
    std::memcpy(static_cast<Buffer*>(dst)->mapped, host_src, bytes);
    return Status();
  }
  Status CopyOut(void* host_dst, const void* src, size_t bytes) override {
    std::memcpy(host_dst, static_cast<const Buffer*>(src)->mapped, bytes);
    return Status();
  }
  Status CopyWithin(void* dst, const void* src, size_t bytes) override {
    std::memcpy(static_cast<Buffer*>(dst)->mapped, static_cast<const Buffer*>(src)->mapped, bytes);
    return Status();
  }

  bool Supports(const Op&) const override { return false; }
  Status Run(const Op& op) override { return NoKernel(op, device()); }

 private:
  int MemoryType(uint32_t allowed, VkMemoryPropertyFlags want) const {
    for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
      if ((allowed & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & want) == want) return static_cast<int>(i);
    }
    return -1;
  }
  Status OutOfMemory(size_t bytes, VkResult r) const {
    return Status(StatusCode::kUnavailable, "vulkan: " + device_name_ + ": cannot allocate " + std::to_string(bytes) +
                                                " bytes (VkResult " + std::to_string(r) + ")");
  }
  void Release(Buffer* b) {
    if (b->mapped) vkUnmapMemory(device_, b->memory);
    if (b->buffer) vkDestroyBuffer(device_, b->buffer, nullptr);
    if (b->memory) vkFreeMemory(device_, b->memory, nullptr);
  }

  VkPhysicalDevice physical_;
  int index_;
  std::string device_name_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkPhysicalDeviceMemoryProperties memory_{};
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

StatusOr<std::vector<VulkanDeviceInfo>> ListVulkanDevices() {
  auto devices = PhysicalDevices();
  if (!devices.ok()) return devices.status();
  std::vector<VulkanDeviceInfo> out;
  for (size_t i = 0; i < devices.value().size(); ++i) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(devices.value()[i], &p);
    out.push_back({static_cast<int>(i), p.deviceName, TypeName(p.deviceType)});
  }
  return out;
}

StatusOr<std::unique_ptr<Backend>> OpenVulkanBackend(const std::string& selector) {
  auto infos = ListVulkanDevices();
  if (!infos.ok()) return infos.status();
  const char* env = std::getenv("VT_VULKAN_DEVICE");
  std::string want = !selector.empty() ? selector : env ? env : "0";
  const VulkanDeviceInfo* chosen = nullptr;
  bool numeric = !want.empty() && std::all_of(want.begin(), want.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  for (const VulkanDeviceInfo& d : infos.value()) {
    bool match = numeric ? std::to_string(d.index) == want : Lower(d.name).find(Lower(want)) != std::string::npos;
    if (match && !chosen) chosen = &d;
  }
  if (!chosen) {
    std::string there;
    for (const VulkanDeviceInfo& d : infos.value()) there += (there.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
    return Status(StatusCode::kInvalidArgument, "vulkan: no device matches \"" + want + "\" (devices: " + there + ")");
  }
  auto backend = std::make_unique<VulkanBackend>(PhysicalDevices().value()[static_cast<size_t>(chosen->index)], chosen->index, chosen->name);
  VT_RETURN_IF_ERROR(backend->Open());
  return std::unique_ptr<Backend>(std::move(backend));
}

}  // namespace vt
