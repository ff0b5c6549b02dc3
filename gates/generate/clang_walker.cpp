#include "gates/generate/clang_walker.h"

#include <filesystem>

#include "gates/generate/source_kind.h"

namespace pg::walk {

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

}  // namespace pg::walk
