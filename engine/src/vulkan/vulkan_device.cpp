// The Vulkan device: instance and device selection, buffers (device-local and mapped where the
// driver offers that, else device-local behind a reserved handle, else host memory; see
// MemoryMode), one pipeline per shader over a shared layout (four storage buffers, 128 bytes of
// push constants), and a command buffer that collects dispatches until the host needs memory.
#include "vulkan/vulkan_impl.h"

#include <sys/mman.h>

#include <cstdlib>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>

#include "attention_spv.h"
#include "copy_spv.h"
#include "elementwise_spv.h"
#include "get_rows_spv.h"
#include "matmul_tiled_spv.h"
#include "matmul_vec_spv.h"
#include "rms_norm_spv.h"
#include "rope_spv.h"
#include "softmax_spv.h"
#include "top_k_spv.h"

namespace vt::vulkan {
namespace {

struct Spirv {
  const uint32_t* words;
  size_t bytes;
};
// Indexed by Kernel.
const Spirv kShaders[] = {
    {k_elementwise_spv, sizeof k_elementwise_spv}, {k_matmul_vec_spv, sizeof k_matmul_vec_spv},
    {k_matmul_tiled_spv, sizeof k_matmul_tiled_spv},
    {k_rms_norm_spv, sizeof k_rms_norm_spv},       {k_softmax_spv, sizeof k_softmax_spv},
    {k_rope_spv, sizeof k_rope_spv},               {k_get_rows_spv, sizeof k_get_rows_spv},
    {k_top_k_spv, sizeof k_top_k_spv},             {k_attention_spv, sizeof k_attention_spv},
    {k_copy_spv, sizeof k_copy_spv}};
static_assert(sizeof kShaders / sizeof kShaders[0] == kKernels, "a shader per Kernel");

}  // namespace

Status VkError(const std::string& what, VkResult r) {
  return Status(StatusCode::kUnavailable, "vulkan: " + what + " failed (VkResult " + std::to_string(r) + ")");
}

namespace {

std::string TypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual-gpu";
    default: return "other";
  }
}

// One instance for the process: devices outlive any one backend.
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

}  // namespace

Device::Impl::~Impl() {
  if (!device) return;
  vkDeviceWaitIdle(device);
  for (auto& [base, b] : buffers) Release(b);
  for (Buffer& b : doomed) Release(b);
  for (auto& [size, b] : cache) Release(b);
  Release(staging);
  for (size_t k = 0; k < kKernels; ++k) {
    if (pipelines[k]) vkDestroyPipeline(device, pipelines[k], nullptr);
    if (modules[k]) vkDestroyShaderModule(device, modules[k], nullptr);
  }
  if (layout) vkDestroyPipelineLayout(device, layout, nullptr);
  if (set_layout) vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
  if (pool) vkDestroyDescriptorPool(device, pool, nullptr);
  if (fence) vkDestroyFence(device, fence, nullptr);
  if (commands) vkDestroyCommandPool(device, commands, nullptr);
  vkDestroyDevice(device, nullptr);
}

Status Device::Impl::Open() {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &n, families.data());
  auto it = std::find_if(families.begin(), families.end(), [](const auto& f) { return f.queueFlags & VK_QUEUE_COMPUTE_BIT; });
  if (it == families.end()) return Status(StatusCode::kUnavailable, "vulkan: " + name + " has no compute queue");
  family = static_cast<uint32_t>(it - families.begin());
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, family, 1, &priority};
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, nullptr, 0, 1, &queue_info, 0, nullptr, 0, nullptr, nullptr};
  VkResult r = vkCreateDevice(physical, &info, nullptr, &device);
  if (r != VK_SUCCESS) return VkError("vkCreateDevice on " + name, r);
  vkGetDeviceQueue(device, family, 0, &queue);
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);
  VT_RETURN_IF_ERROR(OpenCompute());
  return MakePipelines();
}

