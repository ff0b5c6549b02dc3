// Template source → tokens, with the whitespace rules transformers renders chat templates with
// (trim_blocks, lstrip_blocks, `-` markers, one trailing newline dropped).
#pragma once

#include <string>
#include <vector>

#include "vt/status.h"

namespace vt::jinja {

struct Token {
  enum class Type { kText, kOpenStmt, kCloseStmt, kOpenExpr, kCloseExpr, kName, kString, kInt, kFloat, kOp, kEnd };
  Type type = Type::kEnd;
  std::string text;
  int line = 1, col = 1;
};

StatusOr<std::vector<Token>> Lex(const std::string& source);

}  // namespace vt::jinja
