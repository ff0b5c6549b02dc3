// What each executable of a CMake build is made of, from CMake's file API (codemodel-v2): how
// `mutate --generate` selects tests for a build that is not Ninja's (Unix Makefiles is CMake's
// default), where `ninja -t inputs` cannot be asked.
#pragma once

#include <map>
#include <set>
#include <string>

#include "core/status.h"

namespace pg {

// Each executable artifact (absolute path) → its own sources and those of every target it
// depends on (absolute). Places the query in `build_dir` and reconfigures it (`cmake .`, from
// its cache) so the reply is there. Empty when `build_dir` holds no CMake cache, the reconfigure
// fails, or the reply cannot be read: the caller then runs every test.
std::map<std::string, std::set<std::string>> ExecutableSources(const std::string& build_dir);

}  // namespace pg
