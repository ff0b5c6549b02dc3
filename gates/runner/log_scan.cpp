#include "runner/log_scan.h"

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
  static const std::regex kTool(
      R"((^|\n)[^\s:][^:\n]*(:\d+(:\d+)?)?: (fatal )?error:|\(\d+\): (catastrophic )?error|undefined reference to|)"
      R"(ld returned \d+ exit status|linker command failed|multiple definition of|(^|\n)ninja: error:|No rule to make target|)"
      R"((^|\n)CMake Error)");
  return std::regex_search(log, kTool);
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
  static const std::regex kCtest(R"(^\s*\d+ - (\S+) \((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception|Not Run)\))");
  std::set<std::string> cases;
  std::istringstream in(log);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, kGtest) || std::regex_search(line, m, kCtest)) cases.insert(m[1].str());
  }
  return cases;
}

}  // namespace pg
