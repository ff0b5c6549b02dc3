// The backend contract. One class, every device: CPU, CUDA, Vulkan and the loopback test
// device implement it; the engine never asks which one it has. A missing kernel is a Status
// ("no kernel for op Matmul on device xpu"), never an abort.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vt/device.h"
#include "vt/ops.h"
#include "vt/status.h"
#include "vt/tensor.h"

namespace vt {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual Device device() const = 0;

  virtual StatusOr<void*> Alloc(size_t bytes) = 0;
  virtual void Free(void* data) = 0;
  // Host ↔ device and device ↔ device copies of `bytes` bytes.
  virtual Status CopyIn(void* dst, const void* host_src, size_t bytes) = 0;
  virtual Status CopyOut(void* host_dst, const void* src, size_t bytes) = 0;
  virtual Status CopyWithin(void* dst, const void* src, size_t bytes) = 0;

  // A matmul weight read from a file into host memory, made ready for this backend's
  // kernels when they run on the host (the CPU interleaves Q4_0 where its decode reads that
  // order: vt/quant.h). The default keeps it as it is.
  virtual StatusOr<Tensor> AdoptMatmulWeight(const Tensor& w) { return w; }

  virtual bool Supports(const Op& op) const = 0;
  virtual Status Run(const Op& op) = 0;
  // Independent ops (none reads another's output), each validated and supported, that the
  // backend may run as one: the CPU runs a decode's matmuls as one pool dispatch. The
  // default runs them in order.
  virtual Status RunGroup(const std::vector<Op>& ops) {
    for (const Op& op : ops) VT_RETURN_IF_ERROR(Run(op));
    return Status();
  }
};

// Validates `op`, then runs it if `backend` supports it, else "no kernel for op X on device Y".
Status RunOp(Backend& backend, const Op& op);
// Validates each of `ops` and checks that `backend` supports it (the first failure is the
// answer, and nothing runs), then runs them with RunGroup.
Status RunOps(Backend& backend, const std::vector<Op>& ops);
Status NoKernel(const Op& op, const Device& device);

// Copies a whole contiguous tensor between devices (host staging when neither is the host).
Status CopyTensor(const Tensor& src, Tensor& dst);

// Backends by device type. The CPU and reference backends are always there.
Backend* GetBackend(DeviceType type);
void RegisterBackend(DeviceType type, Backend* backend);
Backend& ReferenceBackend();  // float64 truth, host memory, device kCPU
// The threads the CPU backend runs with: VT_THREADS when set (≥ 1), else the CPUs this
// process may run on (its affinity), read when the backend starts.
int CpuThreads();

}  // namespace vt
