// Which kernel set runs: the best this CPU (and, for AMX, the kernel) allows, or the one
// VT_MATMUL names when it can run here; otherwise the next best, with the reason kept.
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <string>

#include "cpu/amx_grant.h"
#include "cpu/matmul_kernels.h"
#include "vt/cpu_kernels.h"

namespace vt::cpu {
namespace {

std::atomic<bool> tiles_by_default{true};  // vt::KeepBatchInvariantKernels() clears it

// The vector sets below AMX, best first; want_bf16 puts avx512-bf16 before avx512. The bf16
// dot-product set is the default on AMD's CPUs only: on an Intel Xeon with AVX512_BF16 its gemm
// ran bf16 and block-type prompts at 0.6-0.85x the f32 gemm's speed, where on a Zen 5 EPYC it was
// the faster (specs/engine-core.md). By vendor, not timed: the same machine always computes the
// same numbers.
const MatmulKernels* VectorSet(const std::string& want, bool amd) {
  if (want == "generic") return &GenericKernels();
  if (want == "avx512-bf16" || (want.empty() && amd)) {
    if (const MatmulKernels* k = Avx512Bf16Kernels()) return k;
  }
  const MatmulKernels* avx512 = want != "avx2" ? Avx512Kernels() : nullptr;
  const MatmulKernels* avx2 = Avx2Kernels();
  return avx512 ? avx512 : avx2 ? avx2 : &GenericKernels();
}

bool Known(const std::string& name) {
  return name == "amx" || name == "avx512-bf16" || name == "avx512" || name == "avx2" || name == "generic";
}

// VT_MATMUL's value as a set's name: spaces around it dropped, upper case lowered ("AMX ").
std::string Normalized(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
  std::string name = first == std::string::npos ? "" : text.substr(first, last - first + 1);
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return name;
}

}  // namespace

KernelChoice ChooseKernels(const std::string& requested, bool amd, const MatmulKernels* amx, const std::string& amx_why,
                           bool tiles_default) {
  // An unknown name runs what the default would, saying so: a typo must not turn AMX off.
  const std::string asked = Normalized(requested), want = Known(asked) ? asked : "";
  KernelChoice c{requested, nullptr, "", false};
  if ((want.empty() || want == "amx") && amx != nullptr) {
    c.set = amx;
    if (want.empty() && !tiles_default) {
      c.why = "batch-invariant: only weights in tile order on the tiles (f16 and bf16 matrices, as bf16; f32, block types "
              "and experts keep other kernels); VT_MATMUL=amx: a plain run's tiles instead, not batch-invariant";
    }
  } else if (c.set = VectorSet(want == "amx" ? "" : want, amd); want.empty() || want == "amx") {
    c.why = "amx: " + amx_why;
  } else if (want != c.set->name) {
    c.why = want + ": this CPU cannot run it";
  }
  // Tile order (with AMX) and attention per token (on every CPU) follow from it (specs/amx.md).
  c.batch_invariant = want.empty() && !tiles_default;
  if (!asked.empty() && !Known(asked)) {
    const std::string unknown = requested + ": no such set (amx, avx512-bf16, avx512, avx2, generic), so the default";
    c.why = c.set == amx ? unknown : unknown + "; " + c.why;
  }
  return c;
}

const KernelChoice& ChosenKernels() {
  static const KernelChoice choice = [] {
    const char* force = std::getenv("VT_MATMUL");
    const AmxGrant& grant = GrantAmx();
    std::string why = grant.granted ? "the CPU lacks AVX512_BF16" : grant.why;
    return ChooseKernels(force ? force : "", __builtin_cpu_is("amd"), AmxKernels(), why, tiles_by_default.load());
  }();
  return choice;
}

const MatmulKernels& BestKernels() { return *ChosenKernels().set; }

}  // namespace vt::cpu

namespace vt {

void KeepBatchInvariantKernels() { cpu::tiles_by_default.store(false); }

CpuKernelsInfo CpuKernels() {
  const cpu::KernelChoice& c = cpu::ChosenKernels();
  return CpuKernelsInfo{c.requested.empty() ? "auto (default)" : c.requested, c.set->name, c.why};
}

}  // namespace vt
