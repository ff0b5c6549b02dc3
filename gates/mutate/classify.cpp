#include "gates/mutate/classify.h"

#include <algorithm>
#include <regex>
#include <sstream>

#include "gates/config/json_source.h"
#include "gates/core/utf8.h"
#include "gates/report/failure_places.h"

namespace pg {

std::string_view MutantOutcomeName(MutantOutcome o) {
  switch (o) {
    case MutantOutcome::kRedAsClaimed:
      return "red-as-claimed";
    case MutantOutcome::kRedOther:
      return "red-other";
    case MutantOutcome::kSurvived:
      return "survived";
    case MutantOutcome::kUnviable:
      return "unviable";
    case MutantOutcome::kTimeout:
      return "timeout";
    case MutantOutcome::kGreenAsClaimed:
      return "green-as-claimed";
    case MutantOutcome::kNotGreen:
      return "not-green";
    case MutantOutcome::kKilled:
      return "killed";
  }
  return "?";
}

namespace {

// The code points of UTF-8 `s` as bytes when every one is below 0x100 and the bytes are valid
// UTF-8; otherwise `s`. gtest's JSON writer escapes each byte above 0x7F of a message as a
// code point of its own ("×", C3 97, comes out as \u00C3\u0097), so this gives back the
// test's own text; ASCII is left as it is.
std::string GtestText(const std::string& s) {
  std::string bytes;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      bytes += static_cast<char>(c);
    } else if ((c == 0xC2 || c == 0xC3) && i + 1 < s.size() &&
               (static_cast<unsigned char>(s[i + 1]) & 0xC0) == 0x80) {
      bytes += static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(s[++i]) & 0x3F));
    } else {
      return s;  // a code point past U+00FF: not gtest's escaping
    }
  }
  return IsValidUtf8(bytes) ? bytes : s;
}

}  // namespace

Status AddGtestJson(const std::string& name, const std::string& text,
                    std::map<std::string, TestResult>* results) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("testsuites") ||
      !doc["testsuites"].is_array()) {
    return Status::Invalid(name + ": not a gtest JSON report");
  }
  for (const Json& suite : doc["testsuites"]) {
    if (!suite.is_object() || !suite.contains("testsuite")) continue;
    for (const Json& test : suite["testsuite"]) {
      if (!test.is_object() || test.value("result", "") == "SKIPPED" ||
          test.value("status", "RUN") != "RUN")
        continue;
      TestResult& r = (*results)[suite.value("name", "") + "." + test.value("name", "")];
      for (const Json& f : test.value("failures", Json::array())) {
        r.failed = true;
        r.messages.push_back(GtestText(f.value("failure", "")));
      }
    }
  }
  return Status();
}

std::string OneLineFailure(const std::vector<std::string>& messages) {
  if (messages.empty()) return "";
  std::istringstream in(messages.front());
  std::string line, out;
  for (bool first = true; std::getline(in, line); first = false) {
    size_t colon = line.rfind(':');
    // gtest's "path/file.cpp:12" alone on its line; a sentence ending in a place is the failure
    bool location = first && colon != std::string::npos && colon + 1 < line.size() &&
                    line.find(' ') == std::string::npos &&
                    line.find_first_not_of("0123456789", colon + 1) == std::string::npos;
    size_t start = line.find_first_not_of(" \t");
    if (location || start == std::string::npos) continue;
    out += (out.empty() ? "" : " / ") + line.substr(start);
  }
  return out.size() > 240 ? out.substr(0, 240) + "..." : out;
}

std::string OutputFailureLine(const std::string& output) {
  std::vector<FailurePlace> places =
      FailurePlaces(output, 1);  // Catch2's FAILED: and what explains it
  if (!places.empty()) {
    std::string message;  // its lines on one, spaces collapsed
    for (char c : places[0].message) {
      bool space = c == ' ' || c == '\n' || c == '\t';
      if (!space || (!message.empty() && message.back() != ' ')) message += space ? ' ' : c;
    }
    while (!message.empty() && message.back() == ' ') message.pop_back();
    return places[0].file + ":" + std::to_string(places[0].line) + ": " + message;
  }
  static const std::regex kFailure(
      R"((^|\W)(fail(ed|ure|s)?|errors?|assert(ion)?|expected|mismatch|panic|abort(ed)?)(\W|$))",
      std::regex::icase);
  static const std::regex kNone(R"(\b(0|no|zero)\s+(errors?|failures?|failed)\b)",
                                std::regex::icase);  // counts none
  std::istringstream in(output);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos) continue;
    line = line.substr(start, line.find_last_not_of(" \t\r") + 1 - start);
    last = line;
    // CTest's own lines say that a test failed, not why.
    if (line.starts_with("Errors while running CTest") ||
        line.find("tests failed out of") != std::string::npos)
      continue;
    if (std::regex_search(line, kFailure) && !std::regex_search(line, kNone)) return line;
  }
  return last;
}

