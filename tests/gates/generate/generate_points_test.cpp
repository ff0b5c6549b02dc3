// Mutation points from libclang: what is a point, what each operator writes, and stable ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "gates/generate/file_points.h"
#include "gates/generate/no_mutate.h"
#include "tests/gates/support/points_of.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::Described;
using testing::PointsOf;
using testing::TempDir;

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
  std::string body =
      "{\n  // a < b in a comment, and \"a < b\" in a string below\n  const char* s = \"a < b\";\n"
      "  std::array<int, 2 + 1> pad{};\n  switch (a) { case 1 + 1: break; default: break; }\n"
      "  if constexpr (kN > 2) a += TWICE(b);\n  bool m = LESS(a, b);\n"
      "  return a < b && m && s && pad.size() && T<>{}.f;\n}";
  std::vector<std::string> expected = {
      "10:return:" + body + "→{ (void)a; (void)b; return {}; }",
      "15:arithmetic:+=→-=",
      "17:logical:a < b && m && s && pad.size() && T<>{}.f→((a < b && m && s && pad.size()) || "
      "T<>{}.f)",
      "17:logical:a < b && m && s && pad.size()→((a < b && m && s) || pad.size())",
      "17:logical:a < b && m && s→((a < b && m) || s)",
      "17:logical:a < b && m→(a < b || m)",
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
  std::vector<std::string> expected = {
      "3:return:{\n  CHECK(a > 1);\n  return PICK(a);\n}→{ (void)a; return {}; }"};
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
      "3:call:Note(a)→",
      "3:negate:a <= b→!(a <= b)",
      "3:relational:<=→<",
      "4:arithmetic:%→/",
      "4:constant:0→1",
      "4:constant:3→4",
      "4:equality:==→!=",
      "4:negate:!(a == 0)→!(!(a == 0))",
      "4:not:!→",
      "5:arithmetic:*→/",
      "5:arithmetic:-→+",
      "5:arithmetic:/→*",
      "5:constant:0→1",
      "5:constant:1→0",
      "5:constant:2→3",
      "5:logical:a > 1 || b * 2 >= 0→(a > 1 && b * 2 >= 0)",
      "5:negate:a > 1 || b * 2 >= 0→!(a > 1 || b * 2 >= 0)",
      "5:relational:>=→>",
      "5:relational:>→>="};
  EXPECT_EQ(Described(points), expected);
  std::string text = dir.Read("src.cpp");
  for (const Point& p : points)
    EXPECT_EQ(text.substr(p.offset, p.original.size()), p.original) << PointId(p);
}

// `file` compiled once per flag set in `defines`, in one compilation database in `dir`.
void CompiledWays(const TempDir& dir, const std::string& file,
                  const std::vector<std::string>& defines) {
  std::string db = "[";
  for (size_t i = 0; i < defines.size(); ++i) {
    db += std::string(i ? "," : "") + R"({"directory": ")" + dir.path() +
          R"(", "command": "/usr/bin/cc )" + defines[i] + " -o way" + std::to_string(i) + ".o -c " +
          file + R"(", "file": ")" + file + R"("})";
  }
  dir.Write("compile_commands.json", db + "]");
}

// benhoyt/inih builds ini.c 15 ways: each configuration is parsed, so code only one of them
// compiles gets mutants, and a point every parse finds is one mutant.
TEST(GeneratePoints, CodeOnlyOneConfigurationCompilesGetsMutants) {
  TempDir dir;
  std::string file =
      dir.Write("src.c",
                "#if FAST\nint Pick(int a) { return a < 3; }\n#else\n"
                "int Pick(int a) { return a > 3; }\n#endif\nint Both(int a) { return a == 1; }\n");
  CompiledWays(dir, file, {"-DFAST=0 -Wall", "-DFAST=1 -Wall", "-Wall -DFAST=1"});
  auto parsed = FindPoints(dir.path(), file, {Operator::kRelational, Operator::kEquality});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->warning, "");
  for (Point& p : parsed->points) Locate(parsed->text, &p);
  std::vector<std::string> expected = {
      "2:relational:<→<=", "4:relational:>→>=", "6:equality:==→!="};
  EXPECT_EQ(Described(parsed->points), expected);
}

