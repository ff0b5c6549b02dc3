// Mutation points from libclang: what is a point, what each operator writes, and stable ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "generate/file_points.h"
#include "generate/no_mutate.h"
#include "test_support.h"

namespace pg {
namespace {

using testing::TempDir;

// A one-file compilation database in `dir`, as CMake writes it, and the file's points.
std::vector<Point> PointsOf(const TempDir& dir, const std::string& source, const std::string& flags = "-Wall") {
  std::string file = dir.Write("src.cpp", source);
  dir.Write("compile_commands.json", R"([{"directory": ")" + dir.path() +
                                         R"(", "command": "/usr/bin/c++ -std=c++20 )" + flags + " -o src.o -c " + file +
                                         R"(", "file": ")" + file + R"("}])");
  auto parsed = FindPoints(dir.path(), file, AllOperators());
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return {};
  EXPECT_EQ(parsed->warning, "");
  for (Point& p : parsed->points) {
    p.file = "src.cpp";
    Locate(parsed->text, &p);
  }
  return parsed->points;
}

// "LINE:operator:original→replacement", sorted: the whole of what was found, comparable.
std::vector<std::string> Described(const std::vector<Point>& points) {
  std::vector<std::string> out;
  for (const Point& p : points) {
    out.push_back(std::to_string(p.line) + ":" + std::string(OperatorName(p.op)) + ":" + p.original + "→" + p.replacement);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(GeneratePoints, NoPointInCommentsStringsMacrosOrConstantContexts) {
  TempDir dir;
  auto points = PointsOf(dir, R"(#include <array>
#define TWICE(x) ((x) + (x))
#define LESS(a, b) ((a) < (b))
constexpr int kN = 2 + 1;
static_assert(kN > 2, "n");
enum E { kA = 1 << 2, kB = kA + 1 };
const int kC = 7 - 2;
template <int N = 2 + 1> struct T { int f = N * 2; };
constexpr int Twice(int x) { return x * 2; }
int Code(int a, int b) {
  // a < b in a comment, and "a < b" in a string below
  const char* s = "a < b";
  std::array<int, 2 + 1> pad{};
  switch (a) { case 1 + 1: break; default: break; }
  if constexpr (kN > 2) a += TWICE(b);
  bool m = LESS(a, b);
  return a < b && m && s && pad.size() && T<>{}.f;
}
)");
  std::string body = "{\n  // a < b in a comment, and \"a < b\" in a string below\n  const char* s = \"a < b\";\n"
                     "  std::array<int, 2 + 1> pad{};\n  switch (a) { case 1 + 1: break; default: break; }\n"
                     "  if constexpr (kN > 2) a += TWICE(b);\n  bool m = LESS(a, b);\n"
                     "  return a < b && m && s && pad.size() && T<>{}.f;\n}";
  std::vector<std::string> expected = {"10:return:" + body + "→{ (void)a; (void)b; return {}; }", "15:arithmetic:+=→-=",
                                       "17:logical:a < b && m && s && pad.size() && T<>{}.f→((a < b && m && s && pad.size()) || T<>{}.f)",
                                       "17:logical:a < b && m && s && pad.size()→((a < b && m && s) || pad.size())",
                                       "17:logical:a < b && m && s→((a < b && m) || s)", "17:logical:a < b && m→(a < b || m)",
                                       "17:relational:<→<="};
  EXPECT_EQ(Described(points), expected);
}

// A statement macro's `if` and an expression macro's ?: span their invocations in the file:
// negating one would negate the macro call (`!(CHECK(a > 1))`), which is no mutant of its code.
TEST(GeneratePoints, AMacrosIfOrConditionalIsNotNegated) {
  TempDir dir;
  auto points = PointsOf(dir, R"(#define CHECK(x) if (!(x)) return 0
#define PICK(a) ((a) ? 1 : 2)
int F(int a) {
  CHECK(a > 1);
  return PICK(a);
}
)");
  std::vector<std::string> expected = {"3:return:{\n  CHECK(a > 1);\n  return PICK(a);\n}→{ (void)a; return {}; }"};
  EXPECT_EQ(Described(points), expected);
}

TEST(GeneratePoints, EachOperatorRewritesItsOwnBytes) {
  TempDir dir;
  auto points = PointsOf(dir, R"(void Note(int);
int F(int a, int b) {
  if (a <= b) { Note(a); }
  while (!(a == 0)) a = a % 3;
  return a > 1 || b * 2 >= 0 ? a - b : a / b;
}
)");
  std::vector<std::string> expected = {
      "2:return:{\n  if (a <= b) { Note(a); }\n  while (!(a == 0)) a = a % 3;\n"
      "  return a > 1 || b * 2 >= 0 ? a - b : a / b;\n}→{ (void)a; (void)b; return {}; }",
      "3:call:Note(a)→", "3:negate:a <= b→!(a <= b)", "3:relational:<=→<",
      "4:arithmetic:%→/", "4:constant:0→1", "4:constant:3→4", "4:equality:==→!=",
      "4:negate:!(a == 0)→!(!(a == 0))", "4:not:!→",
      "5:arithmetic:*→/", "5:arithmetic:-→+", "5:arithmetic:/→*", "5:constant:0→1", "5:constant:1→0",
      "5:constant:2→3", "5:logical:a > 1 || b * 2 >= 0→(a > 1 && b * 2 >= 0)", "5:negate:a > 1 || b * 2 >= 0→!(a > 1 || b * 2 >= 0)",
      "5:relational:>=→>", "5:relational:>→>="};
  EXPECT_EQ(Described(points), expected);
  std::string text = dir.Read("src.cpp");
  for (const Point& p : points) EXPECT_EQ(text.substr(p.offset, p.original.size()), p.original) << PointId(p);
}

// `file` compiled once per flag set in `defines`, in one compilation database in `dir`.
void CompiledWays(const TempDir& dir, const std::string& file, const std::vector<std::string>& defines) {
  std::string db = "[";
  for (size_t i = 0; i < defines.size(); ++i) {
    db += std::string(i ? "," : "") + R"({"directory": ")" + dir.path() + R"(", "command": "/usr/bin/cc )" + defines[i] +
          " -o way" + std::to_string(i) + ".o -c " + file + R"(", "file": ")" + file + R"("})";
  }
  dir.Write("compile_commands.json", db + "]");
}

