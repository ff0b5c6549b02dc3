// The Vulkan backend on one physical device: a logical device with a compute queue, storage
// buffers in host-visible coherent memory mapped once, copies through the mapping. A tensor's
// `data` is the mapped address, so views are pointer arithmetic as on every backend; kernels
// find the buffer and element offset behind an address. Compute shaders come from
// engine/shaders (glslc at build time, embedded). The only file that includes Vulkan.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

#include "elementwise_spv.h"
#include "matmul_spv.h"
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
  size_t size = 0;
};

// A compute pipeline over three storage buffers and a block of push constants.
struct Pipeline {
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

// matmul.comp's push constants.
struct MatmulParams {
  uint32_t K, N, M, ne2, ne3, r2, r3, wtype;
  uint32_t w[4], x[4], o[4];
};

// elementwise.comp's push constants.
struct ElementwiseParams {
  uint32_t ne[4], a[4], b[4], o[4], bne[4];
  uint32_t op;
  float scale;
};

class VulkanBackend final : public Backend {
 public:
  VulkanBackend(VkPhysicalDevice physical, int index, std::string device_name)
      : physical_(physical), index_(index), device_name_(std::move(device_name)) {}
  ~VulkanBackend() override {
    if (!device_) return;
    vkDeviceWaitIdle(device_);
    for (auto& [base, b] : buffers_) Release(&b);
    DestroyPipeline(&elementwise_);
    DestroyPipeline(&matmul_);
    if (pool_) vkDestroyDescriptorPool(device_, pool_, nullptr);
    if (fence_) vkDestroyFence(device_, fence_, nullptr);
    if (commands_) vkDestroyCommandPool(device_, commands_, nullptr);
    vkDestroyDevice(device_, nullptr);
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
    return OpenCompute();
  }

  std::string name() const override { return "vulkan:" + device_name_; }
  Device device() const override { return Device{DeviceType::kVulkan, index_}; }

  StatusOr<void*> Alloc(size_t bytes) override {
    Buffer b;
    // Whole 32-bit words: shaders read half-precision weights as words, so an odd count of
    // halves must still have its last word inside the buffer (else robust access reads 0).
    b.size = std::max<size_t>((bytes + 3) / 4 * 4, 4);
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, nullptr, 0, b.size,
                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            VK_SHARING_MODE_EXCLUSIVE, 0, nullptr};
    VkResult r = vkCreateBuffer(device_, &info, nullptr, &b.buffer);
    if (r != VK_SUCCESS) return OutOfMemory(bytes, r);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, b.buffer, &req);
    int type = MemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, nullptr, req.size, static_cast<uint32_t>(type)};
    r = type < 0 ? VK_ERROR_OUT_OF_DEVICE_MEMORY : vkAllocateMemory(device_, &alloc, nullptr, &b.memory);
    if (r == VK_SUCCESS) r = vkBindBufferMemory(device_, b.buffer, b.memory, 0);
    if (r == VK_SUCCESS) r = vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped);
    if (r != VK_SUCCESS) {
      Release(&b);
      return OutOfMemory(bytes, r);
    }
    buffers_[reinterpret_cast<uintptr_t>(b.mapped)] = b;
    return b.mapped;
  }

  void Free(void* data) override {
    auto it = buffers_.find(reinterpret_cast<uintptr_t>(data));
    if (it == buffers_.end()) return;
    Release(&it->second);
    buffers_.erase(it);
  }

  // Tensors' data are mapped addresses: copies are plain memory moves (coherent memory).
  Status CopyIn(void* dst, const void* host_src, size_t bytes) override {
    std::memcpy(dst, host_src, bytes);
    return Status();
  }
  Status CopyOut(void* host_dst, const void* src, size_t bytes) override {
    std::memcpy(host_dst, src, bytes);
    return Status();
  }
  Status CopyWithin(void* dst, const void* src, size_t bytes) override {
    std::memmove(dst, src, bytes);
    return Status();
  }

  bool Supports(const Op& op) const override;
  Status Run(const Op& op) override;

 private:
  Status OpenCompute();
  StatusOr<Pipeline> MakePipeline(const uint32_t* words, size_t bytes, uint32_t push_bytes);
  void DestroyPipeline(Pipeline* p);
  Status Dispatch(const Pipeline& p, const Buffer* (&bufs)[3], const void* push, uint32_t push_bytes, uint32_t groups);
  // The buffer holding `address` and the offset of it in `unit`-byte elements, or null.
  const Buffer* Find(const void* address, uint32_t* element, size_t unit = 4) const;
  Status Elementwise(const Op& op);
  Status Matmul(const Op& op);

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
    *b = Buffer{};
  }

  VkPhysicalDevice physical_;
  int index_;
  std::string device_name_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  VkPhysicalDeviceMemoryProperties memory_{};
  std::map<uintptr_t, Buffer> buffers_;  // by mapped base address
  VkCommandPool commands_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  Pipeline elementwise_, matmul_;
};

