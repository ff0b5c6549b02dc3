// Test results from JUnit XML: ctest's `--output-junit` (one entry per ctest test, gtest or
// not), and what other runners write — Catch2 `--reporter junit`, doctest `--reporters=junit`,
// pytest `--junitxml`. Names are as the report spells them: the `name` attribute, and also
// `classname.name` when the report gives a class (pytest's module, doctest's file).
#pragma once

#include <map>
#include <string>

#include "gates/core/status.h"
#include "gates/mutate/classify.h"

namespace pg {

// Merges a JUnit report into results; a name gtest's JSON already reported keeps that report.
// A failed case's messages are its failure's message and text, then its captured output. A
// file that is not JUnit XML is kInvalidInput naming it.
Status AddJunit(const std::string& name, const std::string& text,
                std::map<std::string, TestResult>* results);

}  // namespace pg
