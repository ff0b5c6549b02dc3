// libclang's strings as std::string, a function's parameters kept in use, where cursors are
// written, and what operand and result types forbid a mutant: for the files of gates/generate/
// that include libclang (clang_walker.{h,cpp}, clang_points.cpp, clang_database.cpp).
#pragma once

#include <clang-c/CXString.h>
#include <clang-c/Index.h>

#include <cctype>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace pg {

inline std::string Str(CXString s) {
  std::string out = clang_getCString(s) ? clang_getCString(s) : "";
  clang_disposeString(s);
  return out;
}

inline std::vector<CXCursor> Children(CXCursor c) {
  std::vector<CXCursor> out;
  auto add = [](CXCursor child, CXCursor, CXClientData data) {
    static_cast<std::vector<CXCursor>*>(data)->push_back(child);
    return CXChildVisit_Continue;
  };
  clang_visitChildren(c, add, &out);
  return out;
}

// Whether `return {};` makes a `type`: not when its (template's) constructors have no default one.
inline bool DefaultConstructible(CXType type) {
  CXCursor decl = clang_getTypeDeclaration(clang_getCanonicalType(type));
  CXCursor tmpl = clang_getSpecializedCursorTemplate(decl);
  bool any = false, default_one = false;
  for (CXCursor c : Children(clang_Cursor_isNull(tmpl) ? decl : tmpl)) {
    CXCursorKind k = clang_getCursorKind(c);
    any =
        any || k == CXCursor_Constructor ||
        (k == CXCursor_FunctionTemplate && clang_getTemplateCursorKind(c) == CXCursor_Constructor);
    if (k == CXCursor_Constructor && clang_CXXConstructor_isDefaultConstructor(c) &&
        !clang_CXXMethod_isDeleted(c))
      default_one = true;
  }
  return !any || default_one;
}

// Whether a function template's result is its own type parameter that one of its parameters
// takes as a forwarding reference (`template <class T> T f(T&& t)`): an lvalue argument makes
// T, and so the result, a reference, and `return {};` would bind it to a temporary. Only a
// function template has template parameters among its children.
inline bool ForwardedResult(CXCursor c, CXType result) {
  std::string type = Str(clang_getTypeSpelling(clang_getCanonicalType(result)));
  bool own = false, forwarded = false;
  for (CXCursor k : Children(c)) {
    CXType t = clang_getCursorType(k);
    if (clang_getCursorKind(k) == CXCursor_TemplateTypeParameter) {
      own = own || Str(clang_getTypeSpelling(clang_getCanonicalType(t))) == type;
    } else if (clang_getCursorKind(k) == CXCursor_ParmDecl && t.kind == CXType_RValueReference) {
      // `const T&&` is no forwarding reference: its spelling is not the parameter's.
      forwarded =
          forwarded ||
          Str(clang_getTypeSpelling(clang_getCanonicalType(clang_getPointeeType(t)))) == type;
    }
  }
  return own && forwarded;
}

// Whether a result that only instantiation decides can be a reference, so `return {};` may bind
// one to a temporary: a decltype, a type named a reference (`add_lvalue_reference<T>::type`,
// `C::const_reference`), or one whose outer template takes a reference as an argument
// (`enable_if<C, X &>::type`, `conditional_t<C, const T &, T &>`). A reference deeper in
// (`enable_if_t<!is_same<T, int &>::value, int>`) is an argument's own and counts not; a `<`
// that is an operator outside parentheses ends the reading, and the point stays.
inline bool InstantiatedReference(CXType result) {
  if (clang_getCanonicalType(result).kind != CXType_Unexposed) return false;
  std::string spelled = Str(clang_getTypeSpelling(result)), outer, arg;
  bool reference_arg = false;
  auto end_arg = [&] {
    size_t last = arg.find_last_not_of(' ');
    reference_arg = reference_arg || (last != std::string::npos && arg[last] == '&');
    arg.clear();
  };
  int angles = 0, parens = 0;
  for (char c : spelled) {
    if (c == '(') ++parens;
    if (c == ')' && parens > 0) --parens;
    bool bracket = parens == 0 && (c == '<' || c == '>');
    if (bracket && c == '<' && angles++ == 0) continue;  // opens the outer template's arguments
    if (bracket && c == '>' && angles > 0 && --angles == 0) {
      end_arg();
      continue;
    }
    if (angles == 0) {
      outer += c;
    } else if (parens == 0 && angles == 1 && c == ',') {
      end_arg();
    } else {
      arg += c;
    }
  }
  size_t word =
      outer.find_last_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
  std::string last = outer.substr(word == std::string::npos ? 0 : word + 1);
  return reference_arg || outer.find("decltype(") != std::string::npos ||
         last.ends_with("reference") || outer.find("add_lvalue_reference") != std::string::npos ||
         outer.find("add_rvalue_reference") != std::string::npos;
}