// benhoyt/inih builds ini.c 15 ways: each configuration is parsed, so code only one of them
// compiles gets mutants, and a point every parse finds is one mutant.
TEST(GeneratePoints, CodeOnlyOneConfigurationCompilesGetsMutants) {
  TempDir dir;
  std::string file = dir.Write("src.c", "#if FAST\nint Pick(int a) { return a < 3; }\n#else\n"
                                        "int Pick(int a) { return a > 3; }\n#endif\nint Both(int a) { return a == 1; }\n");
  CompiledWays(dir, file, {"-DFAST=0 -Wall", "-DFAST=1 -Wall", "-Wall -DFAST=1"});
  auto parsed = FindPoints(dir.path(), file, {Operator::kRelational, Operator::kEquality});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->warning, "");
  for (Point& p : parsed->points) Locate(parsed->text, &p);
  std::vector<std::string> expected = {"2:relational:<→<=", "4:relational:>→>=", "6:equality:==→!="};
  EXPECT_EQ(Described(parsed->points), expected);
}

// Found on Neargye/magic_enum, whose tests build each file as C++17, 20 and 23: libclang 16
// knows C++23 only as `c++2b`, refused the command (its error 4), and the run stopped. A
// standard is parsed under its older name, and a way that still cannot be parsed is named
// while the others' points are kept.
TEST(GeneratePoints, AStandardLibclangKnowsByAnOlderNameIsParsedAndAnUnparsableWayIsNamed) {
  TempDir dir;
  std::string file = dir.Write("src.cpp", "#if __cplusplus > 202002L\nint Pick(int a) { return a < 3; }\n#endif\n"
                                          "int Both(int a) { return a == 1; }\n");
  CompiledWays(dir, file, {"-std=c++17", "-std=c++23", "-std=c++99"});
  auto parsed = FindPoints(dir.path(), file, {Operator::kRelational, Operator::kEquality});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  for (Point& p : parsed->points) Locate(parsed->text, &p);
  EXPECT_EQ(Described(parsed->points), (std::vector<std::string>{"2:relational:<→<=", "4:equality:==→!="}));
  EXPECT_EQ(parsed->warning, "1 of its 3 configurations not parsed (libclang refused their commands): -std=c++99");
  CompiledWays(dir, file, {"-std=c++99"});
  auto none = FindPoints(dir.path(), file, {Operator::kRelational});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), file + ": libclang could not parse it with its compile command (error 4)");
}

