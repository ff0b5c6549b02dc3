#include "model_loader.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "device_flag.h"
#include "vt/gguf.h"

namespace vttools {

vt::StatusOr<std::unique_ptr<LoadedModel>> LoadModel(const std::string& path, const std::string& device, bool experts_on_cpu) {
  auto out = std::make_unique<LoadedModel>();
  auto file = vt::GgufFile::Open(path);
  if (!file.ok()) return file.status();
  out->file = std::make_shared<const vt::GgufFile>(std::move(file).value());
  auto backend = OpenDevice(device, out->opened);
  if (!backend.ok()) return backend.status();
  out->device = backend.value();
  if (experts_on_cpu) {
    auto placement = vt::PlacementQueue::Create(*vt::GetBackend(vt::DeviceType::kCPU));
    if (!placement.ok()) return placement.status();
    out->placement.emplace(std::move(placement).value());
  }
  auto model = vt::Model::Load(out->file, vt::Engine{vt::MakeQueue(*out->device)},
                                    out->placement ? &*out->placement : nullptr);
  if (!model.ok()) return vt::Status(model.status().code(), path + ": " + model.status().message());
  out->model = std::move(model).value();
  return out;
}

namespace {

std::string Mib(int64_t bytes) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return s;
}

// Types and their bytes, largest first: "q8_0 1.3 MiB, f32 0.0 MiB".
std::string Mix(std::vector<std::pair<std::string, int64_t>> order) {
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [type, bytes] : order) out += (out.empty() ? "" : ", ") + type + " " + Mib(bytes);
  return out;
}

}  // namespace

std::string HeldMix(const vt::Model& model) { return Mix({model.held_bytes().begin(), model.held_bytes().end()}); }

std::string WeightMix(const vt::GgufFile& file) {
  std::map<std::string, int64_t> by_type;
  int64_t total = 0;
  for (const vt::GgufTensorInfo& t : file.tensors()) {
    by_type[std::string(vt::DTypeName(t.dtype))] += static_cast<int64_t>(t.bytes);
    total += static_cast<int64_t>(t.bytes);
  }
  return Mix({by_type.begin(), by_type.end()}) + " (" + Mib(total) + " in " + std::to_string(file.tensors().size()) + " tensors)";
}

vt::Status CheckKvCacheDtype(const vt::Model& model, vt::Backend& backend, vt::DType dtype, const std::string& flag) {
  const vt::Hparams& hp = model.hparams();
  const std::string what = flag + " " + std::string(vt::DTypeName(dtype)) + ": ";
  if (vt::IsQuantized(dtype) && hp.head_dim() % vt::BlockSize(dtype) != 0) {
    return vt::Status(vt::StatusCode::kInvalidArgument, what + "a " + std::string(vt::DTypeName(dtype)) + " KV cache needs a head dimension that is a multiple of " +
                                                            std::to_string(vt::BlockSize(dtype)) + "; this model's is " + std::to_string(hp.head_dim()));
  }
  // The two ops a cache of this type meets, as shapes only (Supports reads no data).
  auto shaped = [](vt::DType t, std::array<int64_t, 4> ne) {
    vt::Tensor x;
    x.dtype = t;
    x.ne = ne;
    x.nb = vt::ContiguousStrides(t, ne);
    return x;
  };
  vt::Tensor q = shaped(vt::DType::kF32, {hp.head_dim(), hp.n_head, 1, 1}), out = q;
  vt::Tensor fresh = shaped(vt::DType::kF32, {hp.head_dim(), hp.n_head_kv, 1, 1}), cache = shaped(dtype, fresh.ne);
  vt::OpParams into;
  into.out_dtype = dtype;
  const bool writes = backend.Supports(vt::Op{vt::OpKind::kCopy, {&fresh}, &cache, into});
  const bool reads = backend.Supports(vt::Op{vt::OpKind::kAttention, {&q, &cache, &cache}, &out, {}});
  if (!writes || !reads) {
    return vt::Status(vt::StatusCode::kInvalidArgument, what + backend.name() + " has no kernel to " + (writes ? "read" : "write") +
                                                            " such a cache (the CPU has: --device cpu)");
  }
  return vt::Status();
}

}  // namespace vttools