Status VulkanBackend::OpenCompute() {
  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family_};
  VkResult r = vkCreateCommandPool(device_, &pool, nullptr, &commands_);
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, commands_, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
  if (r == VK_SUCCESS) r = vkAllocateCommandBuffers(device_, &alloc, &cmd_);
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, nullptr, 0};
  if (r == VK_SUCCESS) r = vkCreateFence(device_, &fence, nullptr, &fence_);
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
  VkDescriptorPoolCreateInfo descriptors{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, nullptr,
                                         VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, 1, 1, &size};
  if (r == VK_SUCCESS) r = vkCreateDescriptorPool(device_, &descriptors, nullptr, &pool_);
  if (r != VK_SUCCESS) return VkError("setting up compute on " + device_name_, r);
  auto p = MakePipeline(k_elementwise_spv, sizeof k_elementwise_spv, sizeof(ElementwiseParams));
  if (!p.ok()) return p.status();
  elementwise_ = p.value();
  auto m = MakePipeline(k_matmul_spv, sizeof k_matmul_spv, sizeof(MatmulParams));
  if (!m.ok()) return m.status();
  matmul_ = m.value();
  return Status();
}

StatusOr<Pipeline> VulkanBackend::MakePipeline(const uint32_t* words, size_t bytes, uint32_t push_bytes) {
  Pipeline p;
  VkShaderModuleCreateInfo module{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, nullptr, 0, bytes, words};
  VkResult r = vkCreateShaderModule(device_, &module, nullptr, &p.module);
  VkDescriptorSetLayoutBinding bindings[3];
  for (uint32_t i = 0; i < 3; ++i) bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo set{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, nullptr, 0, 3, bindings};
  if (r == VK_SUCCESS) r = vkCreateDescriptorSetLayout(device_, &set, nullptr, &p.set_layout);
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo layout{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, nullptr, 0, 1, &p.set_layout, 1, &push};
  if (r == VK_SUCCESS) r = vkCreatePipelineLayout(device_, &layout, nullptr, &p.layout);
  VkPipelineShaderStageCreateInfo stage{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT,
                                        p.module, "main", nullptr};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, nullptr, 0, stage, p.layout, VK_NULL_HANDLE, -1};
  if (r == VK_SUCCESS) r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &info, nullptr, &p.pipeline);
  if (r != VK_SUCCESS) {
    DestroyPipeline(&p);
    return VkError("building a compute pipeline on " + device_name_, r);
  }
  return p;
}

void VulkanBackend::DestroyPipeline(Pipeline* p) {
  if (p->pipeline) vkDestroyPipeline(device_, p->pipeline, nullptr);
  if (p->layout) vkDestroyPipelineLayout(device_, p->layout, nullptr);
  if (p->set_layout) vkDestroyDescriptorSetLayout(device_, p->set_layout, nullptr);
  if (p->module) vkDestroyShaderModule(device_, p->module, nullptr);
  *p = Pipeline{};
}

// Records one dispatch, submits it and waits: kernels finish before Run returns, as the
// backend contract's synchronous Run expects.
Status VulkanBackend::Dispatch(const Pipeline& p, const Buffer* (&bufs)[3], const void* push, uint32_t push_bytes, uint32_t groups) {
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, nullptr, pool_, 1, &p.set_layout};
  VkResult r = vkAllocateDescriptorSets(device_, &alloc, &set);
  if (r != VK_SUCCESS) return VkError("vkAllocateDescriptorSets on " + device_name_, r);
  VkDescriptorBufferInfo infos[3];
  VkWriteDescriptorSet writes[3];
  for (uint32_t i = 0; i < 3; ++i) {
    infos[i] = {bufs[i]->buffer, 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, nullptr, set, i, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, nullptr, &infos[i], nullptr};
  }
  vkUpdateDescriptorSets(device_, 3, writes, 0, nullptr);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, nullptr};
  vkResetCommandBuffer(cmd_, 0);
  vkBeginCommandBuffer(cmd_, &begin);
  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(cmd_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
  vkCmdDispatch(cmd_, groups, 1, 1);
  // Shader writes become visible to the host's reads of the mapped memory.
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
  r = vkEndCommandBuffer(cmd_);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, 0, nullptr, nullptr, 1, &cmd_, 0, nullptr};
  if (r == VK_SUCCESS) r = vkQueueSubmit(queue_, 1, &submit, fence_);
  if (r == VK_SUCCESS) r = vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX);
  vkResetFences(device_, 1, &fence_);
  vkFreeDescriptorSets(device_, pool_, 1, &set);
  return r == VK_SUCCESS ? Status() : VkError("running a kernel on " + device_name_, r);
}

const Buffer* VulkanBackend::Find(const void* address, uint32_t* element, size_t unit) const {
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  auto it = buffers_.upper_bound(a);
  if (it == buffers_.begin()) return nullptr;
  --it;
  if (a >= it->first + it->second.size) return nullptr;
  *element = static_cast<uint32_t>((a - it->first) / unit);
  return &it->second;
}

