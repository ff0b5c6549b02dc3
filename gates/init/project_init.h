// `proofgate init`: what kind of project a directory holds, and the suites.json (plus an
// example catalog) that runs its build and tests. Never overwrites a file.
#pragma once

#include <string>
#include <vector>

#include "gates/core/status.h"

namespace pg {

struct ProjectShape {
  std::string kind;    // "CMake + GoogleTest (gtest_discover_tests)", "pytest", ...
  std::string suites;  // the preflight/suites.json text, commented
  std::string why;     // why this shape where the first match was passed over; else empty
  std::vector<std::string> notes;  // what init chose for the user (a test option turned on)
};

// What `root` holds, first match wins: CMake, Meson, Cargo, pytest, npm, Make; but a CMake
// tree that registers no test, beside a meson.build that does, is Meson, and beside a Makefile
// with a check or test target is Make (its tests are make's). `kind` ("cmake", "meson",
// "cargo", "pytest", "npm", "make"; "" to detect) chooses outright: kInvalidInput when its files
// are not there (the CLI refuses other kinds). A root that holds none: the first directory holding
// one from `start` (where init was started, "" for none) up to root, else the one directory right
// under root that holds one. kInvalidInput when none is found, or several right under root.
StatusOr<ProjectShape> DetectProject(const std::string& root, const std::string& start = "",
                                     const std::string& kind = "");

struct InitResult {
  ProjectShape shape;
  std::vector<std::string> written;  // relative paths
  std::vector<std::string> notes;    // what the user should know (an unignored build dir)
};

// Writes preflight/suites.json and mutations/example.jsonc at root for the project
// DetectProject finds; kInvalidInput, writing nothing, when preflight/suites.json exists already.
StatusOr<InitResult> InitProject(const std::string& root, const std::string& start = "",
                                 const std::string& kind = "");

}  // namespace pg