// `(void)p; ` for each named parameter of function `c`: a body replaced by a default return
// still uses them, so the mutant alone builds under -Werror=unused-parameter as its schema
// (which keeps the original body beside it) does. A function template has no arguments to
// libclang (-1): its parameters are its ParmDecl children.
inline std::string UsedParameters(CXCursor c) {
  std::vector<CXCursor> params;
  if (int n = clang_Cursor_getNumArguments(c); n >= 0) {
    for (int i = 0; i < n; ++i)
      params.push_back(clang_Cursor_getArgument(c, static_cast<unsigned>(i)));
  } else {
    for (CXCursor child : Children(c)) {
      if (clang_getCursorKind(child) == CXCursor_ParmDecl) params.push_back(child);
    }
  }
  std::string out;
  for (CXCursor p : params) {
    std::string name = Str(clang_getCursorSpelling(p)),
                type = Str(clang_getTypeSpelling(clang_getCursorType(p)));
    bool pack = type.ends_with("...");  // `(void)args` expands no pack: an error
    if (!name.empty()) out += (pack ? "(void)sizeof...(" + name + ")" : "(void)" + name) + "; ";
  }
  return out;
}

// Where the template argument list that opens at `at` (after blanks) ends, one past its `>`;
// `at` itself when none opens there. Brackets inside parentheses (`P<(a > b)>`) are operators.
inline size_t TemplateArgumentsEnd(const std::string& text, size_t at) {
  size_t i = at;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i >= text.size() || text[i] != '<') return at;
  int angles = 0, parens = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++parens;
    if ((c == ')' || c == ']' || c == '}') && parens > 0) --parens;
    if (parens > 0) continue;
    if (c == '<') ++angles;
    if (c == '>' && --angles == 0) return i + 1;
  }
  return at;
}

// Cursors, where they are written, and their extents in the main file.
// The operator between two operands: the one run of bytes in `between` that is neither white
// space nor a comment (`b /* or */ && c`), as [first, last) offsets; none where there are two.
inline std::optional<std::pair<size_t, size_t>> OperatorIn(const std::string& between) {
  auto comment = [&](size_t i) {
    return between.compare(i, 2, "/*") == 0 || between.compare(i, 2, "//") == 0;
  };
  std::optional<std::pair<size_t, size_t>> found;
  for (size_t i = 0; i < between.size();) {
    if (comment(i)) {
      bool block = between[i + 1] == '*';
      size_t end = block ? between.find("*/", i + 2) : between.find('\n', i);
      if (end == std::string::npos) return std::nullopt;
      i = end + (block ? 2 : 1);
    } else if (std::isspace(static_cast<unsigned char>(between[i]))) {
      ++i;
    } else {
      if (found) return std::nullopt;
      size_t j = i;
      while (j < between.size() && !std::isspace(static_cast<unsigned char>(between[j])) &&
             !comment(j))
        ++j;
      found = std::make_pair(i, j);
      i = j;
    }
  }
  return found;
}

struct Span {
  unsigned begin = 0, end = 0;
  bool Within(const Span& o) const { return begin >= o.begin && end <= o.end; }
  bool operator==(const Span& o) const { return begin == o.begin && end == o.end; }
};