// Past 16 configurations the rest are not parsed, and the run says so; commands that differ in
// no preprocessor flag are one configuration.
TEST(GeneratePoints, ConfigurationsPastSixteenAreNamedNotParsed) {
  TempDir dir;
  std::string file = dir.Write("src.c", "int Pick(int a) { return a < N; }\n");
  std::vector<std::string> defines;
  for (int n = 1; n <= 18; ++n) defines.push_back("-DN=" + std::to_string(n));
  CompiledWays(dir, file, defines);
  auto parsed = FindPoints(dir.path(), file, {Operator::kRelational});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->warning, "compiled 18 ways; the first 16 parsed for mutants, 2 not");
  EXPECT_EQ(parsed->points.size(), 1u);
  CompiledWays(dir, file, std::vector<std::string>(20, "-DN=1 -Wall"));  // one configuration, 20 objects
  auto same = FindPoints(dir.path(), file, {Operator::kRelational});
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same->warning, "");
}

TEST(GeneratePoints, IdsAreStableAcrossRunsAndNameTheirPlace) {
  TempDir dir;
  const std::string source = "int F(int a) {\n  return a < 3 ? 1 : 2;\n}\n";
  auto first = PointsOf(dir, source), second = PointsOf(dir, source);
  ASSERT_EQ(first.size(), second.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(PointId(first[i]), PointId(second[i]));
    ids.insert(PointId(first[i]));
  }
  EXPECT_EQ(ids.size(), first.size()) << "every id is unique";
  EXPECT_TRUE(std::any_of(ids.begin(), ids.end(), [](const std::string& id) {
    return std::regex_match(id, std::regex(R"(src\.cpp:2:12:relational:[0-9a-f]{8})"));
  })) << "FILE:LINE:COL:OPERATOR:HASH";
  auto edited = PointsOf(dir, "int F(int a) {\n  return a <= 3 ? 1 : 2;\n}\n");
  for (const Point& p : edited) {
    if (p.op == Operator::kRelational) {
      EXPECT_EQ(ids.count(PointId(p)), 0u) << "an edited point gets a new id";
    }
  }
}

TEST(GenerateMarkers, ALineOrTheLineBeforeAFunctionKeepsItUnmutated) {
  std::string text = "int A(int v) {\n  return v + 1;  // proofgate: no-mutate\n}\n// proofgate: no-mutate\nint B() {}\n";
  std::set<int> marked = NoMutateLines(text);
  EXPECT_EQ(marked, (std::set<int>{2, 4}));
  Point on_line;
  on_line.line = 2, on_line.original = "+";
  Point elsewhere;
  elsewhere.line = 3, elsewhere.original = "}";
  Point in_marked_function;
  in_marked_function.line = 6, in_marked_function.function_line = 5, in_marked_function.original = "x";
  Point spanning;
  spanning.line = 1, spanning.original = "{\n  return v + 1;\n}";
  EXPECT_TRUE(MarkedNoMutate(on_line, marked));
  EXPECT_FALSE(MarkedNoMutate(elsewhere, marked));
  EXPECT_TRUE(MarkedNoMutate(in_marked_function, marked));
  EXPECT_TRUE(MarkedNoMutate(spanning, marked)) << "a body spanning a marked line";
}

// This repository builds with GCC and -Werror; libclang parses with the same flags and warns
// where GCC did not (-Wmissing-field-initializers on libgit2's GIT_DIFF_FIND_OPTIONS_INIT).
// The parse is no build: the file's points are found and no error is reported.
TEST(GeneratePoints, AWarningOnlyClangGivesIsNoErrorUnderWerror) {
  TempDir dir;
  auto points = PointsOf(dir, R"(struct S { int a, b; };
int F(int x) {
  S s{x};
  return s.a + 1;
}
)", "-Wall -Wextra -Werror");
  std::vector<std::string> found = Described(points);
  ASSERT_EQ(found.size(), 3u) << "F's body, its + and its 1";
  EXPECT_EQ(std::vector<std::string>(found.begin() + 1, found.end()),
            (std::vector<std::string>{"4:arithmetic:+→-", "4:constant:1→0"}));
}

