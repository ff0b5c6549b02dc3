// A libclang string as a std::string, disposed of, and a function's parameters kept in use:
// for generate/'s two files that include libclang (clang_points.cpp, clang_database.cpp).
#pragma once

#include <clang-c/CXString.h>
#include <clang-c/Index.h>

#include <string>

namespace pg {

inline std::string Str(CXString s) {
  std::string out = clang_getCString(s) ? clang_getCString(s) : "";
  clang_disposeString(s);
  return out;
}

// `(void)p; ` for each named parameter of function `c`: a body replaced by a default return
// still uses them, so the mutant alone builds under -Werror=unused-parameter as its schema
// (which keeps the original body beside it) does.
inline std::string UsedParameters(CXCursor c) {
  std::string out;
  for (int i = 0, n = clang_Cursor_getNumArguments(c); i < n; ++i) {
    std::string name = Str(clang_getCursorSpelling(clang_Cursor_getArgument(c, static_cast<unsigned>(i))));
    if (!name.empty()) out += "(void)" + name + "; ";
  }
  return out;
}

}  // namespace pg
