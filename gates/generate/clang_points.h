// Mutation points of one source file, found by libclang in the translation unit its compile
// command builds. With clang_walker.{h,cpp} and clang_database.cpp, the files of ours that
// include libclang.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/generate/point.h"

namespace pg {

struct ParsedFile {
  std::vector<Point> points;  // offsets into `text`; file, line and column left to the caller
  std::string text;           // the file as parsed
  bool includes_test_framework = false;  // gtest, gmock, Catch2 or doctest: a test's own source
  std::string warning;  // libclang's errors, when it had some (its flags are GCC's)
};

// Parses `file` (absolute) with `args` (a compile command as clang_database.h gives it) and
// returns the points of `ops` in it: AST nodes whose source bytes are the operator itself,
// outside constant contexts. With `header` (absolute, a file `file` includes): the points
// written in that header instead. gates/generate/file_points.h parses each configuration.
StatusOr<ParsedFile> PointsWithArgs(const std::vector<std::string>& args, const std::string& file,
                                    const std::set<Operator>& ops, const std::string& header = "");

}  // namespace pg