// `return {};` compiles only for a type that has a default constructor: this repository's
// StatusOr<T> has none (a template: its instantiation lists no constructors of its own).
TEST(GeneratePoints, NoReturnMutantForAClassWithoutADefaultConstructor) {
  TempDir dir;
  auto points = PointsOf(dir, R"(template <class T> struct StatusOr {
  StatusOr(T v) : v_(v) {}
  T v_;
};
struct Defaulted { Defaulted() {} Defaulted(int) {} };
struct Plain { int a; };
StatusOr<int> A(int x) { return x; }
Defaulted B() { return Defaulted(2); }
Plain C() { return Plain{2}; }
)");
  std::vector<std::string> lines;
  for (const Point& p : points) {
    if (p.op == Operator::kReturn) lines.push_back(std::to_string(p.line));
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"8", "9"})) << "B's and C's bodies, not A's";
}

// Found on jarro2783/cxxopts: libclang counts no arguments of a function template
// (clang_Cursor_getNumArguments is -1), so `toLocalString(T&& t)`'s default return left `t`
// unused, and its own build failed -Werror=unused-parameter where its schema compiled.
TEST(GeneratePoints, ATemplatesDefaultReturnStillUsesItsParameters) {
  TempDir dir;
  auto points = PointsOf(dir, R"(template <typename T> T Same(T t, int n) { return n > 0 ? t : t; }
struct S { template <typename U> int Size(const U& u) const { return static_cast<int>(sizeof u); } };
template <typename... A> int Count(int n, A&&... args) { return n + static_cast<int>(sizeof...(args)); }
int Use() { return Same(2, 1) + S{}.Size('c') + Count(1, 'a', 2); }
)", "-Wall -Wextra -Werror");
  std::vector<std::string> bodies;
  for (const Point& p : points) {
    if (p.op == Operator::kReturn && p.line < 4) bodies.push_back(p.replacement);
  }
  EXPECT_EQ(bodies, (std::vector<std::string>{"{ (void)t; (void)n; return {}; }", "{ (void)u; return {}; }",
                                              "{ (void)n; (void)sizeof...(args); return {}; }"}))
      << "a pack is used by sizeof...: (void)args does not compile (fmtlib/fmt's variadic bodies)";
}

// Found on uriparser/uriparser: `if ((a == NULL)\n || (b == NULL))` became one line, so a
// mutant built alone moved every later line up (its __LINE__s, its errors' places) and its diff
// showed lines it had not changed. The bytes around the operator, comments too, are kept; and
// an operator with a comment beside it is an operator (`b /* or */ && c` had no mutant).
TEST(GeneratePoints, ALogicalMutantKeepsTheLineBreaksAndCommentsAroundItsOperator) {
  TempDir dir;
  auto points = PointsOf(dir, "bool F(bool a, bool b, bool c) {\n  return a\n      || b /* or */ &&\n      c;\n}\n");
  std::vector<std::string> logical;
  for (const Point& p : points) {
    if (p.op == Operator::kLogical) logical.push_back(p.original + "→" + p.replacement);
  }
  EXPECT_EQ(logical, (std::vector<std::string>{"a\n      || b /* or */ &&\n      c→(a\n      && (b /* or */ &&\n      c))",
                                               "b /* or */ &&\n      c→(b /* or */ ||\n      c)"}));
}

// Found on Neargye/magic_enum: a variable template (`template <class E> inline constexpr auto
// min_v = (count_v<E> > 0) ? ... : U{0};`), which libclang exposes only as an UnexposedDecl,
// had its initializer mutated like code, and its schema (a call of the runtime switch) broke
// every constant expression that used it: 20 of 71 mutants left the schemata. A constexpr
// variable template is a constant context; a mutable one is code.
TEST(GeneratePoints, NoPointInAConstexprVariableTemplate) {
  TempDir dir;
  auto points = PointsOf(dir, R"(template <typename E, typename = void>
inline constexpr int prefix = 0;
template <typename E>
inline constexpr int count_v = sizeof(E) > 2 ? 1 + 2 : 3;
template <typename E> const int kConst = 4 + 1;
template <typename E> int mutable_v = 4 + static_cast<const int>(1);
int Use() { return prefix<int> + count_v<int> + kConst<int> + mutable_v<int>; }
)");
  std::vector<std::string> lines;
  for (const Point& p : points) {
    if (p.line < 7) lines.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"6:+→-", "6:4→5", "6:1→0"}));
}

