// Whether this process may use Intel's tile registers (AMX). Three things must say yes: the
// CPU (CPUID leaf 7: AMX-TILE and AMX-BF16), the kernel's XSAVE support for tile data
// (ARCH_GET_XCOMP_SUPP), and the kernel's permission for this process (ARCH_REQ_XCOMP_PERM:
// Linux 5.16 and later give tile state only to a process that asks, since it adds 8 KiB to
// every context switch's save area). The answer, and the reason when it is no, is kept.
#pragma once

#include <cstdint>
#include <string>

namespace vt::cpu {

struct AmxGrant {
  bool granted = false;
  std::string why;  // empty when granted; otherwise what said no, in words
};

// What the CPU and the kernel are asked (the OS boundary; tests pass their own answers).
struct AmxSystem {
  virtual ~AmxSystem() = default;
  virtual bool CpuHasTiles() const = 0;  // AMX-TILE and AMX-BF16
  // ARCH_GET_XCOMP_SUPP's mask of the XSAVE features the kernel supports; -errno on failure.
  virtual int64_t SupportedFeatures() const = 0;
  // ARCH_REQ_XCOMP_PERM for tile data: 0, or -errno.
  virtual int RequestTileData() const = 0;
};

// The answer of `system`: asks for the permission only when the CPU and the kernel have tiles.
AmxGrant AskForAmx(const AmxSystem& system);

// This process's answer from the real CPU and kernel, asked on the first call only.
const AmxGrant& GrantAmx();

}  // namespace vt::cpu
