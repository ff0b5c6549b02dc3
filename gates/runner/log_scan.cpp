#include "gates/runner/log_scan.h"

#include <regex>
#include <sstream>

namespace pg {

std::string FirstError(const std::string& log) {
  std::istringstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("error:") != std::string::npos || line.find("error ") == 0 ||
        line.find("undefined reference") != std::string::npos) {
      return line;
    }
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

bool ToolRejected(const std::string& log) {
  static const std::regex kLinkerOrTool(
      R"(undefined reference to|ld returned \d+ exit status|linker command failed|multiple definition of|)"
      R"((^|\n)ninja: error:|No rule to make target|(^|\n)CMake Error)");
  if (std::regex_search(log, kLinkerOrTool)) return true;
  // Ninja names each failed step's outputs: a compiler's is an object (or a precompiled
  // header). A failed link step says nothing more: its output may be a test's, which UnitTest++
  // and Boost.Test write as `file:line: error:` too.
  static const std::regex kFailed(R"((^|\n)FAILED: ([^\n]*))");
  static const std::regex kObject(R"(\.(o|obj|gch|pch)$)");
  bool ninja = false;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), kFailed);
       it != std::sregex_iterator(); ++it) {
    ninja = true;
    std::istringstream outputs((*it)[2].str());
    for (std::string output; outputs >> output;) {
      if (std::regex_search(output, kObject)) return true;
    }
  }
  static const std::regex kCompiler(R"((^|\n)[^\s:][^:\n]*(:\d+(:\d+)?)?: (fatal )?error:)");
  return !ninja && std::regex_search(log, kCompiler);
}

std::string FailedStep(const std::string& log) {
  size_t at = log.rfind("FAILED: ", 0) == 0 ? 0 : log.find("\nFAILED: ");
  if (at == std::string::npos) return FirstError(log);
  at += log[at] == '\n' ? 1 : 0;
  std::string line = log.substr(at, log.find('\n', at) - at);
  return line.substr(0, line.find_last_not_of(" \t\r") + 1);
}

std::set<std::string> FailingCases(const std::string& log) {
  static const std::regex kGtest(R"(^\[  FAILED  \] (\S+) \(\d+ ms\)\s*$)");
  static const std::regex kCtest(
      R"(^\s*\d+ - (\S+) \((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception|Not Run)\))");
  std::set<std::string> cases;
  std::istringstream in(log);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, kGtest) || std::regex_search(line, m, kCtest))
      cases.insert(m[1].str());
  }
  return cases;
}

}  // namespace pg