// Found on fmtlib/fmt: `FMT_INLINE_VARIABLE constexpr struct ... infos[] = {{10, 16}, ...}`
// with the macro defined in another header. The declaration's tokens were read from where the
// macro is spelled (its #define, in another file: none at all), so `constexpr` went unseen
// and its table got mutants its schemata could not compile. A macro defined in the same file
// gave every token from its #define on instead: a `constexpr` between them hid the points of
// a declaration that is no constant.
TEST(GeneratePoints, ADeclarationThatStartsWithAMacroIsReadWhereItIsWritten) {
  TempDir dir;
  dir.Write("inline.h", "#define INLINE_VARIABLE inline\n");
  auto points = PointsOf(dir, R"(#include "inline.h"
INLINE_VARIABLE constexpr struct Info { unsigned d; int s; } infos[] = {{10, 16}, {100, 16}};
#define KEEP static
constexpr int kTwo = 2;
KEEP int counter = kTwo + 7;
int Use(int i) { return infos[i].s * counter; }
)");
  std::vector<std::string> lines;
  for (const Point& p : points) {
    if (p.line < 6) lines.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"5:+→-", "5:7→8"}));
}

// fmtlib/fmt writes `FMT_CONSTEXPR auto f(...)`: the word a constexpr function is known by
// is a macro's, so the function's own words do not say it, and its body's mutants called
// the runtime switch where the compiler evaluates it as a constant. A macro that makes no
// constant (`MY_INLINE`) leaves the function's mutants, and so does a lambda's `if constexpr`
// its variable's: only the words before a declaration's name and initializer are its own.
TEST(GeneratePoints, AFunctionThatAMacroMakesConstexprHasNoPoint) {
  TempDir dir;
  dir.Write("macros.h", "#define MY_CONSTEXPR constexpr\n#define MY_INLINE inline\n");
  auto points = PointsOf(dir, R"(#include "macros.h"
struct U {
  int v;
  friend MY_CONSTEXPR auto operator+(const U& a, const U& b) -> U { return U{a.v + b.v}; }
  MY_CONSTEXPR auto Twice() const -> int { return v * 2; }
};
MY_CONSTEXPR int Three(int a) { return a + 3; }
MY_INLINE int Four(int a) { return a - 4; }
auto pick = [](int x) { if constexpr (sizeof(int) > 8) return x; else return x * 5; };
int Five(int a) { return pick(a); }
)");
  std::vector<std::string> lines;
  for (const Point& p : points) {
    if (p.line < 10) lines.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
  }
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"8:-→+", "8:4→5", "8:{ return a - 4; }→{ (void)a; return {}; }", "9:*→/",
                                             "9:5→6"}))
      << "a lambda's `if constexpr` is not its variable's constexpr";
}

// Found on Neargye/magic_enum: `auto check_value = U{0};` with U unsigned: its constant's
// schema, `U{(on(N) ? 1 : 0)}`, narrows an int that is no longer a constant (an error), and the
// search spent a failed 127-second build to leave it out. A literal converted inside braces is
// left out of the schemata from the start, as is one whose type a template leaves unknown
// (magic_enum's U is `underlying_type_t<D>`); one of its list's own type, or cast, is not.
TEST(GeneratePoints, ALiteralConvertedInsideBracesIsLeftOutOfTheSchemata) {
  TempDir dir;
  auto points = PointsOf(dir, R"(using U = unsigned long;
U Mask(U v) { auto m = U{0}; unsigned n{1}; int a[] = {2, 3}; return v + m + n + static_cast<U>(a[0]) + U(4); }
template <typename T> T Zero() { T z{0}; return z; }
unsigned Use() { return Zero<unsigned>(); }
)");
  std::vector<std::string> constants;
  for (const Point& p : points) {
    if (p.op == Operator::kConstant) constants.push_back(p.original + (SchemaPointOf(p).alone ? " alone" : ""));
  }
  EXPECT_EQ(constants, (std::vector<std::string>{"0 alone", "1 alone", "2", "3", "0", "4", "0 alone"}));
}