Status Device::Impl::OpenCompute() {
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr,
                                    VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family};
  VkResult r = vkCreateCommandPool(device, &pool_info, nullptr, &commands);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, commands,
                                    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
  if (r == VK_SUCCESS) r = vkAllocateCommandBuffers(device, &alloc, &cmd);
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, nullptr, 0};
  if (r == VK_SUCCESS) r = vkCreateFence(device, &fence_info, nullptr, &fence);
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBindings * kMaxSets};
  VkDescriptorPoolCreateInfo descriptors{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, nullptr, 0, kMaxSets, 1, &size};
  if (r == VK_SUCCESS) r = vkCreateDescriptorPool(device, &descriptors, nullptr, &pool);
  return r == VK_SUCCESS ? Status() : VkError("setting up compute on " + name, r);
}

Status Device::Impl::MakePipelines() {
  VkDescriptorSetLayoutBinding bindings[kBindings];
  for (uint32_t i = 0; i < kBindings; ++i) {
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, nullptr, 0, kBindings, bindings};
  VkResult r = vkCreateDescriptorSetLayout(device, &set, nullptr, &set_layout);
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kMaxPushBytes};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, nullptr, 0, 1, &set_layout, 1, &push};
  if (r == VK_SUCCESS) r = vkCreatePipelineLayout(device, &layout_info, nullptr, &layout);
  for (size_t k = 0; k < kKernels && r == VK_SUCCESS; ++k) {
    VkShaderModuleCreateInfo module{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, 0, kShaders[k].bytes, kShaders[k].words};
    r = vkCreateShaderModule(device, &module, nullptr, &modules[k]);
    VkPipelineShaderStageCreateInfo stage{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0,
                                          VK_SHADER_STAGE_COMPUTE_BIT, modules[k], "main", nullptr};
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, nullptr, 0, stage, layout, VK_NULL_HANDLE, -1};
    if (r == VK_SUCCESS) r = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &pipelines[k]);
  }
  return r == VK_SUCCESS ? Status() : VkError("building the compute pipelines on " + name, r);
}

int Device::Impl::MemoryType(uint32_t allowed, VkMemoryPropertyFlags want) const {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((allowed & (1u << i)) && (memory.memoryTypes[i].propertyFlags & want) == want) return static_cast<int>(i);
  }
  return -1;
}

// Binds memory of a type with `want` to b.buffer, mapping it (`map`) or reserving a handle.
Status Device::Impl::Bind(Buffer& b, const VkMemoryRequirements& req, VkMemoryPropertyFlags want, bool map) {
  int type = MemoryType(req.memoryTypeBits, want);
  if (type < 0) return VkError("no memory type", VK_ERROR_OUT_OF_DEVICE_MEMORY);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size, static_cast<uint32_t>(type)};
  VkResult r = vkAllocateMemory(device, &alloc, nullptr, &b.memory);
  if (r == VK_SUCCESS) r = vkBindBufferMemory(device, b.buffer, b.memory, 0);
  if (r == VK_SUCCESS && map) r = vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
  if (r == VK_SUCCESS && !map) {
    void* reserved = mmap(nullptr, b.size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) r = VK_ERROR_OUT_OF_HOST_MEMORY;
    else b.handle = reserved;
  }
  if (r == VK_SUCCESS && map) b.handle = b.mapped;
  if (r != VK_SUCCESS && b.memory) {
    if (b.mapped) vkUnmapMemory(device, b.memory);
    vkFreeMemory(device, b.memory, nullptr);
    b.memory = VK_NULL_HANDLE;
    b.mapped = nullptr;
  }
  return r == VK_SUCCESS ? Status() : VkError("allocating memory", r);
}

