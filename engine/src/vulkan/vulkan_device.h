// One Vulkan device under the backend: storage buffers, copies, and compute kernels recorded
// into a command buffer that is submitted when the host needs memory. Kept free of Vulkan's
// headers (only vulkan_impl.h includes them), so the backend and the kernels' parameter
// packing read as plain C++.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vt/status.h"
#include "vt/vulkan.h"

namespace vt::vulkan {

// One per shader in engine/shaders.
enum class Kernel { kElementwise, kMatmulVec, kMatmulTiled, kRmsNorm, kSoftmax, kRope, kGetRows, kTopK, kAttention, kCopy };
inline constexpr uint32_t kMaxPushBytes = 128;  // the least maxPushConstantsSize Vulkan allows
inline constexpr uint32_t kMaxGroups = 65535;   // the least maxComputeWorkGroupCount[0]

// Where an address lives: the buffer (by its mapped base) and the offset in `unit`-byte elements.
struct Slot {
  const void* buffer = nullptr;
  uint32_t element = 0;
};

class Device {
 public:
  static StatusOr<std::vector<VulkanDeviceInfo>> List();
  static StatusOr<std::unique_ptr<Device>> Open(int index);
  ~Device();

  const std::string& name() const;
  int index() const;

  // A buffer of at least `bytes` (whole 32-bit words), mapped; the mapped address is returned.
  StatusOr<void*> Alloc(size_t bytes);
  // Releases a buffer now, or after the queued kernels that may use it have run.
  void Free(void* base);
  std::optional<Slot> Locate(const void* address, size_t unit) const;

  // Copies (vulkan_transfer.cpp). Write and Read wait for the queued kernels first; memory the
  // host cannot map goes through a staging buffer. Move between device addresses is queued
  // with the kernels. Upload fills a buffer no queued kernel uses (a fresh one), queued too.
  Status Write(void* dst, const void* host_src, size_t bytes);
  Status Read(void* host_dst, const void* src, size_t bytes);
  Status Move(void* dst, const void* src, size_t bytes);
  Status Upload(void* fresh, const void* host_src, size_t bytes);

  // Queues `kernel` over `groups` workgroups with `buffers` bound in order (1 to 4 of them) and
  // `push` as its push constants. `op` names the work for error messages.
  Status Record(Kernel kernel, std::initializer_list<const void*> buffers, const void* push, uint32_t push_bytes,
                uint32_t groups, std::string_view op);
  // Submits every queued kernel and waits for them.
  Status Finish();

  struct Impl;

 private:
  explicit Device(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vt::vulkan