namespace {

// The line of a failure message where the claimed regex matched.
std::string MatchedLine(const std::vector<std::string>& messages, const std::string& pattern) {
  std::regex re(pattern, std::regex::ECMAScript | std::regex::multiline);
  for (const std::string& m : messages) {
    std::smatch match;
    if (!std::regex_search(m, match, re)) continue;
    size_t at = static_cast<size_t>(match.position(0));
    size_t begin = m.rfind('\n', at == 0 ? 0 : at - 1);
    begin = (begin == std::string::npos || at == 0) ? 0 : begin + 1;
    std::string line = m.substr(begin, m.find('\n', at) - begin);
    return line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
  }
  return "";
}

Classification ClassifyRed(const std::vector<Expectation>& expect,
                           const std::map<std::string, TestResult>& results) {
  bool any_failed = false;
  for (const auto& [name, r] : results) any_failed = any_failed || r.failed;
  std::vector<std::string> problems;
  for (const Expectation& e : expect) {
    auto it = results.find(e.test);
    if (it == results.end()) {
      problems.push_back(e.test + " did not run");
      continue;
    }
    if (!it->second.failed) {
      problems.push_back(e.test + " passed");
      continue;
    }
    std::regex re(e.message, std::regex::ECMAScript | std::regex::multiline);
    bool matched = false;
    for (const std::string& m : it->second.messages) matched = matched || std::regex_search(m, re);
    if (!matched)
      problems.push_back(e.test + " failed with \"" + OneLineFailure(it->second.messages) +
                         "\", not /" + e.message + "/");
  }
  if (problems.empty()) return {MutantOutcome::kRedAsClaimed, "", ""};
  std::string detail;
  for (const std::string& p : problems) detail += (detail.empty() ? "" : "; ") + p;
  if (!any_failed) return {MutantOutcome::kSurvived, detail, ""};
  for (const auto& [name, r] : results) {
    bool expected = false;
    for (const Expectation& e : expect) expected = expected || e.test == name;
    if (r.failed && !expected && !r.alias)
      detail += "; " + name + " failed instead: \"" + OneLineFailure(r.messages) + "\"";
  }
  return {MutantOutcome::kRedOther, detail, ""};
}

}  // namespace

bool AsClaimed(MutantOutcome o) {
  return o == MutantOutcome::kRedAsClaimed || o == MutantOutcome::kGreenAsClaimed ||
         o == MutantOutcome::kKilled;
}

Classification ClassifyGreen(const std::vector<Expectation>& expect,
                             const std::map<std::string, TestResult>& results) {
  std::string detail;
  for (const Expectation& e : expect) {
    if (!results.count(e.test)) detail += (detail.empty() ? "" : "; ") + e.test + " did not run";
  }
  for (const auto& [name, r] : results) {
    if (r.failed && !r.alias)
      detail +=
          (detail.empty() ? "" : "; ") + name + " failed: \"" + OneLineFailure(r.messages) + "\"";
  }
  return {detail.empty() ? MutantOutcome::kGreenAsClaimed : MutantOutcome::kNotGreen, detail, ""};
}

Classification Classify(const std::vector<Expectation>& expect,
                        const std::map<std::string, TestResult>& results) {
  Classification c = ClassifyRed(expect, results);
  for (const Expectation& e : expect) {
    auto it = results.find(e.test);
    if (it != results.end() && it->second.failed) {
      c.observed = MatchedLine(it->second.messages, e.message);
      if (c.observed.empty()) c.observed = OneLineFailure(it->second.messages);
      break;
    }
  }
  return c;
}

}  // namespace pg
