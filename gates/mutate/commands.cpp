#include "gates/mutate/commands.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "gates/core/sha256.h"
#include "gates/mutate/reach.h"

namespace pg {
namespace {

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

// One test's pytest node id: the longest dotted prefix (before any "[params]") that is a .py
// file of `tree` is the module, the rest its classes and function; "" when none is.
std::string NodeId(const std::string& tree, const std::string& test) {
  size_t bracket = test.find('[');
  std::string dotted = test.substr(0, bracket),
              params = bracket == std::string::npos ? "" : test.substr(bracket);
  std::vector<std::string> parts;
  std::istringstream in(dotted);
  for (std::string part; std::getline(in, part, '.');) parts.push_back(part);
  std::error_code ec;
  for (size_t n = parts.size() - (parts.empty() ? 0 : 1); n > 0; --n) {
    std::string file = parts[0];
    for (size_t i = 1; i < n; ++i) file += "/" + parts[i];
    if (!std::filesystem::is_regular_file(tree + "/" + file + ".py", ec)) continue;
    std::string id = file + ".py";
    for (size_t i = n; i < parts.size(); ++i) id += "::" + parts[i];
    return id + params;
  }
  return "";
}

std::vector<std::string> Expand(std::vector<std::string> argv, const Placeholders& p) {
  std::vector<std::string> words;  // {tests_pytest} is as many arguments as there are tests
  for (const std::string& arg : argv) {
    std::vector<std::string> ids =
        arg == "{tests_pytest}" ? PytestNodeIds(p.tree, p.tests) : std::vector<std::string>{arg};
    words.insert(words.end(), ids.begin(), ids.end());
  }
  argv = std::move(words);
  const std::pair<std::string, std::string> subs[] = {{"{tree}", p.tree},
                                                      {"{build}", p.build},
                                                      {"{results}", p.results},
                                                      {"{tests_regex}", CtestRegex(p.tests)},
                                                      {"{gtest_filter}", Joined(p.tests, ":")}};
  for (std::string& arg : argv) {
    for (const auto& [key, value] : subs) {
      for (size_t at = arg.find(key); at != std::string::npos;
           at = arg.find(key, at + value.size())) {
        arg.replace(at, key.size(), value);
      }
    }
  }
  return argv;
}

std::vector<std::string> DefaultConfigure() {
  // The compilation database is where `mutate --generate` finds each file's flags.
  std::vector<std::string> argv = {"cmake", "-S",      "{tree}",
                                   "-B",    "{build}", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"};
  if (OnPath("ninja")) argv.insert(argv.end(), {"-G", "Ninja"});
  if (OnPath("ccache")) {
    argv.insert(argv.end(),
                {"-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"});
  }
  return argv;
}

}  // namespace

std::vector<std::string> PytestNodeIds(const std::string& tree,
                                       const std::vector<std::string>& tests) {
  std::vector<std::string> ids;
  for (const std::string& t : tests) {
    std::string id = NodeId(tree, t);
    if (id.empty())
      return {};  // a name no file of the tree holds: the whole suite, never fewer tests
    ids.push_back(id);
  }
  return ids;
}

std::vector<std::string> ConfigureArgv(const Catalog& c, const Placeholders& p) {
  return Expand(c.configure.empty() ? DefaultConfigure() : c.configure, p);
}

std::vector<std::string> BuildArgv(const Catalog& c, const Placeholders& p) {
  if (!c.build_command.empty()) return Expand(c.build_command, p);
  std::vector<std::string> argv = {"cmake", "--build", "{build}"};
  if (!c.build_targets.empty()) argv.push_back("--target");
  argv.insert(argv.end(), c.build_targets.begin(), c.build_targets.end());
  return Expand(argv, p);
}

std::vector<std::string> KeepGoingBuildArgv(const Catalog& c, const Placeholders& p) {
  std::vector<std::string> argv = BuildArgv(c, p);
  if (!c.build_command.empty()) return argv;
  std::error_code ec;
  if (std::filesystem::exists(p.build + "/build.ninja", ec))
    argv.insert(argv.end(), {"--", "-k", "0"});
  else if (std::filesystem::exists(p.build + "/Makefile", ec))
    argv.insert(argv.end(), {"--", "-k"});
  return argv;
}

std::vector<std::string> OutputsBuildArgv(const Catalog& c, const Placeholders& p,
                                          const std::vector<std::string>& outputs) {
  std::error_code ec;
  if (!c.build_command.empty() || outputs.empty() ||
      !std::filesystem::exists(p.build + "/build.ninja", ec))
    return {};
  std::vector<std::string> argv = {"cmake", "--build", p.build, "--target"};
  argv.insert(argv.end(), outputs.begin(), outputs.end());
  argv.insert(argv.end(), {"--", "-k", "0"});
  return argv;
}

std::vector<std::string> TestArgv(const Catalog& c, const Placeholders& p) {
  if (!c.test_command.empty()) return Expand(c.test_command, p);
  // gtest cases report through GTEST_OUTPUT's JSON (with their failure messages); the JUnit
  // report adds the plain ctest tests (add_test commands), which have no JSON of their own.
  std::vector<std::string> argv = {
      "ctest",          "--test-dir",          "{build}", "--output-on-failure", "--no-tests=error",
      "--output-junit", "{results}/ctest.xml", "-R",      "{tests_regex}"};
  if (p.fail_fast) argv.push_back("--stop-on-failure");
  return Expand(argv, p);
}

std::vector<std::string> ListArgv(const Catalog& c, const Placeholders& p) {
  if (!c.list_command.empty()) return Expand(c.list_command, p);
  return Expand({"ctest", "--test-dir", "{build}", "--show-only=json-v1"}, p);
}

std::vector<std::pair<std::string, std::string>> StepEnv(const Placeholders& p) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"GTEST_OUTPUT", "json:" + p.results + "/"},
      {"CCACHE_BASEDIR", p.tree},
      {"CCACHE_NOHASHDIR", "true"}};
  if (!p.gtest_filter_env.empty()) env.emplace_back("GTEST_FILTER", p.gtest_filter_env);
  // Always set: a run under another proofgate mutate (this repository mutating itself) must not
  // switch on the outer run's mutant in its own schemata, nor record into the outer reach file.
  env.emplace_back(kMutantVariable, std::to_string(p.mutant));
  env.emplace_back(kReachVariable, p.reached);
  if (p.fail_fast) env.emplace_back("GTEST_FAIL_FAST", "1");
  return env;
}

