#include "gates/generate/clang_points.h"

#include <clang-c/Index.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "gates/core/file_io.h"
#include "gates/generate/clang_text.h"
#include "gates/generate/source_kind.h"

namespace pg {
namespace {

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

// Constant contexts (and places with no code) are skipped whole; everything else is walked.
void Walker::Visit(CXCursor c, Context ctx) {
  if (!Pos(main_, clang_getCursorLocation(c)))
    return;  // another file's: a header, or what includes it
  CXCursorKind k = clang_getCursorKind(c);
  if (clang_isAttribute(k)) return;
  Context inner = ctx;  // what this node's children see: it is their parent
  inner.parent_type = clang_getCursorType(c).kind;
  inner.braced = k == CXCursor_InitListExpr ? 1 : k == CXCursor_UnexposedExpr && ctx.braced ? 2 : 0;
  switch (k) {
    case CXCursor_StaticAssert:
    case CXCursor_EnumDecl:
    case CXCursor_EnumConstantDecl:
    case CXCursor_TemplateTypeParameter:
    case CXCursor_NonTypeTemplateParameter:
    case CXCursor_TemplateTemplateParameter:
    case CXCursor_TypeAliasDecl:
    case CXCursor_TypedefDecl:
    case CXCursor_TypeAliasTemplateDecl:
    case CXCursor_CXXBaseSpecifier:
    case CXCursor_FieldDecl:
    case CXCursor_ParmDecl:
    case CXCursor_TypeRef:
    case CXCursor_TemplateRef:
    case CXCursor_UnaryExpr:
    case CXCursor_DeclRefExpr:
    case CXCursor_ConceptDecl:
    case CXCursor_UsingDeclaration:
    case CXCursor_UsingDirective:
    case CXCursor_NamespaceRef:
      return;
    case CXCursor_FunctionDecl:
    case CXCursor_CXXMethod:
    case CXCursor_Constructor:
    case CXCursor_Destructor:
    case CXCursor_ConversionFunction:
    case CXCursor_FunctionTemplate:
      return Function(c, inner);
    case CXCursor_VarDecl:
      return Variable(c, inner);
    case CXCursor_UnexposedDecl:
      if (ConstantUnexposed(c)) return;
      break;
    case CXCursor_IfStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
    case CXCursor_ConditionalOperator:
      return Conditional(c, inner);
    case CXCursor_ForStmt:
      return ForLoop(c, inner);
    case CXCursor_CaseStmt: {
      auto kids = Children(c);  // the label is a constant; the statement after it is code
      for (size_t i = 1; i < kids.size(); ++i) Visit(kids[i], inner);
      return;
    }
    case CXCursor_CompoundStmt:
      return Compound(c, inner);
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
      Binary(c, ctx);
      break;
    case CXCursor_UnaryOperator:
      Unary(c, ctx);
      break;
    case CXCursor_IntegerLiteral:
      Literal(c, ctx);
      break;
    case CXCursor_CallExpr:
      Call(c, ctx);
      break;
    case CXCursor_MemberRefExpr: {
      // Only the object: what follows the member's name are template arguments.
      auto name = Pos(main_, clang_getCursorLocation(c));
      for (CXCursor child : Children(c)) {
        auto s = SpanOf(main_, text_, child);
        if (name && s && s->end <= *name) Visit(child, inner);
      }
      return;
    }
    default:
      break;
  }
  VisitChildren(c, inner);
}

// A template's arguments are constants: the children inside the `<...>` after a TemplateRef
// (`P<3, 1>{}`) or after a class specialization's name (`struct Sel<2>`, which libclang gives
// no TemplateRef) are not walked.
void Walker::VisitChildren(CXCursor c, const Context& ctx) {
  size_t arguments_end = 0;
  CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_StructDecl || k == CXCursor_ClassDecl || k == CXCursor_UnionDecl ||
      k == CXCursor_ClassTemplatePartialSpecialization) {
    auto name = Pos(main_, clang_getCursorLocation(c));
    std::string spelled = Str(clang_getCursorSpelling(c));
    if (name && text_.compare(*name, spelled.size(), spelled) == 0)
      arguments_end = TemplateArgumentsEnd(text_, *name + spelled.size());
  }
  for (CXCursor child : Children(c)) {
    bool ref = clang_getCursorKind(child) == CXCursor_TemplateRef;  // Visit skips it whole
    std::optional<Span> span = ref || arguments_end > 0 ? SpanOf(main_, text_, child)
                                                        : std::nullopt;  // only where it is asked
    if (ref && span) {
      arguments_end = TemplateArgumentsEnd(text_, span->end);
      continue;
    }
    if (span && span->begin < arguments_end) continue;
    Visit(child, ctx);
  }
}

// A function body becomes the default value's return (C has no `{}`: 0, or a compound literal
// for a struct); constexpr functions are constant contexts, constructors and destructors have
// no value to return, references none to make.
void Walker::Function(CXCursor c, Context ctx) {
  std::optional<Span> body;
  for (CXCursor child : Children(c)) {
    if (clang_getCursorKind(child) == CXCursor_CompoundStmt) body = SpanOf(main_, text_, child);
  }
  if (DeclaredConstexpr(c, body)) return;
  auto start = SpanOf(main_, text_, c);
  ctx.in_function = true;
  ctx.function_begin = start ? start->begin : 0;
  CXCursorKind k = clang_getCursorKind(c);
  bool returns = Written(c) && k != CXCursor_Constructor && k != CXCursor_Destructor &&
                 clang_isCursorDefinition(c) && !clang_CXXMethod_isDefaulted(c) &&
                 !clang_CXXMethod_isDeleted(c);
  if (returns && body && text_[body->begin] == '{' && text_[body->end - 1] == '}') {
    CXType result = clang_getResultType(clang_getCursorType(c));
    bool is_void = result.kind == CXType_Void;
    CXTypeKind canonical = clang_getCanonicalType(result).kind;  // an alias of a reference is one
    bool reference = canonical == CXType_LValueReference || canonical == CXType_RValueReference ||
                     ForwardedResult(c, result) || InstantiatedReference(result);
    auto header = TokensOf(c, ~size_t{0}, body->begin);
    auto has = [&](const char* t) {
      return std::any_of(header.begin(), header.end(), [&](const Token& k) { return k.text == t; });
    };
    bool deduced = has("auto") && !has("->");
    std::string now = Squeezed(Text(*body));
    bool c_lang =
        std::filesystem::path(Str(clang_getTranslationUnitSpelling(tu_))).extension() == ".c";
    bool record = clang_getCanonicalType(result).kind == CXType_Record;
    std::string value = !c_lang  ? "{}"
                        : record ? "(" + Str(clang_getTypeSpelling(result)) + "){0}"
                                 : "0";
    std::string bare = is_void ? "{}" : "{ return " + value + "; }", used = UsedParameters(c);
    std::string replacement =
        used.empty() ? bare : "{ " + used + (is_void ? "}" : "return " + value + "; }");
    bool makes = c_lang || is_void || !record || DefaultConstructible(result);
    if (!reference && !deduced && makes && result.kind != CXType_Invalid && now != Squeezed(bare)) {
      Add(Operator::kReturn, body->begin, Text(*body), replacement, ctx, *body,
          is_void ? SchemaKind::kVoidBody : SchemaKind::kBody);
    }
  }
  VisitChildren(c, ctx);
}

// Only a variable's initializer is code: its type (template arguments, array bounds) is not,
// and neither is the initializer of a constexpr variable or of a const integral one, or a
// const array of them (a lookup table: constant expressions, each entry narrowed in a schema).
void Walker::Variable(CXCursor c, const Context& ctx) {
  CXCursor init = clang_Cursor_getVarDeclInitializer(c);
  if (clang_Cursor_isNull(init)) return;
  auto within = SpanOf(main_, text_, init);
  if (!within || DeclaredConstexpr(c, within))
    return;  // the initializer's `if constexpr` is its own
  CXType type = clang_getCursorType(c);
  bool constant = clang_isConstQualifiedType(type);  // an array's const is its canonical type's
  for (CXType e;
       (e = clang_getArrayElementType(clang_getCanonicalType(type))).kind != CXType_Invalid;
       type = e) {
    constant = constant || clang_isConstQualifiedType(clang_getCanonicalType(type));
  }
  CXType canonical = clang_getCanonicalType(type);
  bool integral = canonical.kind >= CXType_Bool && canonical.kind <= CXType_Int128;
  if ((constant || clang_isConstQualifiedType(type)) && (integral || canonical.kind == CXType_Enum))
    return;
  for (CXCursor child : Children(c)) {
    auto s = SpanOf(main_, text_, child);
    if (s && s->Within(*within)) Visit(child, ctx);
  }
}

// if, while, do and ?: — the condition is the first expression child (do: the last), unless a
// declaration comes first (`if (auto* p = f())`: no condition to negate); `if constexpr`'s is
// a constant.
void Walker::Conditional(CXCursor c, const Context& ctx) {
  CXCursorKind k = clang_getCursorKind(c);
  std::vector<CXCursor> kids = Children(c);
  std::optional<size_t> cond;
  bool declared = false;
  for (size_t i = 0; i < kids.size() && !cond && k != CXCursor_DoStmt; ++i) {
    CXCursorKind ck = clang_getCursorKind(kids[i]);
    if (clang_isDeclaration(ck)) declared = true;
    if (clang_isExpression(ck)) cond = i;
  }
  if (k == CXCursor_DoStmt && !kids.empty() && clang_isExpression(clang_getCursorKind(kids.back())))
    cond = kids.size() - 1;
  auto head = TokensOf(c, 2);
  bool constant = k == CXCursor_IfStmt && head.size() == 2 && head[1].text == "constexpr";
  // A macro's `if` (PG_ASSIGN_OR_RETURN's) expands where the invocation starts: no keyword there.
  auto at = Pos(main_, clang_getCursorLocation(c));
  auto word = [&](const std::string& w) {
    return at && text_.compare(*at, w.size(), w) == 0 && !IsWordChar(*at + w.size());
  };
  bool own = k == CXCursor_ConditionalOperator || word("if") || word("while") || word("do");
  if (k == CXCursor_ConditionalOperator && kids.size() == 3) NullArms(kids[1], kids[2]);
  for (size_t i = 0; i < kids.size(); ++i) {
    if (cond && i == *cond && constant) continue;
    if (cond && i == *cond && !declared && own && Written(c))
      Negate(kids[i], ctx, k == CXCursor_ConditionalOperator);
    Visit(kids[i], ctx);
  }
}

// `c ? &T::f : 0` in a template: the 0 becomes a null pointer once instantiated, but the
// template's conditional has no type yet, so no conversion says so (optional-lite's safe_bool).
void Walker::NullArms(CXCursor a, CXCursor b) {
  for (auto [arm, other] : {std::pair{a, b}, std::pair{b, a}}) {
    auto s = SpanOf(main_, text_, arm);
    if (s && Text(*s) == "0" && PointerLike(other, SpanOf(main_, text_, other), text_))
      null_zeros_.insert(s->begin);
  }
}

// A ?: condition only where its own `?` follows it: a macro's ?: spans the whole invocation.
// A literal one is not negated (specs/mutate-generate.md: it breaks the build's flow analysis).
void Walker::Negate(CXCursor cond, const Context& ctx, bool ternary) {
  if (IsLiteral(cond)) return;
  auto s = SpanOf(main_, text_, cond);
  size_t after = s ? text_.find_first_not_of(" \t\r\n", s->end) : std::string::npos;
  if (!s || (ternary && (after == std::string::npos || text_[after] != '?'))) return;
  std::string text = Text(*s);
  Add(Operator::kNegate, s->begin, text, "!(" + text + ")", ctx, *s, SchemaKind::kNegate);
}

// A for loop's condition is what lies between the two semicolons of its header.
void Walker::ForLoop(CXCursor c, const Context& ctx) {
  std::vector<unsigned> semis;
  int depth = 0;
  for (const Token& t : TokensOf(c, ~size_t{0})) {
    depth += t.text == "(" ? 1 : t.text == ")" ? -1 : 0;
    if (t.text == ";" && depth == 1 && t.at && semis.size() < 2) semis.push_back(*t.at);
  }
  for (CXCursor child : Children(c)) {
    auto s = SpanOf(main_, text_, child);
    bool is_cond = semis.size() == 2 && s && s->begin > semis[0] && s->end <= semis[1] &&
                   clang_isExpression(clang_getCursorKind(child));
    if (is_cond && Written(c)) Negate(child, ctx, false);
    Visit(child, ctx);
  }
}

// The operator: the text between the two operands, less white space and comments (a macro's
// operands, whose locations collapse onto its name, leave none: no point). `at`: its offset;
// `whole`: the span.
std::string Walker::OperatorOf(CXCursor c, unsigned* at, Span* whole) const {
  std::vector<CXCursor> kids = Children(c);
  if (kids.size() != 2) return "";
  auto lhs = SpanOf(main_, text_, kids[0]), rhs = SpanOf(main_, text_, kids[1]);
  if (!lhs || !rhs || lhs->end >= rhs->begin) return "";
  std::string between = text_.substr(lhs->end, rhs->begin - lhs->end);
  auto op = OperatorIn(between);
  if (!op) return "";
  if (at) *at = lhs->end + static_cast<unsigned>(op->first);
  if (whole) *whole = Span{lhs->begin, rhs->end};
  return between.substr(op->first, op->second - op->first);
}

// An operand as it must be written beside a swapped logical operator: in parentheses when it
// is itself an unparenthesized `&&` or `||`, so that the text parses to the same tree.
std::string Walker::Grouped(CXCursor operand) const {
  auto s = SpanOf(main_, text_, operand);
  std::string text = s ? Text(*s) : "";
  // An implicit conversion (an unexposed node over the same bytes) hides the operator under it.
  for (std::vector<CXCursor> under = Children(operand);
       clang_getCursorKind(operand) == CXCursor_UnexposedExpr && under.size() == 1 &&
       SpanOf(main_, text_, under[0]) == s;
       under = Children(operand)) {
    operand = under[0];
  }
  const bool logical = clang_getCursorKind(operand) == CXCursor_BinaryOperator &&
                       (OperatorOf(operand, nullptr, nullptr) == "&&" ||
                        OperatorOf(operand, nullptr, nullptr) == "||");
  return logical ? "(" + text + ")" : text;
}

// A divisor's or a shift count's literal, by where its span starts: OperandLimit's value.
void Walker::GuardOperand(CXCursor c, const std::string& op) {
  std::optional<long long> limit = OperandLimit(c, op);  // first: most operators have none
  if (!limit) return;
  std::vector<CXCursor> kids = Children(c);
  if (auto rhs = SpanOf(main_, text_, kids[1])) guarded_[rhs->begin] = *limit;
}

void Walker::Binary(CXCursor c, const Context& ctx) {
  unsigned at = 0;
  Span whole;
  std::string op = OperatorOf(c, &at, &whole);
  GuardOperand(c, op);
  auto m = op.empty() ? std::nullopt : BinaryMutation(op);
  if (!m || PointersReject(c, op)) return;
  if (m->first != Operator::kLogical) {
    Add(m->first, at, op, m->second, ctx, whole, SchemaKind::kEdit);
    return;
  }
  // `&&` binds tighter than `||`: the mutant is its whole expression, grouped
  // (specs/mutate-generate.md). The bytes around the operator stay (line breaks, comments): the
  // mutant's lines are the original's.
  std::vector<CXCursor> kids = Children(c);
  auto lhs = SpanOf(main_, text_, kids[0]), rhs = SpanOf(main_, text_, kids[1]);
  if (!lhs || !rhs) return;
  std::string grouped = "(" + Grouped(kids[0]) + Text({lhs->end, at}) + m->second +
                        Text({at + static_cast<unsigned>(op.size()), rhs->begin}) +
                        Grouped(kids[1]) + ")";
  if (!Add(m->first, whole.begin, Text(whole), grouped, ctx, whole, SchemaKind::kEdit)) return;
  Point& p = points_.back();
  p.schema_operator = true;
  p.operator_offset = at;
  p.operator_original = op;
  p.operator_replacement = m->second;
}

void Walker::Unary(CXCursor c, const Context& ctx) {
  auto s = SpanOf(main_, text_, c);
  if (!s || text_[s->begin] != '!' || s->begin + 1 >= text_.size() || text_[s->begin + 1] == '=')
    return;
  Add(Operator::kNot, s->begin, "!", "", ctx, *s, SchemaKind::kNot);
}

// Decimal integer literals: 0 → 1, 1 → 0, n → n + 1, the suffix kept.
void Walker::Literal(CXCursor c, const Context& ctx) {
  auto s = SpanOf(main_, text_, c);
  auto literal = s ? DecimalLiteral(Text(*s)) : std::nullopt;
  if (!literal) return;
  unsigned long long v = literal->second;
  // A 0 that becomes a pointer is a null pointer constant; 1 would not compile, in a schema or
  // alone.
  CXTypeKind to = ctx.parent_type;
  if (v == 0 && (to == CXType_Pointer || to == CXType_MemberPointer || to == CXType_NullPtr ||
                 null_zeros_.count(s->begin)))
    return;
  unsigned long long next = v == 0 ? 1 : v == 1 ? 0 : v + 1;
  auto guard = guarded_.find(s->begin);
  if (guard != guarded_.end() &&
      (guard->second == 0 ? next == 0 : next >= static_cast<unsigned long long>(guard->second)))
    return;
  if (!Add(Operator::kConstant, s->begin, literal->first, std::to_string(next), ctx, *s,
           SchemaKind::kEdit))
    return;
  // `U{0}` with U unsigned: a schema's `(on(N) ? 1 : 0)` is no constant, and narrows (an error);
  // in a template, whose U is not known yet, the braces' type is void.
  bool converted = ctx.braced == 2 && to != clang_getCursorType(c).kind,
       unknown = ctx.braced == 1 && to == CXType_Void;
  points_.back().alone = converted || unknown;
}

// A statement that is only a call to a void function is removed (its `;` stays), unless the
// function never returns: without it control would fall where the compiler knew it could not.
void Walker::Call(CXCursor c, const Context& ctx) {
  auto s = SpanOf(main_, text_, c);
  if (!s || !ctx.statement || !(*s == *ctx.statement) || !Written(c)) return;
  if (clang_getCursorType(c).kind != CXType_Void || text_[s->end - 1] != ')' || NeverReturns(c))
    return;
  size_t next = text_.find_first_not_of(" \t\r\n", s->end);
  if (next == std::string::npos || text_[next] != ';') return;
  Add(Operator::kCall, s->begin, Text(*s), "", ctx, *s, SchemaKind::kCall);
}

void Walker::Compound(CXCursor c, Context ctx) {
  for (CXCursor child : Children(c)) {
    ctx.statement = SpanOf(main_, text_, child);
    Visit(child, ctx);
  }
}

struct Includes {
  CXFile target;  // the file whose points are wanted: its own includes are what count
  bool framework = false;
};

void NoteInclusion(CXFile included, CXSourceLocation* stack, unsigned depth, CXClientData data) {
  auto* in = static_cast<Includes*>(data);
  CXFile by = nullptr;
  if (depth > 0) clang_getExpansionLocation(stack[0], &by, nullptr, nullptr, nullptr);
  bool direct = by && clang_File_isEqual(by, in->target);
  if (direct && IsTestFramework(Str(clang_getFileName(included)))) in->framework = true;
}

}  // namespace

