// What each executable of a CMake build is made of, from CMake's file API (codemodel-v2): how
// `mutate --generate` selects tests for a build that is not Ninja's (Unix Makefiles is CMake's
// default), where `ninja -t inputs` cannot be asked, and how `init` finds the test executables
// of a build that registers no ctest test.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

struct CMakeExecutable {
  std::string artifact;                  // absolute path
  std::vector<std::string> own_sources;  // its target's own sources, absolute
  std::set<std::string> sources;         // its own and those of every target it depends on
};

// Asks CMake for the codemodel: `build_dir`'s next configure writes the reply.
Status PlaceCodemodelQuery(const std::string& build_dir);

// The executables of the reply that a configure of `build_dir` wrote after PlaceCodemodelQuery;
// empty when there is none or it cannot be read.
std::vector<CMakeExecutable> CMakeExecutables(const std::string& build_dir);

// Each executable artifact (absolute path) → its own sources and those of every target it
// depends on (absolute). Places the query in `build_dir` and reconfigures it (`cmake .`, from
// its cache) so the reply is there. Empty when `build_dir` holds no CMake cache, the reconfigure
// fails, or the reply cannot be read: the caller then runs every test.
std::map<std::string, std::set<std::string>> ExecutableSources(const std::string& build_dir);

}  // namespace pg
