// Running the engine's tools as a user does: a shell command, its exit code and both streams.
#pragma once

#include <string>

namespace vt::testing {

struct ToolResult {
  int code = -1;
  std::string out, err;
};

ToolResult Sh(const std::string& cmd);

// A fresh directory `prefix`-PID under the temp directory holding vt-fixture's `m.gguf` of
// the usual tiny shape (2 layers of 64, 4 heads, 2 KV heads: 512 bytes of f32 KV cache per
// position); its path (a test failure where vt-fixture fails). The caller removes it.
std::string TinyFixtureDir(const std::string& prefix);

}  // namespace vt::testing
