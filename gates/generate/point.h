// A generated mutation point: one operator's replacement of exact bytes in a source file, named
// by a stable id, so reports of two runs over the same source compare mutant by mutant.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "gates/core/status.h"
#include "gates/mutate/schema.h"

namespace pg {

enum class Operator {
  kRelational,
  kEquality,
  kArithmetic,
  kLogical,
  kNegate,
  kNot,
  kConstant,
  kReturn,
  kCall
};

std::string_view OperatorName(Operator op);  // "relational", ...
std::set<Operator> AllOperators();
// A comma list of operator names ("relational,logical"); an unknown name is kInvalidInput
// naming it and the known ones.
StatusOr<std::set<Operator>> ParseOperators(const std::string& list);

// A built-in binary operator's mutation ("<" → relational "<="); none for operators not mutated.
std::optional<std::pair<Operator, std::string>> BinaryMutation(std::string_view op);

// A decimal integer literal's digits and value ("42u" → {"42", 42}): no leading 0 but "0"
// itself, at most 18 digits, only u/l/z suffixes; nullopt for any other token.
std::optional<std::pair<std::string, unsigned long long>> DecimalLiteral(const std::string& token);

// `s` without its whitespace: two bodies compared for what they do, not how they are laid out.
std::string Squeezed(std::string s);

struct Point {
  std::string file;   // relative to the root
  size_t offset = 0;  // byte offset of `original` in the file
  std::string original, replacement;
  Operator op = Operator::kRelational;
  int line = 0, column = 0;  // 1-based, of `offset`
  int function_line = 0;     // first line of the enclosing function (0: none)
  // The span its schema rewrites (specs/mutate-generate.md), and how.
  size_t span_begin = 0, span_end = 0;
  SchemaKind schema = SchemaKind::kEdit;
  // Where the schema's edit differs from the text's (a logical operator: the text replaces its
  // whole expression, grouped; the schema swaps the operator and groups the operands).
  bool schema_operator = false;
  size_t operator_offset = 0;
  std::string operator_original, operator_replacement;
  bool alone = false;  // never in a schema (SchemaPoint::alone)
};

// How `p` is compiled into its file's schema (its number left to the caller).
SchemaPoint SchemaPointOf(const Point& p);

// Fills line and column from the file's text.
void Locate(const std::string& text, Point* p);
// FILE:LINE:COL:OPERATOR:HASH, HASH 8 hex digits of sha256(original NUL replacement).
std::string PointId(const Point& p);
// The lines the original text spans, first and last (1-based).
std::pair<int, int> PointLines(const Point& p);
// A unified diff with no context of the mutated lines: "@@ -L,N +L,M @@" then - and + lines.
std::string PointDiff(const Point& p, const std::string& text);
// The change on one line, for tables: the mutated line before and after ("`if (a < b)` →
// `if (a <= b)`"), or both texts shortened when they span lines.
std::string PointChange(const Point& p, const std::string& text);

}  // namespace pg