// Found on jarro2783/cxxopts: `template <typename T> T toLocalString(T&& t)` called with an
// lvalue makes T `const std::string&`, and `return {};` binds it to a temporary: an error, so
// the mutant left the schemata and was unviable in its own build. A by-value template, a class
// template's `T&&`, also in a member template, and a `const T&&` (no forwarding references)
// still get theirs.
TEST(GeneratePoints, NoDefaultReturnWhereAForwardingReferenceMakesTheResultAReference) {
  TempDir dir;
  auto points = PointsOf(dir, R"(template <typename T> T Pass(T&& t) { return static_cast<T&&>(t); }
template <typename T> T Copy(T t) { return t; }
template <typename T> struct Box { T Take(T&& t) { return t; } };
template <typename T> struct Cast { template <typename U> T Take(T&& t, U u) { return t + T(u); } };
template <typename T> T Keep(const T&& t) { return t; }
int Use() { int a = 1; Box<int> b; return Pass(a) + Copy(2) + b.Take(3) + Cast<int>{}.Take(1, a) + Keep(4); }
)", "-Wall -Wextra -Werror");
  std::vector<int> lines;
  for (const Point& p : points) {
    if (p.op == Operator::kReturn && p.line < 6) lines.push_back(p.line);
  }
  EXPECT_EQ(lines, (std::vector<int>{2, 3, 4, 5}));
}

// Found on zeux/pugixml: `template <> struct wchar_selector<2>` had its 2 made a 3, a template
// argument (a constant context, and another specialization's name).
TEST(GeneratePoints, NoPointInASpecializationsTemplateArguments) {
  TempDir dir;
  auto points = PointsOf(dir, R"(template <int N> struct Sel;
template <> struct Sel<2> { static int Get(int a) { return a + 1; } };
template <int N, int M> struct P {};
template <int M> struct P<3, M> { int F(int a) { return a * 2; } };
template <int N> int G(int a) { return a + N; }
template <> int G<4>(int a) { return a - 1; }
int Use() { return Sel<2>::Get(1) + P<3, 1>{}.F(2) + G<4>(3) + G<5>(1); }
)");
  std::vector<std::string> constants;
  for (const Point& p : points) {
    if (p.op == Operator::kConstant) constants.push_back(std::to_string(p.line) + ":" + p.original);
  }
  EXPECT_EQ(constants, (std::vector<std::string>{"2:1", "4:2", "6:1", "7:1", "7:2", "7:3", "7:1"}));
}

// Found on zeux/pugixml: its `static const unsigned char chartype_table[256]` is a constant
// table of 256 entries, each a constant expression; in the schemata each `(on(N) ? 193 : 192)`
// narrowed to unsigned char and failed, and 673 of its mutants took a build each.
TEST(GeneratePoints, NoPointInAConstTableOfIntegers) {
  TempDir dir;
  auto points = PointsOf(dir, R"(static const unsigned char kTable[2][2] = {{1, 2}, {3, 4}};
enum E { kA, kB };
const E kKinds[] = {kA, kB};
static int counts[2] = {5, 6};
int Look(int i) { return kTable[i][0] + kKinds[i] + counts[i]; }
)");
  std::vector<std::string> constants;
  for (const Point& p : points) {
    if (p.op == Operator::kConstant) constants.push_back(std::to_string(p.line) + ":" + p.original);
  }
  EXPECT_EQ(constants, (std::vector<std::string>{"4:5", "4:6", "5:0"})) << "a table that is not const is data the code changes";
}

