#include "gates/init/cmake_options.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "gates/core/file_io.h"
#include "gates/init/toolchain_probe.h"

namespace pg {
namespace {

struct Option {
  std::string name, description, value;
};

// The root CMakeLists.txt's `option()`s and `cmake_dependent_option()`s, comments left out.
std::vector<Option> RootOptions(const std::string& root) {
  auto text = ReadFile(root + "/CMakeLists.txt");
  if (!text.ok()) return {};
  std::string code;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] != '#') code += line + "\n";
  }
  static const std::regex kOption(
      R"re((^|[^A-Za-z0-9_])(option|cmake_dependent_option)\s*\(\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"(\s+([^\s)]+))?)re",
      std::regex::icase);
  std::vector<Option> out;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kOption);
       it != std::sregex_iterator(); ++it) {
    out.push_back({(*it)[3], (*it)[4], (*it)[6]});
  }
  return out;
}

// Whether a test switch's name has a word naming a special kind of test: hardware or a
// toolkit not every machine has, a costly run, or one that reaches outside (fmtlib/fmt's
// FMT_CUDA_TEST compiles with nvcc wherever CMake finds one). Words are matched by prefix
// (BENCHMARKS, PERFORMANCE, PACKAGING).
bool SpecialTests(const std::string& name) {
  static const char* const kWords[] = {"CUDA",       "HIP",      "ROCM",     "GPU",     "OPENCL",
                                       "SYCL",       "VULKAN",   "MPI",      "FUZZ",    "BENCH",
                                       "PERF",       "STRESS",   "SLOW",     "LONG",    "EXPENSIVE",
                                       "EXHAUSTIVE", "VALGRIND", "MEMCHECK", "SANITIZ", "COVERAGE",
                                       "INSTALL",    "PACKAG",   "PYTHON",   "NETWORK", "ONLINE"};
  std::istringstream words(name);
  for (std::string word; std::getline(words, word, '_');) {
    std::transform(word.begin(), word.end(), word.begin(),
                   [](unsigned char c) { return std::toupper(c); });
    for (const char* w : kWords) {
      if (word.starts_with(w)) return true;
    }
  }
  return false;
}

// Options of the root CMakeLists.txt that switch the project's tests on and are not on by
// default (zeux/pugixml's PUGIXML_BUILD_TESTS is OFF): without them the build registers no
// test. Only the root's: a vendored dependency's (googletest's gtest_build_tests) would build
// tests that are not the project's. Those for a special kind of test go to `left_off`.
std::vector<std::string> TestSwitches(const std::string& root, std::vector<std::string>* left_off) {
  static const std::regex kTests("(tests?|testing)$", std::regex::icase);
  static const std::regex kOn("on|true|yes|y|1", std::regex::icase);
  std::vector<std::string> out;
  for (const Option& o : RootOptions(root)) {
    std::vector<std::string>& to = SpecialTests(o.name) ? *left_off : out;
    bool listed = std::find(to.begin(), to.end(), o.name) != to.end();
    if (!listed && std::regex_search(o.name, kTests) && !std::regex_match(o.value, kOn))
      to.push_back(o.name);
  }
  return out;
}

// The tool a documentation switch needs: the one its description names, else Doxygen.
std::string DocsTool(const std::string& description) {
  std::string lower = description;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  for (auto [word, tool] :
       {std::pair{"sphinx", "sphinx-build"}, {"asciidoc", "asciidoctor"}, {"pandoc", "pandoc"}}) {
    if (lower.find(word) != std::string::npos) return tool;
  }
  return "doxygen";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> DocsSwitchesToTurnOff(const std::string& root) {
  static const std::regex kDocs("(^|_)(BUILD_)?(DOCS?|DOCUMENTATION|DOXYGEN)$", std::regex::icase);
  static const std::regex kOn("on|true|yes|y|1", std::regex::icase);
  std::vector<std::pair<std::string, std::string>> out;
  for (const Option& o : RootOptions(root)) {
    if (!std::regex_search(o.name, kDocs) || !std::regex_match(o.value, kOn)) continue;
    std::string tool = DocsTool(o.description);
    bool listed =
        std::any_of(out.begin(), out.end(), [&](const auto& p) { return p.first == o.name; });
    if (!listed && !OnPath(tool.c_str())) out.emplace_back(o.name, tool);
  }
  return out;
}

CMakeOptions CMakeOptionsFor(const std::string& src) {
  CMakeOptions o{{"-DCMAKE_BUILD_TYPE=RelWithDebInfo"}, "", "", ""};
  if (OnPath("ninja")) o.options.insert(o.options.end(), {"-G", "Ninja"});
  if (OnPath("ccache"))
    o.options.insert(o.options.end(), {"-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
                                       "-DCMAKE_C_COMPILER_LAUNCHER=ccache"});
  std::vector<std::string> left_off;
  for (const std::string& name : TestSwitches(src, &left_off)) {
    o.options.push_back("-D" + name + "=ON");
    o.switched += (o.switched.empty() ? "" : ", ") + name;
  }
  for (const std::string& name : left_off) o.off += (o.off.empty() ? "" : ", ") + name;
  for (const auto& [name, tool] : DocsSwitchesToTurnOff(src)) {
    o.options.push_back("-D" + name + "=OFF");
    o.docs_off += (o.docs_off.empty() ? "" : ", ") + name + " (" + tool + " is not on PATH)";
  }
  return o;
}

}  // namespace pg
