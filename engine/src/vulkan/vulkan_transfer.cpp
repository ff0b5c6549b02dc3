// Copies between the host and a Vulkan device. Memory the host can map is a memcpy once the
// queued kernels have run; memory it cannot (device-local on a discrete GPU without a large
// BAR, or VT_VULKAN_MEMORY=device) goes through one mapped staging buffer, kStagingBytes at a
// time, each chunk's copy command submitted and waited for.
#include <cstring>

#include "vulkan/vulkan_impl.h"

namespace vt::vulkan {

const Buffer* Device::Impl::Find(const void* address, size_t* offset) const {
  uintptr_t a = reinterpret_cast<uintptr_t>(address);
  auto it = buffers.upper_bound(a);
  if (it == buffers.begin()) return nullptr;
  --it;
  if (a >= it->first + it->second.size) return nullptr;
  *offset = a - it->first;
  return &it->second;
}

// A transfer command and a barrier: later kernels and copies see what it wrote.
void Device::Impl::CopyCommand(VkBuffer from, size_t from_offset, VkBuffer to, size_t to_offset, size_t bytes) {
  VkBufferCopy region{from_offset, to_offset, bytes};
  vkCmdCopyBuffer(cmd, from, to, 1, &region);
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                              VK_ACCESS_TRANSFER_WRITE_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       0, 1, &barrier, 0, nullptr, 0, nullptr);
}

namespace {

Status NotHere(const Device::Impl& d, const char* what) {
  return Status(StatusCode::kInvalidArgument, "vulkan: " + std::string(what) + ": an address not in " + d.name + "'s memory");
}

}  // namespace

Status Device::Impl::WriteLocked(void* dst, const void* src, size_t bytes) {
  size_t at = 0;
  const Buffer* to = Find(dst, &at);
  if (!to || at + bytes > to->size) return NotHere(*this, "copy to the device");
  VT_RETURN_IF_ERROR(FinishLocked());  // a queued kernel may still read dst
  if (to->mapped) {
    std::memcpy(static_cast<char*>(to->mapped) + at, src, bytes);
    return Status();
  }
  if (!staging.mapped) VT_RETURN_IF_ERROR(Allocate(staging, kStagingBytes, MemoryMode::kHost));
  for (size_t done = 0; done < bytes; done += kStagingBytes) {
    size_t n = std::min(kStagingBytes, bytes - done);
    std::memcpy(staging.mapped, static_cast<const char*>(src) + done, n);
    VT_RETURN_IF_ERROR(Begin());
    CopyCommand(staging.buffer, 0, to->buffer, at + done, n);
    VT_RETURN_IF_ERROR(FinishLocked());
  }
  return Status();
}

Status Device::Impl::ReadLocked(void* dst, const void* src, size_t bytes) {
  size_t at = 0;
  const Buffer* from = Find(src, &at);
  if (!from || at + bytes > from->size) return NotHere(*this, "copy from the device");
  VT_RETURN_IF_ERROR(FinishLocked());
  if (from->mapped) {
    std::memcpy(dst, static_cast<const char*>(from->mapped) + at, bytes);
    return Status();
  }
  if (!staging.mapped) VT_RETURN_IF_ERROR(Allocate(staging, kStagingBytes, MemoryMode::kHost));
  for (size_t done = 0; done < bytes; done += kStagingBytes) {
    size_t n = std::min(kStagingBytes, bytes - done);
    VT_RETURN_IF_ERROR(Begin());
    CopyCommand(from->buffer, at + done, staging.buffer, 0, n);
    VT_RETURN_IF_ERROR(FinishLocked());
    std::memcpy(static_cast<char*>(dst) + done, staging.mapped, n);
  }
  return Status();
}

Status Device::Write(void* dst, const void* host_src, size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->WriteLocked(dst, host_src, bytes);
}

Status Device::Read(void* host_dst, const void* src, size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->ReadLocked(host_dst, src, bytes);
}

Status Device::Move(void* dst, const void* src, size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& d = *impl_;
  size_t to_at = 0, from_at = 0;
  const Buffer* to = d.Find(dst, &to_at);
  const Buffer* from = d.Find(src, &from_at);
  if (!to || !from || to_at + bytes > to->size || from_at + bytes > from->size) return NotHere(d, "copy within the device");
  if (to->mapped && from->mapped) {
    VT_RETURN_IF_ERROR(d.FinishLocked());
    std::memmove(static_cast<char*>(to->mapped) + to_at, static_cast<const char*>(from->mapped) + from_at, bytes);
    return Status();
  }
  // vkCmdCopyBuffer's regions may not overlap: memmove's semantics through the host instead.
  if (to == from && to_at < from_at + bytes && from_at < to_at + bytes) {
    std::vector<char> bounce(bytes);
    VT_RETURN_IF_ERROR(d.ReadLocked(bounce.data(), src, bytes));
    return d.WriteLocked(dst, bounce.data(), bytes);
  }
  if (!d.recording) VT_RETURN_IF_ERROR(d.Begin());
  d.CopyCommand(from->buffer, from_at, to->buffer, to_at, bytes);
  d.last_op = "copy within the device";
  return Status();
}

Status Device::Upload(void* fresh, const void* host_src, size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  Impl& d = *impl_;
  size_t at = 0;
  const Buffer* to = d.Find(fresh, &at);
  if (!to || at + bytes > to->size) return NotHere(d, "upload");
  if (to->mapped) {  // no queued kernel uses a fresh buffer: no need to wait
    std::memcpy(static_cast<char*>(to->mapped) + at, host_src, bytes);
    return Status();
  }
  // vkCmdUpdateBuffer carries up to 64 KiB inline, in whole words.
  if (bytes > 65536 || bytes % 4 || at % 4) return d.WriteLocked(fresh, host_src, bytes);
  if (!d.recording) VT_RETURN_IF_ERROR(d.Begin());
  vkCmdUpdateBuffer(d.cmd, to->buffer, at, bytes, host_src);
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT};
  vkCmdPipelineBarrier(d.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                       nullptr);
  return Status();
}

}  // namespace vt::vulkan
