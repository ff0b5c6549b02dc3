#include "model_loader.h"

#include "device_flag.h"

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
  auto model = vt::LlamaModel::Load(out->file, vt::Engine{vt::MakeQueue(*out->device)},
                                    out->placement ? &*out->placement : nullptr);
  if (!model.ok()) return vt::Status(model.status().code(), path + ": " + model.status().message());
  out->model = std::move(model).value();
  return out;
}

}  // namespace vttools
