// ctest's own results (`ctest --output-junit FILE`): one entry per ctest test, gtest or not.
#pragma once

#include <map>
#include <string>

#include "core/status.h"
#include "mutations/classify.h"

namespace pg {

// Merges a ctest JUnit report into results by ctest test name; a failed test's message is its
// captured output. A file that is not such a report is kInvalidInput naming it.
Status AddCtestJunit(const std::string& name, const std::string& text, std::map<std::string, TestResult>* results);

}  // namespace pg
