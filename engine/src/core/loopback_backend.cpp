#include "host_backend.h"
#include "vt/loopback.h"

namespace vt {
namespace {

class LoopbackBackend final : public HostBackend {
 public:
  std::string name() const override { return "loopback"; }
  Device device() const override { return Device{DeviceType::kXPU, 0}; }
  Status CopyIn(void* dst, const void* src, size_t bytes) override {
    ++counts.to_device;
    counts.to_device_bytes += bytes;
    return HostBackend::CopyIn(dst, src, bytes);
  }
  Status CopyOut(void* dst, const void* src, size_t bytes) override {
    ++counts.to_host;
    counts.to_host_bytes += bytes;
    return HostBackend::CopyOut(dst, src, bytes);
  }
  Status CopyWithin(void* dst, const void* src, size_t bytes) override {
    ++counts.within;
    counts.within_bytes += bytes;
    return HostBackend::CopyWithin(dst, src, bytes);
  }
  bool Supports(const Op&) const override { return false; }
  Status Run(const Op& op) override { return NoKernel(op, device()); }

  TransferCounts counts;
};

}  // namespace

std::unique_ptr<Backend> MakeLoopbackBackend() { return std::make_unique<LoopbackBackend>(); }

TransferCounts LoopbackCounts(const Backend& backend) {
  auto* loop = dynamic_cast<const LoopbackBackend*>(&backend);
  return loop ? loop->counts : TransferCounts{};
}

void ResetLoopbackCounts(Backend& backend) {
  if (auto* loop = dynamic_cast<LoopbackBackend*>(&backend)) loop->counts = TransferCounts{};
}

}  // namespace vt
