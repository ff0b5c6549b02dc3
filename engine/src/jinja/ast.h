// The parsed template: one node type for statements and expressions, children by position
// (see the comments on Kind). Shared and immutable once parsed, so a Template copies cheaply.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vt/jinja.h"

namespace vt::jinja {

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  enum class Kind {
    // statements
    kBlock,     // kids: statements
    kText,      // text
    kOutput,    // kids[0]: expression
    kIf,        // kids: cond, body, cond, body, ... [else body]
    kFor,       // names: targets; kids: iterable, body, else body, loop filter (or null)
    kSet,       // names: targets (or {namespace} with text = attribute); kids[0]: value
    kSetBlock,  // names[0]; kids[0]: body
    kMacro,     // text: name; names: parameters; kids: body, then one default (or null) per parameter
    kBreak,
    kContinue,
    // expressions
    kLiteral,  // value
    kName,     // text
    kAttr,     // kids[0]: object; text: attribute
    kIndex,    // kids: object, index
    kSlice,    // kids: object, start, stop, step (null when absent)
    kCall,     // kids: callee, arguments (kKwarg for keyword ones)
    kFilter,   // text: name; kids: operand, arguments
    kTest,     // text: name; negated; kids: operand, arguments
    kUnary,    // text: "-", "+", "not"; kids[0]
    kBinary,   // text: operator; kids: left, right
    kTernary,  // kids: value, condition, else value (or null)
    kList,     // kids: items
    kTuple,    // kids: items
    kDict,     // kids: key, value, key, value, ...
    kKwarg,    // text: name; kids[0]: value
  };
  Kind kind = Kind::kBlock;
  int line = 0, col = 0;
  std::string text;
  Value value;
  std::vector<NodePtr> kids;
  std::vector<std::string> names;
  bool negated = false;
};

// template:LINE:COL: what (the prefix every error of a template carries).
Status TemplateError(int line, int col, const std::string& what);

}  // namespace vt::jinja