// A divisor made 0 and a shift count made the operand's width are errors alone under -Werror
// (-Wdiv-by-zero, -Wshift-count-overflow) and undefined behaviour in a schema: no mutant.
TEST(GeneratePoints, NoConstantMutantThatDividesByZeroOrShiftsPastTheWidth) {
  TempDir dir;
  auto points = PointsOf(dir, R"(int Div(int x) { return x / 1 + x % 1; }
unsigned Shift(unsigned x) { return (x << 31) | (x >> 2); }
int Other(int x) { x /= 1; return x - 1; }
long Wide(long x) { return x << 31; }
int Byte(unsigned char c) { return c << 7; }
)");
  std::vector<std::string> constants;
  for (const Point& p : points) {
    if (p.op == Operator::kConstant) constants.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
  }
  std::sort(constants.begin(), constants.end());
  EXPECT_EQ(constants, (std::vector<std::string>{"2:2→3", "3:1→0", "4:31→32", "5:7→8"})) << "a char is shifted as an int";
}

// Found on zeux/pugixml: `end - begin` made `end + begin` is rejected by the pointers' types
// alone, and each such mutant took a build of its own to be unviable. A pointer plus an
// integer may become a difference; an integer plus a pointer may not.
TEST(GeneratePoints, NoArithmeticMutantThatThePointersTypesReject) {
  TempDir dir;
  auto points = PointsOf(dir, R"(long Diff(const char* a, const char* b) { return b - a; }
const char* Ahead(const char* p, int n) { return p + n; }
const char* Back(const char* p, int n) { return n + p; }
long Into(int i) { static char buf[4]; return &buf[i] - buf; }
int Plain(int a, int b) { return a - b; }
void Step(const char*& p) { p -= 2; }
)");
  std::vector<std::string> arithmetic;
  for (const Point& p : points) {
    if (p.op == Operator::kArithmetic) arithmetic.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
  }
  std::sort(arithmetic.begin(), arithmetic.end());
  EXPECT_EQ(arithmetic, (std::vector<std::string>{"2:+→-", "5:-→+", "6:-=→+="}));
}

// Found on zeux/pugixml: libclang's extent of `name == PUGIXML_TEXT("a")` ends where the
// macro's invocation starts, and the negated condition read `!(name == )PUGIXML_TEXT("a")`.
// A span ends past its last macro's invocation, arguments and all.
TEST(GeneratePoints, ASpanThatEndsInAMacroEndsAfterItsInvocation) {
  TempDir dir;
  const std::string source = R"src(#define ONE(x) x
#define END 3
int Is(int s) { if (s == ONE(')')) return 1; return 0; }
int Less(int a) { return a - END; }
)src";
  std::vector<std::string> spans;
  for (const Point& p : PointsOf(dir, source)) {
    if (p.op == Operator::kReturn) continue;
    spans.push_back(std::string(OperatorName(p.op)) + ":" + source.substr(p.span_begin, p.span_end - p.span_begin) + ":" + p.replacement);
  }
  std::sort(spans.begin(), spans.end());
  EXPECT_EQ(spans, (std::vector<std::string>{"arithmetic:a - END:+", "constant:0:1", "constant:1:0", "equality:s == ONE(')'):!=",
                                             "negate:s == ONE(')'):!(s == ONE(')'))"}));
}

// Found on this repository's gates/: `while (true)` negated and `_exit(0)` removed each broke
// their file's schema ("control reaches end of non-void function").
TEST(GeneratePoints, LiteralConditionsAreNotNegatedNorCallsThatNeverReturnRemoved) {
  TempDir dir;
  auto points = PointsOf(dir, R"(#include <unistd.h>
[[noreturn]] void Die(int);
void Log(int);
int F(int a) {
  while (true) {
    if (a) Die(a);
    Log(a);
    for (; 1;) { Die(a); }
    _exit(0);
  }
}
)");
  std::vector<std::string> lines;
  for (const Point& p : points) {
    if (p.op == Operator::kNegate || p.op == Operator::kCall) lines.push_back(std::to_string(p.line) + ":" + p.original);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"6:a", "7:Log(a)"})) << "not `true`, `1`, Die(a) nor _exit(0)";
}

TEST(GeneratePoints, UnknownOperatorsAreNamed) {
  auto ops = ParseOperators("relational,bogus");
  ASSERT_FALSE(ops.ok());
  EXPECT_NE(ops.status().message().find("\"bogus\""), std::string::npos) << ops.status().message();
  EXPECT_EQ(ParseOperators("logical,not")->size(), 2u);
}

}  // namespace
}  // namespace pg
