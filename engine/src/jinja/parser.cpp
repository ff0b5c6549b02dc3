// Primaries, postfix operators (attributes, subscripts, slices, calls), filters and tests;
// and Template::Parse.
#include "parser.h"

#include <cstdlib>

namespace vt::jinja {

StatusOr<NodePtr> Parser::Primary() {
  const Token& at = Peek();
  auto lit = Make(Node::Kind::kLiteral, at);
  switch (at.type) {
    case Type::kName: {
      std::string n = Take().text;
      if (n == "true" || n == "True" || n == "false" || n == "False") {
        lit->value = Value::Bool(n[0] == 't' || n[0] == 'T');
      } else if (n == "none" || n == "None") {
        lit->value = Value::None();
      } else {
        auto name = Make(Node::Kind::kName, at);
        name->text = n;
        return NodePtr(name);
      }
      return NodePtr(lit);
    }
    case Type::kString: {
      std::string s = Take().text;
      while (Peek().type == Type::kString) s += Take().text;  // "a" "b" is "ab", as in Python
      lit->value = Value::String(s);
      return NodePtr(lit);
    }
    case Type::kInt:
      lit->value = Value::Int(std::strtoll(Take().text.c_str(), nullptr, 10));  // saturates, never throws
      return NodePtr(lit);
    case Type::kFloat:
      lit->value = Value::Float(std::strtod(Take().text.c_str(), nullptr));
      return NodePtr(lit);
    default: break;
  }
  if (IsOp("(")) return Parenthesized();
  if (IsOp("[")) return Items(Node::Kind::kList, "]");
  if (IsOp("{")) return Items(Node::Kind::kDict, "}");
  return Error(at.type == Type::kCloseExpr || at.type == Type::kCloseStmt ? "expected an expression" : "unexpected '" + at.text + "'");
}

StatusOr<NodePtr> Parser::Parenthesized() {
  const Token& open = Take();
  if (IsOp(")")) {
    Take();
    return NodePtr(Make(Node::Kind::kTuple, open));
  }
  auto first = Expr();
  if (!first.ok() || IsOp(")")) {
    if (first.ok()) Take();
    return first;
  }
  auto tuple = Make(Node::Kind::kTuple, open);
  tuple->kids.push_back(first.value());
  while (IsOp(",")) {
    Take();
    if (IsOp(")")) break;
    auto item = Expr();
    if (!item.ok()) return item.status();
    tuple->kids.push_back(item.value());
  }
  VT_RETURN_IF_ERROR(ExpectOp(")"));
  return NodePtr(tuple);
}

// [a, b] or {k: v, ...}: a trailing comma is allowed.
StatusOr<NodePtr> Parser::Items(Node::Kind kind, const char* close) {
  auto node = Make(kind, Take());
  while (!IsOp(close)) {
    auto item = Expr();
    if (!item.ok()) return item.status();
    node->kids.push_back(item.value());
    if (kind == Node::Kind::kDict) {
      VT_RETURN_IF_ERROR(ExpectOp(":"));
      auto value = Expr();
      if (!value.ok()) return value.status();
      node->kids.push_back(value.value());
    }
    if (!IsOp(close)) VT_RETURN_IF_ERROR(ExpectOp(","));
  }
  Take();
  return NodePtr(node);
}

StatusOr<NodePtr> Parser::Postfix(NodePtr node) {
  while (true) {
    if (IsOp(".")) {
      auto attr = Make(Node::Kind::kAttr, Take());
      if (Peek().type != Type::kName && Peek().type != Type::kInt) return Error("expected an attribute name");
      attr->text = Take().text;
      attr->kids.push_back(node);
      node = attr;
    } else if (IsOp("[")) {
      auto sub = Subscript(node, Take());
      if (!sub.ok()) return sub;
      node = sub.value();
    } else if (IsOp("(")) {
      auto call = Make(Node::Kind::kCall, Take());
      call->kids.push_back(node);
      VT_RETURN_IF_ERROR(Arguments(call.get()));
      node = call;
    } else {
      return node;
    }
  }
}

// After '[': an index, or a slice with any of start, stop and step left out.
StatusOr<NodePtr> Parser::Subscript(NodePtr object, const Token& at) {
  NodePtr parts[3];
  int part = 0;
  while (!IsOp("]")) {
    if (IsOp(":")) {
      Take();
      if (++part > 2) return Error("a slice has at most three parts");
      continue;
    }
    auto e = Expr();
    if (!e.ok()) return e.status();
    parts[part] = e.value();
  }
  Take();
  auto node = Make(part == 0 ? Node::Kind::kIndex : Node::Kind::kSlice, at);
  if (part == 0 && !parts[0]) return TemplateError(at.line, at.col, "empty subscript");
  node->kids.push_back(object);
  node->kids.push_back(parts[0]);
  if (part > 0) node->kids.insert(node->kids.end(), {parts[1], parts[2]});
  return NodePtr(node);
}

// After '(': positional and name=value arguments up to ')'.
Status Parser::Arguments(Node* call) {
  while (!IsOp(")")) {
    if (Peek().type == Type::kName && IsOp("=", 1)) {
      auto kw = Make(Node::Kind::kKwarg, Peek());
      kw->text = Take().text;
      Take();
      auto v = Expr();
      if (!v.ok()) return v.status();
      kw->kids.push_back(v.value());
      call->kids.push_back(kw);
    } else {
      auto v = Expr();
      if (!v.ok()) return v.status();
      call->kids.push_back(v.value());
    }
    if (!IsOp(")")) VT_RETURN_IF_ERROR(ExpectOp(","));
  }
  Take();
  return Status();
}

StatusOr<NodePtr> Parser::FiltersAndTests(NodePtr node) {
  while (true) {
    bool filter = IsOp("|");
    if (!filter && !IsName("is")) return node;
    auto next = Make(filter ? Node::Kind::kFilter : Node::Kind::kTest, Take());
    if (!filter && IsName("not")) {
      Take();
      next->negated = true;
    }
    if (Peek().type != Type::kName) return Error(filter ? "expected a filter name" : "expected a test name");
    next->text = Take().text;
    next->kids.push_back(node);
    if (IsOp("(")) {
      Take();
      VT_RETURN_IF_ERROR(Arguments(next.get()));
    } else if (!filter && (Peek().type == Type::kString || Peek().type == Type::kInt || Peek().type == Type::kFloat)) {
      auto arg = Primary();  // `x is divisibleby 3`: one bare argument
      if (!arg.ok()) return arg.status();
      next->kids.push_back(arg.value());
    }
    node = next;
  }
}

StatusOr<Template> Template::Parse(const std::string& source) {
  auto tokens = Lex(source);
  if (!tokens.ok()) return tokens.status();
  auto root = Parser(std::move(tokens).value()).Program();
  if (!root.ok()) return root.status();
  Template t;
  t.root_ = root.value();
  return t;
}

}  // namespace vt::jinja
