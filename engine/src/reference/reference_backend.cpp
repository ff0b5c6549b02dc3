#include <algorithm>

#include "core/host_backend.h"
#include "reference/reference_ops.h"

namespace vt {
namespace {

class ReferenceBackendImpl final : public HostBackend {
 public:
  std::string name() const override { return "reference"; }
  Device device() const override { return Device{DeviceType::kCPU, 0}; }
  // Not the CPU's interleaved Q4_0 (vt/quant.h): the reference reads block types a row at a time.
  bool Supports(const Op& op) const override {
    return std::none_of(op.src.begin(), op.src.end(), [](const Tensor* t) { return IsInterleaved(t->dtype); });
  }
  Status Run(const Op& op) override {
    switch (op.kind) {
      case OpKind::kMatmul: reference::Matmul(op); break;
      case OpKind::kAdd: case OpKind::kMul: case OpKind::kScale: case OpKind::kSilu:
      case OpKind::kSwiglu: case OpKind::kGeglu: case OpKind::kSwigluOai: reference::Elementwise(op); break;
      case OpKind::kRmsNorm: reference::RmsNorm(op); break;
      case OpKind::kRope: reference::Rope(op); break;
      case OpKind::kSoftmax: reference::Softmax(op); break;
      case OpKind::kGetRows: reference::GetRows(op); break;
      case OpKind::kTopK: reference::TopK(op); break;
      case OpKind::kAttention: reference::Attention(op); break;
      case OpKind::kCopy: reference::Copy(op); break;
      case OpKind::kExperts: return reference::Experts(op);
    }
    return Status();
  }
};

}  // namespace

Backend& ReferenceBackendInstance() {
  static ReferenceBackendImpl instance;
  return instance;
}

}  // namespace vt
