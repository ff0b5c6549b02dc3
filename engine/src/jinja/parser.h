// Tokens → nodes, by recursive descent with Jinja's precedence (jinja2/parser.py):
// ternary < or < and < not < comparison/in < + - < ~ < * / // % < ** < unary - < postfix,
// filters and tests.
#pragma once

#include <set>

#include "ast.h"
#include "lexer.h"

namespace vt::jinja {

using Type = Token::Type;

inline std::shared_ptr<Node> Make(Node::Kind kind, const Token& at) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->line = at.line;
  n->col = at.col;
  return n;
}

// Statements here; primaries, postfix operators, filters and tests in parser.cpp.
class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  StatusOr<NodePtr> Program() {
    std::string stop;
    auto body = Body({}, &stop);
    if (!body.ok()) return body.status();
    if (!stop.empty()) return Error("unexpected '" + stop + "'");
    return body;
  }

 private:
  const Token& Peek(size_t ahead = 0) const { return t_[std::min(i_ + ahead, t_.size() - 1)]; }
  const Token& Take() { return t_[std::min(i_++, t_.size() - 1)]; }
  bool IsOp(const char* op, size_t ahead = 0) const { return Peek(ahead).type == Type::kOp && Peek(ahead).text == op; }
  bool IsName(const char* name, size_t ahead = 0) const { return Peek(ahead).type == Type::kName && Peek(ahead).text == name; }
  Status Error(const std::string& what) const { return TemplateError(Peek().line, Peek().col, what); }
  Status Expect(Type type, const char* what) {
    if (Peek().type != type) return Error(std::string("expected ") + what);
    Take();
    return Status();
  }
  Status ExpectOp(const char* op) {
    if (!IsOp(op)) return Error(std::string("expected '") + op + "'");
    Take();
    return Status();
  }

  // Statements until `{% w %}` for a w in `stops` (its name left in *stop, the tag consumed up
  // to the name) or the end of input (*stop empty).
  StatusOr<NodePtr> Body(const std::set<std::string>& stops, std::string* stop) {
    auto block = Make(Node::Kind::kBlock, Peek());
    while (Peek().type != Type::kEnd) {
      if (Peek().type == Type::kText) {
        auto text = Make(Node::Kind::kText, Peek());
        text->text = Take().text;
        block->kids.push_back(text);
      } else if (Peek().type == Type::kOpenExpr) {
        auto out = Make(Node::Kind::kOutput, Take());
        auto e = Expr();
        if (!e.ok()) return e.status();
        out->kids.push_back(e.value());
        VT_RETURN_IF_ERROR(Expect(Type::kCloseExpr, "'}}'"));
        block->kids.push_back(out);
      } else {
        const Token& open = Take();
        if (Peek().type != Type::kName) return Error("expected a statement name");
        if (stops.count(Peek().text)) {
          *stop = Take().text;
          return NodePtr(block);
        }
        auto st = Statement(open);
        if (!st.ok()) return st.status();
        if (st.value()) block->kids.push_back(st.value());
      }
    }
    // The closing tag sorts last among the stop words ("endif" after "elif", "else").
    if (!stops.empty()) return Error("missing {% " + *stops.rbegin() + " %}");
    return NodePtr(block);
  }

  StatusOr<NodePtr> Statement(const Token& open) {
    if (block_depth_ > kMaxDepth) return Error("blocks nested too deeply");
    ++block_depth_;
    auto st = StatementAtDepth(open);
    --block_depth_;
    return st;
  }

  StatusOr<NodePtr> StatementAtDepth(const Token& open) {
    std::string name = Take().text;
    if (name == "if") return If(open);
    if (name == "for") return For(open);
    if (name == "set") return Set(open);
    if (name == "macro") return Macro(open);
    if (name == "break" || name == "continue") {
      VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
      return NodePtr(Make(name == "break" ? Node::Kind::kBreak : Node::Kind::kContinue, open));
    }
    if (name == "generation" || name == "endgeneration") {  // transformers' assistant mask tags
      VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
      return NodePtr();
    }
    return TemplateError(open.line, open.col, "unknown statement '" + name + "'");
  }

  StatusOr<NodePtr> If(const Token& open) {
    auto node = Make(Node::Kind::kIf, open);
    std::string stop = "elif";
    while (stop == "elif") {
      auto cond = Expr();
      if (!cond.ok()) return cond.status();
      VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
      auto body = Body({"elif", "else", "endif"}, &stop);
      if (!body.ok()) return body.status();
      node->kids.push_back(cond.value());
      node->kids.push_back(body.value());
    }
    if (stop == "else") {
      VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
      auto body = Body({"endif"}, &stop);
      if (!body.ok()) return body.status();
      node->kids.push_back(body.value());
    }
    VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
    return NodePtr(node);
  }

  Status Targets(std::vector<std::string>* names) {
    do {
      if (Peek().type != Type::kName) return Error("expected a variable name");
      names->push_back(Take().text);
    } while (IsOp(",") && (Take(), true));
    return Status();
  }

  StatusOr<NodePtr> For(const Token& open) {
    auto node = Make(Node::Kind::kFor, open);
    VT_RETURN_IF_ERROR(Targets(&node->names));
    if (!IsName("in")) return Error("expected 'in'");
    Take();
    auto iter = Or();  // no ternary here: a trailing `if` is the loop filter
    if (!iter.ok()) return iter.status();
    NodePtr filter;
    if (IsName("if")) {
      Take();
      auto f = Or();
      if (!f.ok()) return f.status();
      filter = f.value();
    }
    VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
    std::string stop;
    auto body = Body({"else", "endfor"}, &stop);
    if (!body.ok()) return body.status();
    NodePtr otherwise = Make(Node::Kind::kBlock, open);
    if (stop == "else") {
      VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
      auto e = Body({"endfor"}, &stop);
      if (!e.ok()) return e.status();
      otherwise = e.value();
    }
    VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
    node->kids = {iter.value(), body.value(), otherwise, filter};
    return NodePtr(node);
  }

  StatusOr<NodePtr> Set(const Token& open) {
    auto node = Make(Node::Kind::kSet, open);
    VT_RETURN_IF_ERROR(Targets(&node->names));
    if (node->names.size() == 1 && IsOp(".")) {  // set ns.attr = value
      Take();
      if (Peek().type != Type::kName) return Error("expected an attribute name");
      node->text = Take().text;
    }
    if (Peek().type == Type::kCloseStmt && node->names.size() == 1 && node->text.empty()) {
      Take();
      node->kind = Node::Kind::kSetBlock;
      std::string stop;
      auto body = Body({"endset"}, &stop);
      if (!body.ok()) return body.status();
      node->kids.push_back(body.value());
      VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
      return NodePtr(node);
    }
    VT_RETURN_IF_ERROR(ExpectOp("="));
    auto value = Expr();
    if (!value.ok()) return value.status();
    node->kids.push_back(value.value());
    VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
    return NodePtr(node);
  }

  StatusOr<NodePtr> Macro(const Token& open) {
    auto node = Make(Node::Kind::kMacro, open);
    if (Peek().type != Type::kName) return Error("expected a macro name");
    node->text = Take().text;
    VT_RETURN_IF_ERROR(ExpectOp("("));
    std::vector<NodePtr> defaults;
    while (!IsOp(")")) {
      if (Peek().type != Type::kName) return Error("expected a parameter name");
      node->names.push_back(Take().text);
      NodePtr def;
      if (IsOp("=")) {
        Take();
        auto d = Expr();
        if (!d.ok()) return d.status();
        def = d.value();
      }
      defaults.push_back(def);
      if (!IsOp(")")) VT_RETURN_IF_ERROR(ExpectOp(","));
    }
    Take();
    VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
    std::string stop;
    auto body = Body({"endmacro"}, &stop);
    if (!body.ok()) return body.status();
    VT_RETURN_IF_ERROR(Expect(Type::kCloseStmt, "'%}'"));
    node->kids.push_back(body.value());
    node->kids.insert(node->kids.end(), defaults.begin(), defaults.end());
    return NodePtr(node);
  }

  // ---- expressions ----
  StatusOr<NodePtr> Expr() {
    // Nesting is recursion here: bound it, so hostile input is an error and not a stack overflow.
    if (depth_ > kMaxDepth) return Error("expression nested too deeply");
    ++depth_;
    auto value = ExprAtDepth();
    --depth_;
    return value;
  }

  StatusOr<NodePtr> ExprAtDepth() {
    auto value = Or();
    if (!value.ok() || !IsName("if")) return value;
    auto node = Make(Node::Kind::kTernary, Take());
    auto cond = Or();
    if (!cond.ok()) return cond.status();
    NodePtr otherwise;
    if (IsName("else")) {
      Take();
      auto e = Expr();
      if (!e.ok()) return e.status();
      otherwise = e.value();
    }
    node->kids = {value.value(), cond.value(), otherwise};
    return NodePtr(node);
  }

  StatusOr<NodePtr> Binary(NodePtr left, const Token& op, const std::string& name, StatusOr<NodePtr> right) {
    if (!right.ok()) return right.status();
    auto node = Make(Node::Kind::kBinary, op);
    node->text = name;
    node->kids = {std::move(left), right.value()};
    return NodePtr(node);
  }

  StatusOr<NodePtr> Or() {
    auto left = And();
    while (left.ok() && IsName("or")) {
      const Token& op = Take();  // taken before the right side is parsed
      left = Binary(left.value(), op, "or", And());
    }
    return left;
  }

  StatusOr<NodePtr> And() {
    auto left = Not();
    while (left.ok() && IsName("and")) {
      const Token& op = Take();
      left = Binary(left.value(), op, "and", Not());
    }
    return left;
  }

  StatusOr<NodePtr> Not() {
    if (!IsName("not")) return Compare();
    auto node = Make(Node::Kind::kUnary, Take());
    node->text = "not";
    auto operand = Not();
    if (!operand.ok()) return operand.status();
    node->kids.push_back(operand.value());
    return NodePtr(node);
  }

  StatusOr<NodePtr> Compare() {
    auto left = Math1();
    while (left.ok()) {
      static const std::set<std::string> kOps = {"==", "!=", "<", ">", "<=", ">="};
      if (Peek().type == Type::kOp && kOps.count(Peek().text)) {
        const Token& op = Take();
        left = Binary(left.value(), op, op.text, Math1());
      } else if (IsName("in")) {
        const Token& op = Take();
        left = Binary(left.value(), op, "in", Math1());
      } else if (IsName("not") && IsName("in", 1)) {
        const Token& op = Take();
        Take();
        left = Binary(left.value(), op, "not in", Math1());
      } else {
        break;
      }
    }
    return left;
  }

  StatusOr<NodePtr> Math1() {
    auto left = Concat();
    while (left.ok() && (IsOp("+") || IsOp("-"))) {
      const Token& op = Take();
      left = Binary(left.value(), op, op.text, Concat());
    }
    return left;
  }

  StatusOr<NodePtr> Concat() {
    auto left = Math2();
    while (left.ok() && IsOp("~")) {
      const Token& op = Take();
      left = Binary(left.value(), op, "~", Math2());
    }
    return left;
  }

  StatusOr<NodePtr> Math2() {
    auto left = Pow();
    while (left.ok() && (IsOp("*") || IsOp("/") || IsOp("//") || IsOp("%"))) {
      const Token& op = Take();
      left = Binary(left.value(), op, op.text, Pow());
    }
    return left;
  }

  StatusOr<NodePtr> Pow() {
    auto left = Unary(true);
    while (left.ok() && IsOp("**")) {
      const Token& op = Take();
      left = Binary(left.value(), op, "**", Unary(true));
    }
    return left;
  }

  StatusOr<NodePtr> Unary(bool with_filter) {
    StatusOr<NodePtr> node = NodePtr();
    if (IsOp("-") || IsOp("+")) {
      auto unary = Make(Node::Kind::kUnary, Peek());
      unary->text = Take().text;
      auto operand = Unary(false);
      if (!operand.ok()) return operand.status();
      unary->kids.push_back(operand.value());
      node = NodePtr(unary);
    } else {
      node = Primary();
    }
    if (node.ok()) node = Postfix(node.value());
    if (node.ok() && with_filter) node = FiltersAndTests(node.value());
    return node;
  }

  StatusOr<NodePtr> Primary();
  StatusOr<NodePtr> Parenthesized();
  StatusOr<NodePtr> Items(Node::Kind kind, const char* close);
  StatusOr<NodePtr> Postfix(NodePtr node);
  StatusOr<NodePtr> FiltersAndTests(NodePtr node);
  Status Arguments(Node* call);
  StatusOr<NodePtr> Subscript(NodePtr object, const Token& at);

  static constexpr int kMaxDepth = 200;
  std::vector<Token> t_;
  size_t i_ = 0;
  int depth_ = 0, block_depth_ = 0;
};

}  // namespace vt::jinja