Status Device::Impl::Allocate(Buffer& b, size_t bytes, MemoryMode how) {
  b.size = WordBytes(bytes);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, b.size,
                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          VK_SHARING_MODE_EXCLUSIVE, 0, nullptr};
  VkResult r = vkCreateBuffer(device, &info, nullptr, &b.buffer);
  Status bound = VkError("creating a buffer", r);
  if (r == VK_SUCCESS) {
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buffer, &req);
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    if (how == MemoryMode::kAuto) bound = Bind(b, req, host | local, true);
    if (how != MemoryMode::kHost && !bound.ok()) bound = Bind(b, req, local, false);
    if (how == MemoryMode::kDevice && !bound.ok()) bound = Bind(b, req, 0, false);
    if (how != MemoryMode::kDevice && !bound.ok()) bound = Bind(b, req, host, true);
  }
  if (!bound.ok()) {
    Release(b);
    return Status(StatusCode::kUnavailable, "vulkan: " + name + ": cannot allocate " + std::to_string(bytes) +
                                                " bytes (" + bound.message() + ")");
  }
  return Status();
}

// The forward pass frees and allocates the same sizes every token; keeping freed buffers
// (up to kCacheBytes) spares the driver an allocation and a free per op.
void Device::Impl::Recycle(Buffer& b) {
  if (cached_bytes + b.size > kCacheBytes) return Release(b);
  cached_bytes += b.size;
  cache.emplace(b.size, b);
  b = Buffer{};
}

void Device::Impl::Release(Buffer& b) {
  if (b.mapped) vkUnmapMemory(device, b.memory);
  else if (b.handle) munmap(b.handle, b.size);
  if (b.buffer) vkDestroyBuffer(device, b.buffer, nullptr);
  if (b.memory) vkFreeMemory(device, b.memory, nullptr);
  b = Buffer{};
}

Status Device::Impl::Begin() {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, nullptr};
  VkResult r = vkResetCommandBuffer(cmd, 0);
  if (r == VK_SUCCESS) r = vkBeginCommandBuffer(cmd, &begin);
  if (r != VK_SUCCESS) return VkError("starting a command buffer on " + name, r);
  recording = true;
  return Status();
}

Status Device::Impl::FinishLocked() {
  VkResult r = VK_SUCCESS;
  if (recording) {
    // Shader writes become visible to the host's reads of the mapped memory.
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                         1, &barrier, 0, nullptr, 0, nullptr);
    r = vkEndCommandBuffer(cmd);
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, 0, nullptr, nullptr, 1, &cmd, 0, nullptr};
    if (r == VK_SUCCESS) r = vkQueueSubmit(queue, 1, &submit, fence);
    if (r == VK_SUCCESS) r = vkWaitForFences(device, 1, &fence, VK_TRUE, kWaitNanos);
    if (r == VK_SUCCESS) r = vkResetFences(device, 1, &fence);
    vkResetDescriptorPool(device, pool, 0);
    recording = false;
  }
  for (Buffer& b : doomed) Recycle(b);
  doomed.clear();
  uint32_t ran = queued;
  queued = 0;
  if (r == VK_SUCCESS) return Status();
  return VkError(name + ": running " + std::to_string(ran) + " queued kernels (last: " + last_op + ")", r);
}

