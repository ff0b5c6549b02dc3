// The Vulkan device's state, shared by vulkan_device.cpp (devices, pipelines, buffers, the
// command buffer) and vulkan_transfer.cpp (copies, staged for device-only memory). The only
// header that includes Vulkan; the rest of vt sees vulkan_device.h.
#pragma once

#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "vulkan/vulkan_device.h"

namespace vt::vulkan {

inline constexpr uint32_t kBindings = 6;  // attention: q, k, v, out, its sinks and its rows
inline constexpr uint32_t kMaxSets = 256;                       // descriptor sets per submission
inline constexpr size_t kCacheBytes = size_t{512} << 20;   // freed buffers kept for reuse
inline constexpr uint64_t kWaitNanos = 600ull * 1000 * 1000 * 1000;  // a kernel batch that takes 10 min is hung

inline constexpr size_t kKernels = 10;                // one pipeline per Kernel
inline constexpr size_t kStagingBytes = size_t{8} << 20;  // the host-visible window for device-only copies

Status VkError(const std::string& what, VkResult r);

// Whole 32-bit words: shaders read half-precision data as words, so an odd count of halves
// must still have its last word inside the buffer (else robust access reads 0).
inline size_t WordBytes(size_t bytes) { return std::max<size_t>((bytes + 3) / 4 * 4, 4); }

// `handle` is the address tensors hold: the mapping when the host can map the memory, else a
// reserved, inaccessible address range of the same size (so views are still pointer
// arithmetic, and a stray host access faults rather than reading stale bytes).
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  void* handle = nullptr;
  size_t size = 0;
};

// Where buffers live (VT_VULKAN_MEMORY): auto prefers device-local memory the host can map,
// then device-local memory it cannot (copies go through a staging buffer), then host memory;
// host and device force one kind (device: tests run the staged path on any driver).
enum class MemoryMode { kAuto, kHost, kDevice };

struct Device::Impl {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  int index = 0;
  std::string name;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkPhysicalDeviceMemoryProperties memory{};
  VkCommandPool commands = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  std::array<VkShaderModule, kKernels> modules{};
  std::array<VkPipeline, kKernels> pipelines{};

  mutable std::mutex mu;
  MemoryMode mode = MemoryMode::kAuto;
  Buffer staging;                       // kStagingBytes, mapped, made on first use
  std::map<uintptr_t, Buffer> buffers;  // by handle
  std::vector<Buffer> doomed;           // freed while queued kernels may still use them
  std::multimap<size_t, Buffer> cache;  // freed buffers by size, handed out again
  size_t cached_bytes = 0;
  bool recording = false;
  uint32_t queued = 0;                  // dispatches (and descriptor sets) in the open batch
  std::string last_op;

  ~Impl();
  Status Open();
  Status OpenCompute();
  Status MakePipelines();
  int MemoryType(uint32_t allowed, VkMemoryPropertyFlags want) const;
  Status Allocate(Buffer& b, size_t bytes, MemoryMode mode);
  Status Bind(Buffer& b, const VkMemoryRequirements& req, VkMemoryPropertyFlags want, bool map);
  void Release(Buffer& b);
  void Recycle(Buffer& b);
  Status Begin();
  Status FinishLocked();
  // Transfers (vulkan_transfer.cpp), with `mu` held.
  const Buffer* Find(const void* address, size_t* offset) const;
  void CopyCommand(VkBuffer from, size_t from_offset, VkBuffer to, size_t to_offset, size_t bytes);
  Status WriteLocked(void* dst, const void* src, size_t bytes);
  Status ReadLocked(void* dst, const void* src, size_t bytes);
};


}  // namespace vt::vulkan
