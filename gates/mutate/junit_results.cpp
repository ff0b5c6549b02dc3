// The only file of ours that includes pugixml.
#include "gates/mutate/junit_results.h"

#include <pugixml.hpp>

namespace pg {
namespace {

// CTest marks a test it could not run `notrun` too (no executable, a required file or fixture
// missing), and exits 8: only its SKIP_ properties' notrun is a skip.
bool NotRun(const pugi::xml_node& test) {
  pugi::xml_node skipped = test.child("skipped");
  return std::string(test.attribute("status").value()) == "notrun" && skipped &&
         !std::string(skipped.attribute("message").value()).starts_with("SKIP_");
}

bool Skipped(const pugi::xml_node& test) {
  std::string status = test.attribute("status").value();
  if (NotRun(test)) return false;
  return status == "notrun" || status == "disabled" || status == "skipped" || test.child("skipped");
}

TestResult ResultOf(const pugi::xml_node& test) {
  TestResult r;
  for (const char* kind : {"failure", "error"}) {
    for (pugi::xml_node f : test.children(kind)) {
      r.failed = true;
      std::string message = f.attribute("message").value();
      std::string text = f.text().get();
      if (!message.empty() || !text.empty())
        r.messages.push_back(message + (message.empty() || text.empty() ? "" : "\n") + text);
    }
  }
  if (std::string(test.attribute("status").value()) == "fail" || NotRun(test)) r.failed = true;
  std::string out = test.child("system-out").text().get();
  // "Unable to find executable: /path" is in its output; the skipped message alone says less.
  if (NotRun(test) && out.empty())
    r.messages.push_back(test.child("skipped").attribute("message").value());
  // A failure that says nothing itself (CTest's `<failure message=""/>`) is its output's failure
  // line.
  r.output_only = r.failed && r.messages.empty();
  std::string line = r.output_only ? OutputFailureLine(out) : "";
  if (!line.empty() && line != out && line + "\n" != out) r.messages.push_back(line);
  if (r.failed && !out.empty()) r.messages.push_back(out);
  return r;
}

// Every <testcase> under `node`, however deep the <testsuite>s nest.
void AddCases(const pugi::xml_node& node, std::map<std::string, TestResult>* results) {
  for (pugi::xml_node child : node.children()) {
    std::string tag = child.name();
    if (tag == "testsuite" || tag == "testsuites") AddCases(child, results);
    if (tag != "testcase" || Skipped(child)) continue;
    std::string name = child.attribute("name").value(), cls = child.attribute("classname").value();
    TestResult r = ResultOf(child);
    // A case is listed once, by its whole name: CTest's JUnit gives a test its own name as its
    // class; gtest's and pytest's give the case's short name, kept as an alias that a claim
    // may name but no listing repeats.
    bool whole = cls.empty() || name == cls || name.starts_with(cls + ".");
    std::string full = whole ? name : cls + "." + name;
    for (const std::string& key : {full, whole ? std::string() : name}) {
      r.alias = key != full;
      // gtest's own JSON has the failures' own lines, where JUnit has the whole output.
      if (!key.empty() && !results->count(key)) (*results)[key] = r;
    }
  }
}

}  // namespace

Status AddJunit(const std::string& name, const std::string& text,
                std::map<std::string, TestResult>* results) {
  pugi::xml_document doc;
  if (!doc.load_string(text.c_str()) || !(doc.child("testsuite") || doc.child("testsuites"))) {
    return Status::Invalid(name + ": not a JUnit XML report (no <testsuite> or <testsuites>)");
  }
  AddCases(doc, results);
  return Status();
}

}  // namespace pg