namespace {

uint32_t ElementwiseCode(OpKind kind) {
  switch (kind) {
    case OpKind::kAdd: return 0;
    case OpKind::kMul: return 1;
    case OpKind::kScale: return 2;
    case OpKind::kSilu: return 3;
    default: return 4;  // Swiglu
  }
}

bool IsElementwise(OpKind kind) {
  return kind == OpKind::kAdd || kind == OpKind::kMul || kind == OpKind::kScale || kind == OpKind::kSilu || kind == OpKind::kSwiglu;
}

// f32 with contiguous rows, within one dispatch (65535 groups of 256) and 32-bit offsets:
// what elementwise.comp handles.
bool Fits(const Tensor& t) {
  return t.dtype == DType::kF32 && t.nb[0] == 4 && t.NumElements() <= int64_t{65535} * 256 && t.nb[3] / 4 * t.ne[3] < (size_t{1} << 31);
}

}  // namespace

// Matmul: f32 activations and output as Fits says, weights f32/f16/bf16 with contiguous rows.
bool FitsMatmul(const Op& op) {
  if (op.src.size() != 2 || !op.src[0] || !op.src[1] || !Fits(*op.src[1]) || !Fits(*op.out)) return false;
  const Tensor& w = *op.src[0];
  bool half = w.dtype == DType::kF16 || w.dtype == DType::kBF16;
  return (w.dtype == DType::kF32 || half) && w.nb[0] == (half ? 2u : 4u) && w.nb[3] / w.nb[0] * w.ne[3] < (size_t{1} << 31);
}

bool VulkanBackend::Supports(const Op& op) const {
  if (!op.out) return false;
  if (op.kind == OpKind::kMatmul) return FitsMatmul(op);
  if (!IsElementwise(op.kind) || !Fits(*op.out)) return false;
  return std::all_of(op.src.begin(), op.src.end(), [](const Tensor* t) { return t && Fits(*t); });
}

Status VulkanBackend::Run(const Op& op) {
  if (!Supports(op)) return NoKernel(op, device());
  return op.kind == OpKind::kMatmul ? Matmul(op) : Elementwise(op);
}

Status VulkanBackend::Matmul(const Op& op) {
  const Tensor& w = *op.src[0];
  const Tensor& x = *op.src[1];
  const Tensor& o = *op.out;
  size_t wunit = w.nb[0];
  MatmulParams p{};
  const Buffer* bufs[3] = {Find(w.data, &p.w[0], wunit), Find(x.data, &p.x[0]), Find(o.data, &p.o[0])};
  for (const Buffer* buf : bufs) {
    if (!buf) return Status(StatusCode::kInvalidArgument, "vulkan: Matmul: a tensor is not in this device's memory");
  }
  p.K = static_cast<uint32_t>(w.ne[0]);
  p.N = static_cast<uint32_t>(w.ne[1]);
  p.M = static_cast<uint32_t>(x.ne[1]);
  p.ne2 = static_cast<uint32_t>(x.ne[2]);
  p.ne3 = static_cast<uint32_t>(x.ne[3]);
  p.r2 = static_cast<uint32_t>(x.ne[2] / w.ne[2]);
  p.r3 = static_cast<uint32_t>(x.ne[3] / w.ne[3]);
  p.wtype = w.dtype == DType::kF32 ? 0 : w.dtype == DType::kF16 ? 1 : 2;
  for (int d = 1; d < 4; ++d) {
    p.w[d] = static_cast<uint32_t>(w.nb[d] / wunit);
    p.x[d] = static_cast<uint32_t>(x.nb[d] / 4);
    p.o[d] = static_cast<uint32_t>(o.nb[d] / 4);
  }
  uint64_t n = static_cast<uint64_t>(o.NumElements());
  if (n == 0) return Status();
  return Dispatch(matmul_, bufs, &p, sizeof p, static_cast<uint32_t>((n + 255) / 256));
}

Status VulkanBackend::Elementwise(const Op& op) {
  const Tensor& a = *op.src[0];
  const Tensor& b = op.src.size() > 1 ? *op.src[1] : a;
  const Tensor& o = *op.out;
  ElementwiseParams p{};
  const Buffer* bufs[3] = {Find(a.data, &p.a[0]), Find(b.data, &p.b[0]), Find(o.data, &p.o[0])};
  for (const Buffer* buf : bufs) {
    if (!buf) return Status(StatusCode::kInvalidArgument, "vulkan: " + std::string(OpName(op.kind)) + ": a tensor is not in this device's memory");
  }
  for (int d = 0; d < 4; ++d) {
    p.ne[d] = static_cast<uint32_t>(o.ne[d]);
    p.bne[d] = static_cast<uint32_t>(b.ne[d]);
    if (d > 0) {
      p.a[d] = static_cast<uint32_t>(a.nb[d] / 4);
      p.b[d] = static_cast<uint32_t>(b.nb[d] / 4);
      p.o[d] = static_cast<uint32_t>(o.nb[d] / 4);
    }
  }
  p.op = ElementwiseCode(op.kind);
  p.scale = op.params.scale;
  uint64_t n = static_cast<uint64_t>(o.NumElements());
  if (n == 0) return Status();
  return Dispatch(elementwise_, bufs, &p, sizeof p, static_cast<uint32_t>((n + 255) / 256));
}

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