// Found on Neargye/magic_enum, whose tests build each file as C++17, 20 and 23: libclang 16
// knows C++23 only as `c++2b`, refused the command (its error 4), and the run stopped. A
// standard is parsed under its older name, and a way that still cannot be parsed is named
// while the others' points are kept.
TEST(GeneratePoints, AStandardLibclangKnowsByAnOlderNameIsParsedAndAnUnparsableWayIsNamed) {
  TempDir dir;
  std::string file =
      dir.Write("src.cpp",
                "#if __cplusplus > 202002L\nint Pick(int a) { return a < 3; }\n#endif\n"
                "int Both(int a) { return a == 1; }\n");
  CompiledWays(dir, file, {"-std=c++17", "-std=c++23", "-std=c++99"});
  auto parsed = FindPoints(dir.path(), file, {Operator::kRelational, Operator::kEquality});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  for (Point& p : parsed->points) Locate(parsed->text, &p);
  EXPECT_EQ(Described(parsed->points),
            (std::vector<std::string>{"2:relational:<→<=", "4:equality:==→!="}));
  EXPECT_EQ(parsed->warning,
            "1 of its 3 configurations not parsed (libclang refused their commands): -std=c++99");
  CompiledWays(dir, file, {"-std=c++99"});
  auto none = FindPoints(dir.path(), file, {Operator::kRelational});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            file + ": libclang could not parse it with its compile command (error 4)");
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
  CompiledWays(dir, file,
               std::vector<std::string>(20, "-DN=1 -Wall"));  // one configuration, 20 objects
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
  std::string text =
      "int A(int v) {\n  return v + 1;  // proofgate: no-mutate\n}\n// proofgate: no-mutate\nint "
      "B() {}\n";
  std::set<int> marked = NoMutateLines(text);
  EXPECT_EQ(marked, (std::set<int>{2, 4}));
  Point on_line;
  on_line.line = 2, on_line.original = "+";
  Point elsewhere;
  elsewhere.line = 3, elsewhere.original = "}";
  Point in_marked_function;
  in_marked_function.line = 6, in_marked_function.function_line = 5,
  in_marked_function.original = "x";
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
)",
                         "-Wall -Wextra -Werror");
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
)",
                         "-Wall -Wextra -Werror");
  std::vector<std::string> bodies;
  for (const Point& p : points) {
    if (p.op == Operator::kReturn && p.line < 4) bodies.push_back(p.replacement);
  }
  EXPECT_EQ(bodies,
            (std::vector<std::string>{"{ (void)t; (void)n; return {}; }", "{ (void)u; return {}; }",
                                      "{ (void)n; (void)sizeof...(args); return {}; }"}))
      << "a pack is used by sizeof...: (void)args does not compile (fmtlib/fmt's variadic bodies)";
}

// Found on uriparser/uriparser: `if ((a == NULL)\n || (b == NULL))` became one line, so a
// mutant built alone moved every later line up (its __LINE__s, its errors' places) and its diff
// showed lines it had not changed. The bytes around the operator, comments too, are kept; and
// an operator with a comment beside it is an operator (`b /* or */ && c` had no mutant).
TEST(GeneratePoints, ALogicalMutantKeepsTheLineBreaksAndCommentsAroundItsOperator) {
  TempDir dir;
  auto points = PointsOf(
      dir, "bool F(bool a, bool b, bool c) {\n  return a\n      || b /* or */ &&\n      c;\n}\n");
  std::vector<std::string> logical;
  for (const Point& p : points) {
    if (p.op == Operator::kLogical) logical.push_back(p.original + "→" + p.replacement);
  }
  EXPECT_EQ(logical,
            (std::vector<std::string>{
                "a\n      || b /* or */ &&\n      c→(a\n      && (b /* or */ &&\n      c))",
                "b /* or */ &&\n      c→(b /* or */ ||\n      c)"}));
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
    if (p.op == Operator::kConstant)
      constants.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
  }
  std::sort(constants.begin(), constants.end());
  EXPECT_EQ(constants, (std::vector<std::string>{"2:2→3", "3:1→0", "4:31→32", "5:7→8"}))
      << "a char is shifted as an int";
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
    if (p.op == Operator::kArithmetic)
      arithmetic.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
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
    spans.push_back(std::string(OperatorName(p.op)) + ":" +
                    source.substr(p.span_begin, p.span_end - p.span_begin) + ":" + p.replacement);
  }
  std::sort(spans.begin(), spans.end());
  EXPECT_EQ(spans, (std::vector<std::string>{
                       "arithmetic:a - END:+", "constant:0:1", "constant:1:0",
                       "equality:s == ONE(')'):!=", "negate:s == ONE(')'):!(s == ONE(')'))"}));
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
    if (p.op == Operator::kNegate || p.op == Operator::kCall)
      lines.push_back(std::to_string(p.line) + ":" + p.original);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"6:a", "7:Log(a)"}))
      << "not `true`, `1`, Die(a) nor _exit(0)";
}

TEST(GeneratePoints, UnknownOperatorsAreNamed) {
  auto ops = ParseOperators("relational,bogus");
  ASSERT_FALSE(ops.ok());
  EXPECT_NE(ops.status().message().find("\"bogus\""), std::string::npos) << ops.status().message();
  EXPECT_EQ(ParseOperators("logical,not")->size(), 2u);
}

}  // namespace
}  // namespace pg
