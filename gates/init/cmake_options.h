// The -D options `proofgate init` configures a CMake project with (specs/init.md): Ninja and
// ccache where this machine has them, the test switches a project leaves off by default
// turned on, and documentation switches whose tool is absent turned off.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pg {

struct CMakeOptions {
  std::vector<std::string> options;
  // For the notes: the test switches turned on, those left off (a special kind of test), and
  // the documentation switches turned off, each with its missing tool.
  std::string switched, off, docs_off;
};

// The options for the project whose root CMakeLists.txt is in `src`.
CMakeOptions CMakeOptionsFor(const std::string& src);

// The root's documentation switches that are on by default and whose tool (the one the
// option's description names, Doxygen when none) is not on PATH: (name, tool).
std::vector<std::pair<std::string, std::string>> DocsSwitchesToTurnOff(const std::string& src);

}  // namespace pg