// A location's offset when it is written where it expands, not produced by a macro: what a
// point's own token must be (which file it is in, the walker checks with Pos).
inline std::optional<unsigned> Exact(CXSourceLocation loc) {
  CXFile f1 = nullptr, f2 = nullptr;
  unsigned line, col, o1 = 0, o2 = 0;
  clang_getExpansionLocation(loc, &f1, &line, &col, &o1);
  clang_getSpellingLocation(loc, &f2, &line, &col, &o2);
  if (o1 != o2 || !f1 || !f2 || !clang_File_isEqual(f1, f2)) return std::nullopt;
  return o1;
}

// Where a location expands in the mutated file: a macro's tokens all land on its invocation. Spans
// are measured this way, and each point then checks that the bytes it replaces are its own
// (an operator between operands that both expand to one invocation has no bytes there).
inline std::optional<unsigned> Pos(CXFile main, CXSourceLocation loc) {
  CXFile f = nullptr;
  unsigned line, col, offset = 0;
  clang_getExpansionLocation(loc, &f, &line, &col, &offset);
  if (!f || !clang_File_isEqual(f, main)) return std::nullopt;
  return offset;
}

// Where the macro invocation that starts at `at` in `text` ends: past its name, and past the
// `)` that closes its arguments when `(` follows (strings and characters skipped).
inline unsigned InvocationEnd(const std::string& text, unsigned at) {
  size_t i = at;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
    ++i;
  size_t open = text.find_first_not_of(" \t\r\n", i);
  if (open == std::string::npos || text[open] != '(') return static_cast<unsigned>(i);
  int depth = 0;
  for (size_t j = open; j < text.size(); ++j) {
    char c = text[j];
    if (c == '"' || c == '\'') {
      for (++j; j < text.size() && text[j] != c; ++j) j += text[j] == '\\' ? 1 : 0;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return static_cast<unsigned>(j + 1);
    }
  }
  return static_cast<unsigned>(i);
}

// A cursor's bytes in `text`, the main file. libclang ends an extent whose last token is a
// macro's argument (`name == TEXT("a")`, TEXT(t) being `t`) where the invocation starts: such
// a span ends where the invocation does. One that lies in one invocation's arguments is that
// invocation (an operand `TEXT("a")`); two such operands of one invocation overlap, and
// OperatorOf finds no operator between them (`EXPECT_TRUE(a < b)`).
inline std::optional<Span> SpanOf(CXFile main, const std::string& text, CXCursor c) {
  CXSourceRange r = clang_getCursorExtent(c);
  auto b = Pos(main, clang_getRangeStart(r)), e = Pos(main, clang_getRangeEnd(r));
  if (!b || !e || *e < *b) return std::nullopt;
  if (!Exact(clang_getRangeEnd(r))) e = InvocationEnd(text, *e);
  if (*e <= *b) return std::nullopt;
  return Span{*b, *e};
}

// `r` between the places its ends expand to. clang_tokenize reads spelling locations, and a
// declaration that starts with a macro (fmt's `FMT_INLINE_VARIABLE constexpr ...`) starts
// where that macro is defined: in another file no token at all, in the same one every token
// from the #define on.
inline CXSourceRange Expanded(CXTranslationUnit tu, CXSourceRange r) {
  auto at = [tu](CXSourceLocation l) {
    CXFile f = nullptr;
    unsigned offset = 0;
    clang_getExpansionLocation(l, &f, nullptr, nullptr, &offset);
    return f ? clang_getLocationForOffset(tu, f, offset) : l;
  };
  return clang_getRange(at(clang_getRangeStart(r)), at(clang_getRangeEnd(r)));
}

