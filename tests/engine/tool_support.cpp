#include "tool_support.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace vt::testing {

ToolResult Sh(const std::string& cmd) {
  std::string base =
      (std::filesystem::temp_directory_path() / ("vt-tool-out-" + std::to_string(getpid())))
          .string();
  int status = std::system((cmd + " >" + base + " 2>" + base + ".err").c_str());
  ToolResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, "", ""};
  for (auto [path, into] : {std::pair{base, &r.out}, {base + ".err", &r.err}}) {
    std::stringstream s;
    s << std::ifstream(path).rdbuf();
    *into = s.str();
    std::filesystem::remove(path);
  }
  return r;
}

std::string TinyFixtureDir(const std::string& prefix) {
  std::string dir =
      (std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  ToolResult r = Sh(std::string(VT_FIXTURE_BIN) + " -o " + dir +
                    "/m.gguf --layers 2 --dim 64 --heads 4 --kv-heads 2");
  EXPECT_EQ(r.code, 0) << r.err;
  return dir;
}

}  // namespace vt::testing
