// The CUDA backend: one device, one stream. Memory is stream-ordered (cudaMallocAsync), host
// transfers go through two pinned staging buffers used in turn, kernels are queued on the
// stream and CopyOut waits for them. Errors name the device and the operation.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/device_choice.h"
#include "cuda/cuda_kernels.h"
#include "vt/cuda.h"

namespace vt {
namespace {

constexpr size_t kStagingBytes = size_t{4} << 20;

class CudaBackend final : public Backend {
 public:
  CudaBackend(int index, std::string name) : index_(index), name_(std::move(name)) {}
  ~CudaBackend() override;
  Status Open();

  std::string name() const override { return "cuda:" + name_; }
  Device device() const override { return Device{DeviceType::kCUDA, index_}; }

  StatusOr<void*> Alloc(size_t bytes) override;
  void Free(void* data) override;
  Status CopyIn(void* dst, const void* host_src, size_t bytes) override;
  Status CopyOut(void* host_dst, const void* src, size_t bytes) override;
  Status CopyWithin(void* dst, const void* src, size_t bytes) override;
  bool Supports(const Op& op) const override;
  Status Run(const Op& op) override;

 private:
  Status Check(cudaError_t e, const std::string& what) const {
    if (e == cudaSuccess) return Status();
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    return Status(StatusCode::kUnavailable, "cuda: " + name_ + " (device " + std::to_string(index_) + "): " + what + ": " +
                                                cudaGetErrorString(e));
  }
  Status Launch(const Op& op);

