// A libclang string as a std::string, disposed of: for generate/'s two files that include
// libclang (clang_points.cpp, clang_database.cpp).
#pragma once

#include <clang-c/CXString.h>

#include <string>

namespace pg {

inline std::string Str(CXString s) {
  std::string out = clang_getCString(s) ? clang_getCString(s) : "";
  clang_disposeString(s);
  return out;
}

}  // namespace pg
