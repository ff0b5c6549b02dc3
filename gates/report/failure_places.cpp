#include "gates/report/failure_places.h"

#include <regex>
#include <set>
#include <sstream>

#include "gates/core/integer_text.h"

namespace pg {
namespace {

struct Pattern {
  std::regex re;
  bool message_follows;  // the explanation is on the next lines (GoogleTest, Catch2)
};

const std::vector<Pattern>& Patterns() {
  static const std::vector<Pattern> patterns = {
      {std::regex(R"(^(\S[^:]*):(\d+): Failure$)"), true},                          // GoogleTest
      {std::regex(R"(^(\S[^:]*):(\d+): FAILED:$)"), true},                          // Catch2
      {std::regex(R"(^(\S[^:]*\.py):(\d+): (\w+(Error|Exception)\b.*)$)"), false},  // pytest
      {std::regex(R"(^(\S[^:]*):(\d+):\d+: (?:fatal )?error: (.*)$)"), false},      // gcc, clang
      {std::regex(R"(^CMake Error at (\S[^:]*):(\d+) \(\w+\):$)"), true},  // CMake's configure
  };
  return patterns;
}

// The current test case's name from a line that starts one, empty when it is not such a line.
std::string TestStarted(const std::string& line) {
  static const std::regex gtest(R"(^\[ RUN +\] (\S+))");
  static const std::regex pytest(R"(^_{3,} (\S.*\S) _{3,}$)");
  std::smatch m;
  if (std::regex_search(line, m, gtest) || std::regex_search(line, m, pytest)) return m[1];
  return "";
}

bool MayBePlace(const std::string& line);

// The explanation under a place: up to six lines, ending at a blank line, a test's end or
// start, or the next place.
std::string Following(const std::vector<std::string>& lines, size_t i) {
  std::string message;
  for (size_t k = i + 1; k < lines.size() && k <= i + 6; ++k) {
    const std::string& l = lines[k];
    if (l.empty() || l.starts_with("[  FAILED") || l.starts_with("===") || l.starts_with("---"))
      break;
    if (!TestStarted(l).empty() || MayBePlace(l)) break;
    message += (message.empty() ? "" : "\n") + l;
  }
  return message;
}

bool MayBePlace(const std::string& line) {
  for (const char* word : {": Failure", ": FAILED:", "Error", "Exception", "error: "}) {
    if (line.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::vector<FailurePlace> FailurePlaces(const std::string& output, size_t limit) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  std::vector<FailurePlace> places;
  std::set<std::pair<std::string, int>> seen;
  std::string test;
  for (size_t i = 0; i < lines.size() && places.size() < limit; ++i) {
    std::string started = TestStarted(lines[i]);
    if (!started.empty()) test = started;
    if (!MayBePlace(lines[i])) continue;  // std::regex is slow: most lines of a log are not places
    for (const Pattern& p : Patterns()) {
      std::smatch m;
      if (!std::regex_match(lines[i], m, p.re)) continue;
      // Cut to nine digits: an int, never an exception (the pattern made them digits).
      int line = static_cast<int>(ParseInteger(m[2].str().substr(0, 9)).value_or(0));
      if (!seen.insert({m[1], line}).second) break;
      places.push_back(
          FailurePlace{m[1], line, test, p.message_follows ? Following(lines, i) : m[3].str()});
      break;
    }
  }
  return places;
}

}  // namespace pg
