#include "mutations/classify.h"

#include <regex>

#include "config/json_source.h"

namespace pg {

std::string_view MutantOutcomeName(MutantOutcome o) {
  switch (o) {
    case MutantOutcome::kRedAsClaimed: return "red-as-claimed";
    case MutantOutcome::kRedOther: return "red-other";
    case MutantOutcome::kSurvived: return "survived";
    case MutantOutcome::kUnviable: return "unviable";
    case MutantOutcome::kTimeout: return "timeout";
  }
  return "?";
}

Status AddGtestJson(const std::string& name, const std::string& text, std::map<std::string, TestResult>* results) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("testsuites") || !doc["testsuites"].is_array()) {
    return Status::Invalid(name + ": not a gtest JSON report");
  }
  for (const Json& suite : doc["testsuites"]) {
    if (!suite.is_object() || !suite.contains("testsuite")) continue;
    for (const Json& test : suite["testsuite"]) {
      if (!test.is_object() || test.value("result", "") == "SKIPPED" || test.value("status", "RUN") != "RUN") continue;
      TestResult& r = (*results)[suite.value("name", "") + "." + test.value("name", "")];
      for (const Json& f : test.value("failures", Json::array())) {
        r.failed = true;
        r.messages.push_back(f.value("failure", ""));
      }
    }
  }
  return Status();
}

namespace {

std::string FirstLine(const std::vector<std::string>& messages) {
  if (messages.empty()) return "";
  std::string m = messages.front();
  size_t nl = m.find('\n');
  // gtest puts "file:line" first; the second line is the assertion's own words.
  if (nl != std::string::npos && nl + 1 < m.size()) m = m.substr(nl + 1);
  return m.substr(0, m.find('\n'));
}

}  // namespace

Classification Classify(const std::vector<Expectation>& expect, const std::map<std::string, TestResult>& results) {
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
    if (!matched) problems.push_back(e.test + " failed with \"" + FirstLine(it->second.messages) + "\", not /" + e.message + "/");
  }
  if (problems.empty()) return {MutantOutcome::kRedAsClaimed, ""};
  std::string detail;
  for (const std::string& p : problems) detail += (detail.empty() ? "" : "; ") + p;
  if (!any_failed) return {MutantOutcome::kSurvived, detail};
  for (const auto& [name, r] : results) {
    bool expected = false;
    for (const Expectation& e : expect) expected = expected || e.test == name;
    if (r.failed && !expected) detail += "; " + name + " failed instead: \"" + FirstLine(r.messages) + "\"";
  }
  return {MutantOutcome::kRedOther, detail};
}

}  // namespace pg