Status CheckScratchCommands(const std::string& root, const std::vector<std::string>& configure,
                            const std::string& whose) {
  std::error_code ec;
  if (!configure.empty() || std::filesystem::exists(root + "/CMakeLists.txt", ec)) return Status();
  return Status::Invalid(
      root + ": no CMakeLists.txt at the root, and neither " + whose +
      " nor preflight/suites.json's \"commands\" says how a scratch copy is configured, built and "
      "tested: set \"commands\": {\"configure\": [...], \"build_command\": [...], "
      "\"test_command\": [...]} in preflight/suites.json (nothing to configure: [\"true\"]; "
      "specs/mutate.md)");
}

std::string ConfigureKey(const Catalog& c) {
  return Sha256Hex(Joined(c.configure.empty() ? DefaultConfigure() : c.configure, "\n"))
      .substr(0, 12);
}

std::string CtestRegex(const std::vector<std::string>& tests) {
  if (tests.empty()) return ".";
  std::string out = "^(";
  for (size_t i = 0; i < tests.size(); ++i) {
    if (i) out += "|";
    for (char ch : tests[i]) {
      if (std::string_view(".^$|()[]{}*+?\\").find(ch) != std::string_view::npos) out += '\\';
      out += ch;
    }
  }
  return out + ")$";
}

}  // namespace pg
