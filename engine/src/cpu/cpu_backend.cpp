#include "core/host_backend.h"
#include "cpu/cpu_ops.h"
#include "cpu/matmul_kernels.h"

namespace vt {
namespace {

class CpuBackend final : public HostBackend {
 public:
  CpuBackend() : pool_(ThreadPool::DefaultThreads()) {}
  std::string name() const override { return "cpu"; }
  Device device() const override { return Device{DeviceType::kCPU, 0}; }
  // Experts for a decode step only: a prompt's experts run as the loop's gemms.
  bool Supports(const Op& op) const override {
    return op.kind != OpKind::kExperts || (!op.src.empty() && op.src[0] && op.src[0]->ne[1] <= cpu::kGemvMaxRows);
  }
  StatusOr<Tensor> AdoptMatmulWeight(const Tensor& w) override { return cpu::AdoptMatmulWeight(*this, w); }
  Status RunGroup(const std::vector<Op>& ops) override {
    return cpu::DecodeGroup(ops, pool_) ? Status() : Backend::RunGroup(ops);
  }
  Status Run(const Op& op) override {
    switch (op.kind) {
      case OpKind::kMatmul: cpu::Matmul(op, pool_); break;
      case OpKind::kAdd: case OpKind::kMul: case OpKind::kScale: case OpKind::kSilu:
      case OpKind::kSwiglu: case OpKind::kGeglu: case OpKind::kSwigluOai: cpu::Elementwise(op, pool_); break;
      case OpKind::kRmsNorm: cpu::RmsNorm(op, pool_); break;
      case OpKind::kRope: cpu::Rope(op, pool_); break;
      case OpKind::kSoftmax: cpu::Softmax(op, pool_); break;
      case OpKind::kGetRows: cpu::GetRows(op, pool_); break;
      case OpKind::kTopK: cpu::TopK(op); break;
      case OpKind::kAttention: cpu::Attention(op, pool_); break;
      case OpKind::kCopy: cpu::Copy(op, pool_); break;
      case OpKind::kExperts: return cpu::Experts(op, pool_);
    }
    return Status();
  }

 private:
  ThreadPool pool_;
};

}  // namespace

Backend& CpuBackendInstance() {
  static CpuBackend instance;
  return instance;
}

int CpuThreads() { return ThreadPool::DefaultThreads(); }

}  // namespace vt
