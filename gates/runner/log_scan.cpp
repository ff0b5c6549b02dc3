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
