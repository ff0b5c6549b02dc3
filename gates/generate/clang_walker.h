// The walk over one translation unit's main file that collects its mutation points: which
// nodes are code and which constants (gates/generate/clang_walker.cpp), and the rewrite each
// operator, literal and call gets (gates/generate/clang_points.cpp). Included by those two only.
#pragma once

#include <clang-c/Index.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gates/generate/clang_text.h"
#include "gates/generate/point.h"

namespace pg::walk {

struct Context {
  unsigned function_begin = 0;  // offset where the enclosing function's declaration starts
  bool in_function = false;
  std::optional<Span> statement;            // the compound statement's child being walked
  CXTypeKind parent_type = CXType_Invalid;  // the type of the node above (an implicit cast's)
  int braced = 0;  // 1: the node above is a braced initializer; 2: a conversion of one's element
};

// Walks one translation unit's main file and collects its points.
class Walker {
 public:
  Walker(CXTranslationUnit tu, CXFile main, const std::string& text, const std::set<Operator>& ops)
      : tu_(tu), main_(main), text_(text), ops_(ops) {}

  std::vector<Point> Run() {
    for (CXCursor c : Children(clang_getTranslationUnitCursor(tu_))) Visit(c, Context{});
    return std::move(points_);
  }

 private:
  // False when `op` is not among those asked for.
  bool Add(Operator op, unsigned offset, std::string original, std::string replacement,
           const Context& ctx, const Span& span, SchemaKind schema) {
    if (!ops_.count(op)) return false;
    Point p;
    p.span_begin = span.begin;
    p.span_end = span.end;
    p.schema = schema;
    p.op = op;
    p.offset = offset;
    p.original = std::move(original);
    p.replacement = std::move(replacement);
    p.function_line = ctx.in_function ? LineOf(ctx.function_begin) : 0;
    points_.push_back(std::move(p));
    return true;
  }

  int LineOf(unsigned offset) const {
    return 1 + static_cast<int>(std::count(
                   text_.begin(), text_.begin() + std::min<size_t>(offset, text_.size()), '\n'));
  }

  std::string Text(const Span& s) const { return text_.substr(s.begin, s.end - s.begin); }
  bool IsWordChar(size_t at) const {
    return at < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at])) || text_[at] == '_');
  }

  struct Token {
    std::string text;
    std::optional<unsigned> at;
  };
  // The tokens of `c`'s extent, at most `limit`, and none from offset `stop` on.
  std::vector<Token> TokensOf(CXCursor c, size_t limit, unsigned stop = ~0u) const {
    CXToken* tokens = nullptr;
    unsigned n = 0;
    clang_tokenize(tu_, Expanded(tu_, clang_getCursorExtent(c)), &tokens, &n);
    std::vector<Token> out;
    for (unsigned i = 0; i < n && out.size() < limit; ++i) {
      auto at = Pos(main_, clang_getTokenLocation(tu_, tokens[i]));
      if (at && *at >= stop) break;
      out.push_back({Str(clang_getTokenSpelling(tu_, tokens[i])), at});
    }
    if (tokens) clang_disposeTokens(tu_, tokens, n);
    return out;
  }

  // A variable template's instantiation (libclang gives it, and the template, as an
  // UnexposedDecl, the instantiation's extent from its specifiers on) declared constexpr or
  // const: its initializer is a constant expression. A block (`extern "C" {`) is no declaration.
  bool ConstantUnexposed(CXCursor c) const {
    for (const Token& t : TokensOf(c, 64)) {
      if (t.text == "=" || t.text == "{") return false;
      if (t.text == "constexpr" || t.text == "constinit" || t.text == "const") return true;
    }
    return false;
  }

  // `constexpr`, `consteval` or `constinit` before the body (a variable's: its initializer),
  // written or made by a macro.
  bool DeclaredConstexpr(CXCursor c, const std::optional<Span>& body) const {
    auto tokens = TokensOf(c, ~size_t{0}, body ? body->begin : ~0u);
    return PrintedConstexpr(c) || std::any_of(tokens.begin(), tokens.end(), [](const Token& t) {
             return t.text == "constexpr" || t.text == "consteval" || t.text == "constinit";
           });
  }

  // A callee that never returns: GNU's attribute is part of its type (`_exit`, `abort`), C++'s
  // [[noreturn]] an attribute of its declaration.
  bool NeverReturns(CXCursor call) const {
    CXCursor f = clang_getCursorReferenced(call);
    if (clang_Cursor_isNull(f)) return false;
    if (Str(clang_getTypeSpelling(clang_getCursorType(f))).find("noreturn") != std::string::npos)
      return true;
    for (CXCursor a : Children(f)) {
      if (clang_getCursorKind(a) != CXCursor_UnexposedAttr) continue;
      for (const Token& t : TokensOf(a, 4))
        if (t.text == "noreturn" || t.text == "__noreturn__") return true;
    }
    return false;
  }

  void Visit(CXCursor c, Context ctx);
  void VisitChildren(CXCursor c, const Context& ctx);
  void Function(CXCursor c, Context ctx);
  void Variable(CXCursor c, const Context& ctx);
  void Conditional(CXCursor c, const Context& ctx);
  void NullArms(CXCursor a, CXCursor b);
  void ForLoop(CXCursor c, const Context& ctx);
  void Negate(CXCursor cond, const Context& ctx, bool ternary);
  void Binary(CXCursor c, const Context& ctx);
  void GuardOperand(CXCursor c, const std::string& op);
  std::string OperatorOf(CXCursor c, unsigned* at, Span* whole) const;
  std::string Grouped(CXCursor operand) const;
  void Unary(CXCursor c, const Context& ctx);
  void Literal(CXCursor c, const Context& ctx);
  void Call(CXCursor c, const Context& ctx);
  void Compound(CXCursor c, Context ctx);

  CXTranslationUnit tu_;
  CXFile main_;
  const std::string& text_;
  const std::set<Operator>& ops_;
  std::vector<Point> points_;
  std::map<unsigned, long long>
      guarded_;                    // GuardOperand's literals: the value their mutant must not reach
  std::set<unsigned> null_zeros_;  // NullArms': 0 arms that a template makes null pointers
};

}  // namespace pg::walk
