// Running the engine's tools as a user does: a shell command, its exit code and both streams.
#pragma once

#include <string>

namespace vt::testing {

struct ToolResult {
  int code = -1;
  std::string out, err;
};

ToolResult Sh(const std::string& cmd);

}  // namespace vt::testing