// Whether a declaration is constexpr, consteval or constinit as the compiler reads it, macros
// expanded: fmtlib/fmt writes `FMT_CONSTEXPR auto f(...)`, whose words say nothing. libclang 16
// has no query for it; its terse print of the declaration (no body, no initializer) says it.
inline bool PrintedConstexpr(CXCursor c) {
  CXPrintingPolicy policy = clang_getCursorPrintingPolicy(c);
  clang_PrintingPolicy_setProperty(policy, CXPrintingPolicy_TerseOutput, 1);
  std::string printed = Str(clang_getCursorPrettyPrinted(c, policy));
  clang_PrintingPolicy_dispose(policy);
  std::istringstream words(printed);
  for (std::string w; words >> w;) {
    if (w == "constexpr" || w == "consteval" || w == "constinit") return true;
  }
  return false;
}

// Whether a statement or declaration is written in the file itself, not made by a macro.
inline bool Written(CXCursor c) { return Exact(clang_getCursorLocation(c)).has_value(); }

// `true`, `0`, under implicit conversions and parentheses: a condition that is the code's shape.
inline bool IsLiteral(CXCursor c) {
  CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_CXXBoolLiteralExpr || k == CXCursor_IntegerLiteral) return true;
  std::vector<CXCursor> kids = Children(c);
  return (k == CXCursor_UnexposedExpr || k == CXCursor_ParenExpr) && kids.size() == 1 &&
         IsLiteral(kids[0]);
}

// A pointer, an array (which decays to one) or an address (`&T::f`, whose type a template
// may leave unknown): what a 0 beside it in a `?:` becomes a null pointer of.
inline bool PointerLike(CXCursor c, std::optional<Span> span, const std::string& text) {
  CXTypeKind t = clang_getCursorType(c).kind;
  bool address = span && span->end > span->begin + 1 && text[span->begin] == '&' &&
                 text[span->begin + 1] != '&';
  return address || t == CXType_Pointer || t == CXType_MemberPointer || t == CXType_NullPtr ||
         t == CXType_ConstantArray || t == CXType_IncompleteArray;
}

// What operand types forbid a mutant (specs/mutate-generate.md, operators).

// Whether the language rejects `op`'s arithmetic mutant by its operands' types alone: a
// difference of two pointers made a sum, an integer plus a pointer made a difference.
inline bool PointersReject(CXCursor c, const std::string& op) {
  std::vector<CXCursor> kids = Children(c);
  auto pointer = [](CXCursor k) {
    CXTypeKind t = clang_getCanonicalType(clang_getCursorType(k)).kind;
    return t == CXType_Pointer || t == CXType_ConstantArray || t == CXType_IncompleteArray ||
           t == CXType_VariableArray;
  };
  if (kids.size() != 2) return false;
  return (op == "-" && pointer(kids[0]) && pointer(kids[1])) || (op == "+" && pointer(kids[1]));
}

// The value a right operand's literal must not become: 0 for a divisor (-Wdiv-by-zero), the
// left operand's width in bits for a shift count (-Wshift-count-overflow; a char's is the int
// of the implicit cast around it); none for other operators.
inline std::optional<long long> OperandLimit(CXCursor c, const std::string& op) {
  std::vector<CXCursor> kids = Children(c);
  if (kids.size() != 2) return std::nullopt;
  if (op == "/" || op == "%" || op == "/=" || op == "%=") return 0;
  if (op != "<<" && op != ">>" && op != "<<=" && op != ">>=") return std::nullopt;
  long long bytes = clang_Type_getSizeOf(clang_getCanonicalType(clang_getCursorType(kids[0])));
  if (bytes <= 0) return std::nullopt;
  return bytes * 8;
}

// libclang's errors in a parse, counted, and the first of them: a parse's warning.
inline std::string Errors(CXTranslationUnit tu) {
  unsigned errors = 0;
  std::string first;
  for (unsigned i = 0; i < clang_getNumDiagnostics(tu); ++i) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      if (errors++ == 0)
        first = Str(clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions()));
    }
    clang_disposeDiagnostic(d);
  }
  return errors == 0 ? "" : std::to_string(errors) + " error(s) from libclang, first: " + first;
}

}  // namespace pg
