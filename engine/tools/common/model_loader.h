// A model as the tools open it: the file, the device of --device, the MoE placement (experts
// on the CPU when asked) and the weights. One object owns them all, so what the model points
// into (the mapped file, the placement queue, an opened GPU backend) lives as long as it does.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "vt/backend.h"
#include "vt/model.h"

namespace vttools {

struct LoadedModel {
  std::shared_ptr<const vt::GgufFile> file;
  std::unique_ptr<vt::Backend> opened;  // a GPU backend opened for --device; null for cpu
  vt::Backend* device = nullptr;
  std::optional<vt::PlacementQueue> placement;
  std::unique_ptr<vt::Model> model;
};

// The file's tensor types with their bytes, largest first, and the total:
// "q4_K 77.0 MiB, q6_K 25.3 MiB, f32 0.1 MiB (102.4 MiB in 39 tensors)".
std::string WeightMix(const vt::GgufFile& file);
// The model's weights as the backend holds them (vt::Model::held_bytes), in WeightMix's words:
// "bf16tiles 40.0 MiB, f32 0.1 MiB".
std::string HeldMix(const vt::Model& model);

// Statuses name the file ("F: ...") or the flag ("--device ...").
vt::StatusOr<std::unique_ptr<LoadedModel>> LoadModel(const std::string& path, const std::string& device, bool experts_on_cpu);

// Whether `model`'s KV cache can be of `dtype` on `backend`, before anything runs: a q8_0
// cache needs heads of whole 32-value blocks, and a backend that cannot write or read it
// (Vulkan, CUDA: q8_0) is named. kInvalidArgument "FLAG TYPE: why".
vt::Status CheckKvCacheDtype(const vt::Model& model, vt::Backend& backend, vt::DType dtype, const std::string& flag);

}  // namespace vttools
