// A libclang string as a std::string, disposed of, and a function's parameters kept in use:
// for generate/'s two files that include libclang (clang_points.cpp, clang_database.cpp).
#pragma once

#include <clang-c/CXString.h>
#include <clang-c/Index.h>

#include <string>
#include <vector>

namespace pg {

inline std::string Str(CXString s) {
  std::string out = clang_getCString(s) ? clang_getCString(s) : "";
  clang_disposeString(s);
  return out;
}

// `(void)p; ` for each named parameter of function `c`: a body replaced by a default return
// still uses them, so the mutant alone builds under -Werror=unused-parameter as its schema
// (which keeps the original body beside it) does. A function template has no arguments to
// libclang (-1): its parameters are its ParmDecl children.
inline std::string UsedParameters(CXCursor c) {
  std::vector<CXCursor> params;
  if (int n = clang_Cursor_getNumArguments(c); n >= 0) {
    for (int i = 0; i < n; ++i) params.push_back(clang_Cursor_getArgument(c, static_cast<unsigned>(i)));
  } else {
    auto add = [](CXCursor child, CXCursor, CXClientData data) {
      if (clang_getCursorKind(child) == CXCursor_ParmDecl) static_cast<std::vector<CXCursor>*>(data)->push_back(child);
      return CXChildVisit_Continue;
    };
    clang_visitChildren(c, add, &params);
  }
  std::string out;
  for (CXCursor p : params) {
    std::string name = Str(clang_getCursorSpelling(p));
    if (!name.empty()) out += "(void)" + name + "; ";
  }
  return out;
}

}  // namespace pg
