#include "cpu/amx_grant.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vt::cpu {
namespace {

// arch_prctl codes and the tile-data feature bit (asm/prctl.h, which Debian 12's headers lack).
constexpr int kArchGetXcompSupp = 0x1021;
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

class RealAmxSystem final : public AmxSystem {
 public:
  bool CpuHasTiles() const override {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
    const bool bf16 = (d >> 22) & 1, tile = (d >> 24) & 1;
    return bf16 && tile;
  }
  int64_t SupportedFeatures() const override {
    uint64_t mask = 0;
    if (syscall(SYS_arch_prctl, kArchGetXcompSupp, &mask) != 0) return -errno;
    return static_cast<int64_t>(mask & ~(uint64_t{1} << 63));
  }
  int RequestTileData() const override {
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0 ? 0 : -errno;
  }
};

}  // namespace

AmxGrant AskForAmx(const AmxSystem& system) {
  if (!system.CpuHasTiles()) return {false, "the CPU has no AMX (CPUID: AMX-TILE and AMX-BF16)"};
  const int64_t features = system.SupportedFeatures();
  if (features < 0) {
    return {false, std::string("the kernel does not say which XSAVE features it supports (ARCH_GET_XCOMP_SUPP: ") +
                       std::strerror(static_cast<int>(-features)) + "); Linux 5.16 or later gives tiles"};
  }
  if (((features >> kXfeatureXtiledata) & 1) == 0) return {false, "the kernel does not support tile data (XFEATURE_XTILEDATA)"};
  if (const int rc = system.RequestTileData(); rc != 0) {
    return {false, std::string("the kernel refused the tile-data permission (ARCH_REQ_XCOMP_PERM: ") + std::strerror(-rc) + ")"};
  }
  return {true, ""};
}

const AmxGrant& GrantAmx() {
  static const AmxGrant grant = AskForAmx(RealAmxSystem());
  return grant;
}

}  // namespace vt::cpu