  int index_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  bool use_cublas_ = false;
  void* staging_[2] = {nullptr, nullptr};
  cudaEvent_t staged_[2] = {nullptr, nullptr};
};

CudaBackend::~CudaBackend() {
  cudaSetDevice(index_);
  if (stream_) cudaStreamSynchronize(stream_);
  for (int i = 0; i < 2; ++i) {
    if (staged_[i]) cudaEventDestroy(staged_[i]);
    if (staging_[i]) cudaFreeHost(staging_[i]);
  }
  if (cublas_) cublasDestroy(cublas_);
  if (stream_) cudaStreamDestroy(stream_);
}

Status CudaBackend::Open() {
  VT_RETURN_IF_ERROR(Check(cudaSetDevice(index_), "cudaSetDevice"));
  VT_RETURN_IF_ERROR(Check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream"));
  // Keep freed memory in the pool across synchronizations: the forward pass allocates the
  // same temporaries every token.
  cudaMemPool_t pool;
  uint64_t keep = UINT64_MAX;
  VT_RETURN_IF_ERROR(Check(cudaDeviceGetDefaultMemPool(&pool, index_), "reading the memory pool"));
  VT_RETURN_IF_ERROR(Check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "configuring the memory pool"));
  for (int i = 0; i < 2; ++i) {
    VT_RETURN_IF_ERROR(Check(cudaMallocHost(&staging_[i], kStagingBytes), "allocating pinned staging memory"));
    VT_RETURN_IF_ERROR(Check(cudaEventCreateWithFlags(&staged_[i], cudaEventDisableTiming), "creating an event"));
  }
  const char* path = std::getenv("VT_CUDA_MATMUL");
  use_cublas_ = path && std::string(path) == "cublas";
  if (use_cublas_ && cublasCreate(&cublas_) != CUBLAS_STATUS_SUCCESS) {
    return Status(StatusCode::kUnavailable, "cuda: " + name_ + ": cuBLAS could not start");
  }
  return Status();
}

StatusOr<void*> CudaBackend::Alloc(size_t bytes) {
  void* p = nullptr;
  cudaSetDevice(index_);
  Status s = Check(cudaMallocAsync(&p, std::max<size_t>(bytes, 1), stream_), "cannot allocate " + std::to_string(bytes) + " bytes");
  if (!s.ok()) return s;
  return p;
}

void CudaBackend::Free(void* data) {
  cudaSetDevice(index_);
  cudaFreeAsync(data, stream_);
}

// Chunks go host → pinned buffer (memcpy) → device (DMA on the stream), the two buffers in
// turn: a buffer is refilled once its previous DMA has finished (its event).
Status CudaBackend::CopyIn(void* dst, const void* host_src, size_t bytes) {
  cudaSetDevice(index_);
  for (size_t off = 0, i = 0; off < bytes; off += kStagingBytes, ++i) {
    size_t n = std::min(kStagingBytes, bytes - off), buf = i % 2;
    VT_RETURN_IF_ERROR(Check(cudaEventSynchronize(staged_[buf]), "waiting for a host-to-device copy"));
    std::memcpy(staging_[buf], static_cast<const char*>(host_src) + off, n);
    VT_RETURN_IF_ERROR(Check(cudaMemcpyAsync(static_cast<char*>(dst) + off, staging_[buf], n, cudaMemcpyHostToDevice, stream_),
                             "copying to the device"));
    VT_RETURN_IF_ERROR(Check(cudaEventRecord(staged_[buf], stream_), "recording a copy"));
  }
  return Status();
}

// Chunk i's DMA into one buffer overlaps the memcpy out of the other (chunk i-1).
Status CudaBackend::CopyOut(void* host_dst, const void* src, size_t bytes) {
  cudaSetDevice(index_);
  size_t chunks = (bytes + kStagingBytes - 1) / kStagingBytes;
  auto drain = [&](size_t i) -> Status {
    size_t off = i * kStagingBytes, n = std::min(kStagingBytes, bytes - off);
    VT_RETURN_IF_ERROR(Check(cudaEventSynchronize(staged_[i % 2]), "running the queued kernels and copies"));
    std::memcpy(static_cast<char*>(host_dst) + off, staging_[i % 2], n);
    return Status();
  };
  VT_RETURN_IF_ERROR(Check(cudaStreamSynchronize(stream_), "running the queued kernels"));
  for (size_t i = 0; i < chunks; ++i) {
    size_t off = i * kStagingBytes, n = std::min(kStagingBytes, bytes - off);
    VT_RETURN_IF_ERROR(Check(cudaMemcpyAsync(staging_[i % 2], static_cast<const char*>(src) + off, n, cudaMemcpyDeviceToHost, stream_),
                             "copying from the device"));
    VT_RETURN_IF_ERROR(Check(cudaEventRecord(staged_[i % 2], stream_), "recording a copy"));
    if (i > 0) VT_RETURN_IF_ERROR(drain(i - 1));
  }
  return chunks > 0 ? drain(chunks - 1) : Status();
}

Status CudaBackend::CopyWithin(void* dst, const void* src, size_t bytes) {
  cudaSetDevice(index_);
  return Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_), "copying within the device");
}

bool Fits(const Tensor* t) {
  bool typed = t && (t->dtype == DType::kF32 || t->dtype == DType::kF16 || t->dtype == DType::kBF16 || t->dtype == DType::kI32);
  return typed && t->nb[0] == BlockBytes(t->dtype);
}

// A block type (not the CPU's interleaved ones) as a matmul's weights or a GetRows table.
bool BlockOperand(const Op& op, const Tensor* t) {
  const bool first = !op.src.empty() && t == op.src[0] && (op.kind == OpKind::kMatmul || op.kind == OpKind::kGetRows);
  return first && IsQuantized(t->dtype) && !IsInterleaved(t->dtype) && t->nb[0] == BlockBytes(t->dtype);
}

bool CudaBackend::Supports(const Op& op) const {
  auto fits = [&](const Tensor* t) { return Fits(t) || BlockOperand(op, t); };
  if (!Fits(op.out) || !std::all_of(op.src.begin(), op.src.end(), fits)) return false;
  if (op.kind == OpKind::kExperts) return false;  // the expert loop of single ops runs it
  if (op.kind == OpKind::kAttention) return op.src.size() >= 3 && op.src[0]->ne[0] <= cuda::kMaxHeadDim;
  if (op.kind == OpKind::kRope) {
    int n_dims = op.params.n_dims ? op.params.n_dims : static_cast<int>(op.src[0]->ne[0]);
    return n_dims <= cuda::kMaxRopeDims;
  }
  return true;  // dtypes and shapes beyond these: ValidateOp's job
}

