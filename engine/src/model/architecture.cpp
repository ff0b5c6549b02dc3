#include "architecture.h"

namespace vt {
namespace {

// The registry: one entry per architecture file.
const Architecture* const kAll[] = {&kLlamaArch, &kQwen2Arch, &kQwen3Arch, &kQwen3MoeArch, &kPhi3Arch, &kGemma3Arch, &kOlmo2Arch, &kGptOssArch};

}  // namespace

const Architecture* FindArchitecture(std::string_view name) {
  for (const Architecture* a : kAll) {
    if (name == a->name) return a;
  }
  return nullptr;
}

std::string SupportedArchitectures() {
  std::string out;
  for (const Architecture* a : kAll) out += (out.empty() ? "" : ", ") + std::string(a->name);
  return out;
}

}  // namespace vt
