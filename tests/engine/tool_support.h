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

// A Hermes-style chat template for the tiny fixture: the tools first, each call an assistant
// made as <tool_call>{...}</tool_call> (vt-serve's tool tests and its real-client tests).
inline constexpr char kHermesTemplate[] =
    "{%- if tools %}<tools>{% for t in tools %}{{ t | tojson }}{% endfor %}</tools>{% endif %}"
    "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% if m.tool_calls %}{% for tc in "
    "m.tool_calls %}"
    "<tool_call>{\"name\": \"{{ tc.function.name }}\", \"arguments\": {{ tc.function.arguments | "
    "tojson }}}</tool_call>"
    "{% endfor %}{% endif %}{% endfor %}[assistant]";

}  // namespace vt::testing
