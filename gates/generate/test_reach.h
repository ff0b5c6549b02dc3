// Which tests can reach a source file: the ctest tests whose executable's build inputs
// (`ninja -t inputs`, transitive through static libraries) contain it. A test that does not
// run an executable of the build (a script, a Python runner), or any test of a build Ninja
// does not drive, runs for every file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/mutate/test_map.h"

namespace pg {

struct Reach {
  std::map<std::string, std::vector<std::string>> by_file;  // absolute source path → ctest names
  std::vector<std::string> everywhere;                      // ctest names that run for every file
  std::string notice;  // why some tests run everywhere; empty when none do
  std::vector<std::string> For(const std::string& file) const;  // by_file's and everywhere's
};

// Which compiled sources include each header (absolute paths, sources sorted), from the build's
// dependency log (`ninja -t deps`: each object's source first, then every header it read), or
// for a build that is not Ninja's from the compilers' `*.o.d` depfiles under the build
// directory. Empty when the build has not been built or keeps neither.
StatusOr<std::map<std::string, std::vector<std::string>>> Includers(const std::string& build_dir);

StatusOr<Reach> TestsReaching(const std::string& build_dir, const std::vector<CtestTest>& tests,
                              const std::vector<std::string>& files);

}  // namespace pg