Status CudaBackend::Launch(const Op& op) {
  switch (op.kind) {
    case OpKind::kMatmul: {
      if (IsQuantized(op.src[0]->dtype)) return Check(cuda::LaunchBlockMatmul(op, stream_), "Matmul");
      if (!use_cublas_) return Check(cuda::LaunchMatmul(op, stream_), "Matmul");
      const Tensor& x = *op.src[1];
      void* scratch = nullptr;
      if (op.src[0]->dtype != DType::kF32) VT_RETURN_IF_ERROR(Check(cudaMallocAsync(&scratch, x.ne[0] * x.ne[1] * 2, stream_), "Matmul scratch"));
      std::string error = cuda::CublasMatmul(op, cublas_, stream_, scratch);
      if (scratch) cudaFreeAsync(scratch, stream_);
      return error.empty() ? Status() : Status(StatusCode::kUnavailable, "cuda: " + name_ + ": Matmul (cuBLAS): " + error);
    }
    case OpKind::kAdd: case OpKind::kMul: case OpKind::kScale: case OpKind::kSilu: case OpKind::kSwiglu:
    case OpKind::kGeglu: case OpKind::kSwigluOai:
      return Check(cuda::LaunchElementwise(op, stream_), std::string(OpName(op.kind)));
    case OpKind::kRmsNorm: return Check(cuda::LaunchRmsNorm(op, stream_), "RmsNorm");
    case OpKind::kSoftmax: return Check(cuda::LaunchSoftmax(op, stream_), "Softmax");
    case OpKind::kRope: return Check(cuda::LaunchRope(op, stream_), "Rope");
    case OpKind::kGetRows:
      if (IsQuantized(op.src[0]->dtype)) return Check(cuda::LaunchBlockGetRows(op, stream_), "GetRows");
      return Check(cuda::LaunchGetRows(op, stream_), "GetRows");
    case OpKind::kTopK: return Check(cuda::LaunchTopK(op, stream_), "TopK");
    case OpKind::kAttention: return Check(cuda::LaunchAttention(op, stream_), "Attention");
    case OpKind::kCopy: return Check(cuda::LaunchCopy(op, stream_), "Copy");
    case OpKind::kExperts: break;
  }
  return Status(StatusCode::kInternal, "cuda: unknown op");
}

Status CudaBackend::Run(const Op& op) {
  if (!Supports(op)) return NoKernel(op, device());
  if (op.out->NumElements() == 0) return Status();
  cudaSetDevice(index_);
  return Launch(op);
}

}  // namespace

StatusOr<std::vector<CudaDeviceInfo>> ListCudaDevices() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return Status(StatusCode::kUnavailable, std::string("cuda: no usable CUDA device: ") + cudaGetErrorString(e));
  }
  if (n == 0) return Status(StatusCode::kUnavailable, "cuda: the CUDA runtime reports no device");
  std::vector<CudaDeviceInfo> out;
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    out.push_back({i, p.name, p.major, p.minor, p.totalGlobalMem});
  }
  return out;
}

StatusOr<std::unique_ptr<Backend>> OpenCudaBackend(const std::string& selector) {
  auto infos = ListCudaDevices();
  if (!infos.ok()) return infos.status();
  std::vector<std::string> names;
  for (const CudaDeviceInfo& d : infos.value()) names.push_back(d.name);
  auto chosen = ChooseDevice(names, selector, "VT_CUDA_DEVICE", "cuda");
  if (!chosen.ok()) return chosen.status();
  const CudaDeviceInfo& info = infos.value()[static_cast<size_t>(chosen.value())];
  auto backend = std::make_unique<CudaBackend>(info.index, info.name);
  VT_RETURN_IF_ERROR(backend->Open());
  return std::unique_ptr<Backend>(std::move(backend));
}

Backend* DefaultCudaBackend() {
  static Backend* backend = OpenDefault("VT_CUDA_DEVICE", OpenCudaBackend);
  return backend;
}

}  // namespace vt
