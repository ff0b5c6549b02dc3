// The only file of ours that includes pugixml.
#include "mutations/ctest_junit.h"

#include <pugixml.hpp>

namespace pg {

Status AddCtestJunit(const std::string& name, const std::string& text, std::map<std::string, TestResult>* results) {
  pugi::xml_document doc;
  if (!doc.load_string(text.c_str()) || !doc.child("testsuite")) return Status::Invalid(name + ": not a ctest JUnit report");
  for (pugi::xml_node test : doc.child("testsuite").children("testcase")) {
    std::string status = test.attribute("status").value();
    if (status == "notrun" || status == "disabled" || status == "skipped") continue;  // skipped: neither red nor green
    // A name gtest's JSON already reported keeps that report (its messages are the failures'
    // own lines, where JUnit has the whole output); JUnit speaks for the plain ctest tests.
    if (results->count(test.attribute("name").value())) continue;
    TestResult& r = (*results)[test.attribute("name").value()];
    if (status == "fail" || test.child("failure")) {
      r.failed = true;
      r.messages.push_back(test.child("system-out").text().get());
    }
  }
  return Status();
}

}  // namespace pg