Device::Device(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Device::~Device() = default;

const std::string& Device::name() const { return impl_->name; }
int Device::index() const { return impl_->index; }

StatusOr<std::vector<VulkanDeviceInfo>> Device::List() {
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

StatusOr<std::unique_ptr<Device>> Device::Open(int index) {
  auto devices = PhysicalDevices();
  if (!devices.ok()) return devices.status();
  if (index < 0 || static_cast<size_t>(index) >= devices.value().size()) {
    return Status(StatusCode::kInvalidArgument, "vulkan: no device " + std::to_string(index));
  }
  auto impl = std::make_unique<Impl>();
  impl->physical = devices.value()[static_cast<size_t>(index)];
  impl->index = index;
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(impl->physical, &p);
  impl->name = p.deviceName;
  const char* memory = std::getenv("VT_VULKAN_MEMORY");
  std::string mode = memory && *memory ? memory : "auto";
  if (mode != "auto" && mode != "host" && mode != "device") {
    return Status(StatusCode::kInvalidArgument, "VT_VULKAN_MEMORY=" + mode + ": expected auto, host or device");
  }
  impl->mode = mode == "host" ? MemoryMode::kHost : mode == "device" ? MemoryMode::kDevice : MemoryMode::kAuto;
  VT_RETURN_IF_ERROR(impl->Open());
  return std::unique_ptr<Device>(new Device(std::move(impl)));
}

StatusOr<void*> Device::Alloc(size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Buffer b;
  auto cached = impl_->cache.find(WordBytes(bytes));
  if (cached != impl_->cache.end()) {
    b = cached->second;
    impl_->cached_bytes -= b.size;
    impl_->cache.erase(cached);
  } else {
    VT_RETURN_IF_ERROR(impl_->Allocate(b, bytes, impl_->mode));
  }
  impl_->buffers[reinterpret_cast<uintptr_t>(b.handle)] = b;
  return b.handle;
}

void Device::Free(void* base) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->buffers.find(reinterpret_cast<uintptr_t>(base));
  if (it == impl_->buffers.end()) return;
  if (impl_->recording) impl_->doomed.push_back(it->second);
  else impl_->Recycle(it->second);
  impl_->buffers.erase(it);
}

std::optional<Slot> Device::Locate(const void* address, size_t unit) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  size_t offset = 0;
  const Buffer* b = impl_->Find(address, &offset);
  if (!b) return std::nullopt;
  return Slot{b->handle, static_cast<uint32_t>(offset / unit)};
}

Status Device::Record(Kernel kernel, std::initializer_list<const void*> bases, const void* push, uint32_t push_bytes,
                      uint32_t groups, std::string_view op) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& d = *impl_;
  if (bases.size() == 0 || bases.size() > kBindings || push_bytes > kMaxPushBytes) {
    return Status(StatusCode::kInternal, "vulkan: " + std::string(op) + ": bad kernel arguments");
  }
  VkDescriptorBufferInfo infos[kBindings];
  uint32_t i = 0;
  for (const void* base : bases) {
    auto it = d.buffers.find(reinterpret_cast<uintptr_t>(base));
    if (it == d.buffers.end()) return Status(StatusCode::kInvalidArgument, "vulkan: " + std::string(op) + ": a tensor is not in " + d.name + "'s memory");
    infos[i++] = {it->second.buffer, 0, VK_WHOLE_SIZE};
  }
  for (; i < kBindings; ++i) infos[i] = infos[i - 1];  // unused bindings repeat the last buffer
  if (d.queued == kMaxSets) VT_RETURN_IF_ERROR(d.FinishLocked());
  if (!d.recording) VT_RETURN_IF_ERROR(d.Begin());
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, nullptr, d.pool, 1, &d.set_layout};
  VkResult r = vkAllocateDescriptorSets(d.device, &alloc, &set);
  if (r != VK_SUCCESS) return VkError("vkAllocateDescriptorSets on " + d.name, r);
  VkWriteDescriptorSet writes[kBindings];
  for (uint32_t b = 0; b < kBindings; ++b) {
    writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, b, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nullptr, &infos[b], nullptr};
  }
  vkUpdateDescriptorSets(d.device, kBindings, writes, 0, nullptr);
  VkPipeline pipeline = d.pipelines[static_cast<size_t>(kernel)];
  vkCmdBindPipeline(d.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  vkCmdBindDescriptorSets(d.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, d.layout, 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(d.cmd, d.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
  vkCmdDispatch(d.cmd, std::clamp<uint32_t>(groups, 1, kMaxGroups), 1, 1);
  // The next kernel or copy reads what this one wrote (and may overwrite what it read).
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                              VK_ACCESS_TRANSFER_WRITE_BIT};
  vkCmdPipelineBarrier(d.cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
  d.queued++;
  d.last_op = op;
  return Status();
}

Status Device::Finish() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->FinishLocked();
}

}  // namespace vt::vulkan
