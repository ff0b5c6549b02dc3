// What `proofgate init` writes for each kind of project: the legs, the commands scratch copies
// use, and the commented suites.json text (gates/init/project_init.cpp chooses the kind).
#pragma once

#include <string>
#include <vector>

#include "gates/init/project_init.h"
#include "gates/init/test_executables.h"

namespace pg::init {

// Where a project's build files are: `dir` under the repository's root ("" for the root
// itself; libexpat keeps its CMake and autotools in expat/).
struct Place {
  std::string root, dir;
  std::string Src() const { return dir.empty() ? root : root + "/" + dir; }
  // `base` (".", "{tree}") made to name the project's directory.
  std::string Arg(const std::string& base) const {
    return dir.empty() ? base : base == "." ? dir : base + "/" + dir;
  }
  // A command's words with the directory's option (`make -C DIR`) after its program.
  std::vector<std::string> Cmd(std::vector<std::string> argv,
                               const std::vector<std::string>& option) const {
    if (!dir.empty()) argv.insert(argv.begin() + 1, option.begin(), option.end());
    return argv;
  }
};

struct InitLeg {
  std::string name, comment;
  std::vector<std::string> run;
  std::vector<std::string> needs;
  bool build_dir = false;
  std::string cwd = "";                   // relative to the root; "" for the root
  std::vector<std::string> outputs = {};  // what it makes: a cached pass needs them there
};

bool Has(const std::string& root, const std::string& rel);
// The text of every file named `name` under root (build trees and .git skipped), joined.
std::string AllNamed(const std::string& root, const std::string& name);

// CMake: configure, build, ctest; with `tests` (test executables no ctest test runs, found by
// WithTestExecutables) a test leg per executable instead of ctest.
ProjectShape CMakeShape(const Place& at, const std::vector<TestExecutable>& tests = {});
// A CMake project that registers no ctest test: its test executables, from a configure of its
// own, become the test legs; the shape is kept, noting why, when none is found.
ProjectShape WithTestExecutables(const Place& at, ProjectShape cmake);
ProjectShape PytestShape(const Place& at);
// Cargo and npm: legs only, and a note that mutate and prove need "commands".
ProjectShape SimpleShape(const std::string& root, const std::string& kind,
                         const std::vector<InitLeg>& legs);
ProjectShape MesonShape(const Place& at);
ProjectShape MakeShape(const Place& at, const std::string& target);
// The Makefile target that runs the tests: `check` (autotools' name) before `test`; empty when
// the text defines neither at the start of a line.
std::string MakeTestTarget(const std::string& makefile);

}  // namespace pg::init
