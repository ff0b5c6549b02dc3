// The points libclang finds in one source file, for the tests of the point finder
// (gates/generate/).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gates/generate/file_points.h"
#include "tests/gates/support/test_support.h"

namespace pg::testing {

// A one-file compilation database in `dir`, as CMake writes it, and the file's points.
inline std::vector<Point> PointsOf(const TempDir& dir, const std::string& source,
                                   const std::string& flags = "-Wall") {
  std::string file = dir.Write("src.cpp", source);
  dir.Write("compile_commands.json",
            R"([{"directory": ")" + dir.path() + R"(", "command": "/usr/bin/c++ -std=c++20 )" +
                flags + " -o src.o -c " + file + R"(", "file": ")" + file + R"("}])");
  auto parsed = FindPoints(dir.path(), file, AllOperators());
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return {};
  EXPECT_EQ(parsed->warning, "");
  for (Point& p : parsed->points) {
    p.file = "src.cpp";
    Locate(parsed->text, &p);
  }
  return parsed->points;
}

// "LINE:operator:original→replacement", sorted: the whole of what was found, comparable.
inline std::vector<std::string> Described(const std::vector<Point>& points) {
  std::vector<std::string> out;
  for (const Point& p : points) {
    out.push_back(std::to_string(p.line) + ":" + std::string(OperatorName(p.op)) + ":" +
                  p.original + "→" + p.replacement);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pg::testing
