// What `proofgate init` puts in suites.json's "toolchain": a probe of what a build of a kind
// reads that the tree does not hold, so that a changed compiler or CXXFLAGS is no cached pass.
#pragma once

#include <string>

namespace pg {

// Whether PATH holds an executable `program`: what init's choices depend on (Ninja, ccache,
// bear, a documentation tool).
bool OnPath(const char* program);

// The probe's shell script (run as `sh -c SCRIPT`) for a project of `kind` (init's kind names:
// "CMake ...", "Meson", "Make", "Cargo", "pytest", "npm").
std::string ToolchainScript(const std::string& kind);

}  // namespace pg
