#include "gates/init/toolchain_probe.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace pg {

bool OnPath(const char* program) {
  std::istringstream dirs(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// The toolchain probe's shell script for a kind: what a build of that kind reads that the tree
// does not hold. Its output is part of every leg's cache key (an empty probe made a C++
// project's legs cached passes after `CXX=clang++`).
std::string ToolchainScript(const std::string& kind) {
  const std::string env = "env | grep -E '^(";
  if (kind == "Cargo")
    return "rustc -vV; cargo -V; " + env + "RUSTFLAGS|RUSTC[A-Z_]*|CARGO_[A-Z_]*)=' | sort; true";
  if (kind == "pytest") {
    return "command -v python3 python pytest; python3 --version; python3 -m pytest --version "
           "2>&1; " +
           env + "PYTHONPATH|VIRTUAL_ENV|PYTEST_ADDOPTS)=' | sort; true";
  }
  if (kind.rfind("npm", 0) == 0) return "command -v node npm; node --version; npm --version; true";
  // C and C++: the compilers PATH and $CC/$CXX name (a switched alternative shows in the real
  // path), the build tools, and the variables a build reads.
  return "for c in \"${CC:-cc}\" \"${CXX:-c++}\"; do p=$(command -v \"$c\") && readlink -f \"$p\" "
         "&& \"$c\" --version; done; "
         "for t in cmake ninja meson make ccache bear; do command -v \"$t\" >/dev/null && \"$t\" "
         "--version 2>&1 | head -n 1; done; " +
         env +
         "CC|CXX|CPP|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|LDLIBS|PKG_CONFIG_PATH|CMAKE_[A-Z_]*)=' | "
         "sort; true";
}

}  // namespace pg