StatusOr<ParsedFile> PointsWithArgs(const std::vector<std::string>& args, const std::string& file,
                                    const std::set<Operator>& ops, const std::string& header) {
  ParsedFile out;
  PG_ASSIGN_OR_RETURN(out.text, ReadFile(header.empty() ? file : header));
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit tu = nullptr;
  // libclang honours -working-directory by changing the process's own: put it back, or every
  // relative path proofgate writes afterwards (--junit, --sarif) lands in the build directory.
  std::string cwd = std::filesystem::current_path().string();
  CXErrorCode rc = clang_parseTranslationUnit2FullArgv(index, nullptr, argv.data(),
                                                       static_cast<int>(argv.size()), nullptr, 0,
                                                       CXTranslationUnit_KeepGoing, &tu);
  std::error_code ec;
  std::filesystem::current_path(cwd, ec);
  if (rc != CXError_Success || !tu) {
    clang_disposeIndex(index);
    return Status::Invalid(file + ": libclang could not parse it with its compile command (error " +
                           std::to_string(static_cast<int>(rc)) + ")");
  }
  out.warning = Errors(tu);
  CXFile main = clang_getFile(
      tu, header.empty() ? Str(clang_getTranslationUnitSpelling(tu)).c_str() : header.c_str());
  Includes includes{main};
  if (main) clang_getInclusions(tu, NoteInclusion, &includes);
  out.includes_test_framework = includes.framework;
  if (main) out.points = Walker(tu, main, out.text, ops).Run();
  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  return out;
}

}  // namespace pg
