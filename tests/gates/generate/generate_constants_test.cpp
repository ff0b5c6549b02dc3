// Mutation points in constant contexts: constexpr (however it is spelled), const tables,
// template arguments and literals whose schema would narrow, none of which a runtime switch
// can reach.
#include <gtest/gtest.h>

#include "gates/generate/file_points.h"
#include "tests/gates/support/points_of.h"

namespace pg {
namespace {

using testing::PointsOf;
using testing::TempDir;

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
    if (p.line < 7)
      lines.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
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
    if (p.line < 6)
      lines.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
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
    if (p.line < 10)
      lines.push_back(std::to_string(p.line) + ":" + p.original + "→" + p.replacement);
  }
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "8:-→+", "8:4→5", "8:{ return a - 4; }→{ (void)a; return {}; }", "9:*→/", "9:5→6"}))
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
    if (p.op == Operator::kConstant)
      constants.push_back(p.original + (SchemaPointOf(p).alone ? " alone" : ""));
  }
  EXPECT_EQ(constants,
            (std::vector<std::string>{"0 alone", "1 alone", "2", "3", "0", "4", "0 alone"}));
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
)",
                         "-Wall -Wextra -Werror");
  std::vector<int> lines;
  for (const Point& p : points) {
    if (p.op == Operator::kReturn && p.line < 6) lines.push_back(p.line);
  }
  EXPECT_EQ(lines, (std::vector<int>{2, 3, 4, 5}));
}

// Found on martinmoene/optional-lite: `optional_REQUIRES_R(optional &, ...)` spells a member's
// result `typename std::enable_if<C, optional &>::type`, a reference only once the class is
// instantiated, so `return {}` failed in every build of its own. A result that instantiation
// decides is a reference when it names one as a template argument, is a decltype, or is named
// a reference (`add_lvalue_reference`, a container's `::reference`); others keep their point.
// An alias of a reference (`using IntRef = int&`) is one without a template.
TEST(GeneratePoints, NoDefaultReturnWhereInstantiationMakesTheResultAReference) {
  TempDir dir;
  auto points = PointsOf(dir, R"(#include <type_traits>
using IntRef = int&;
template <typename T> struct Opt {
  T v;
  typename std::enable_if<(true), Opt &>::type operator=(const Opt& o) { v = o.v; return *this; }
  std::conditional_t<std::is_const<T>::value, const T&, T&> Pick() { return v; }
  typename std::add_lvalue_reference<T>::type Ref() { return v; }
  template <typename U> auto Deref(U* p) -> decltype(*p) { return *p; }
  template <typename C> typename C::const_reference Front(const C& c) { return c.front(); }
  typename std::enable_if<std::is_integral<T>::value, T>::type Get() const { return v; }
  std::enable_if_t<!std::is_same<T, int&>::value, int> Flag() const { return v > 0; }
  template <typename U> std::conditional_t<sizeof(U) < 2, T, long> Wide(U u) const { return v + u; }
  std::conditional_t<true, std::is_same<int, T&>, int> Same() const { return std::is_same<int, T&>{}; }
  decltype(sizeof(int)) Size() const { return sizeof(T); }
};
IntRef Alias(int& x) { return x; }
int Use() { Opt<int> a{1}, b{2}; a = b; int* p = &a.v; return a.Pick() + a.Ref() + a.Deref(p) + a.Get() + a.Flag() + static_cast<int>(a.Wide('c')); }
)",
                         "-Wall -Wextra -Werror");
  std::vector<int> lines;
  for (const Point& p : points) {
    if (p.op == Operator::kReturn && p.line < 17) lines.push_back(p.line);
  }
  EXPECT_EQ(lines, (std::vector<int>{10, 11, 12, 13, 14}))
      << "Get, Flag, Wide, Same and Size return values";
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
  EXPECT_EQ(constants, (std::vector<std::string>{"4:5", "4:6", "5:0"}))
      << "a table that is not const is data the code changes";
}

// Found on martinmoene/optional-lite: `operator safe_bool() const { return has_value() ?
// &optional::this_type_does_not_support_comparisons : 0; }` in a class template. Once
// instantiated the 0 is a null member pointer, but in the template the conditional has no
// type, so no conversion says so: its mutant 1 failed in every instantiation, a build of its
// own to be unviable. Beside a pointer, an array or an address a 0 arm is left; beside a
// number it is not.
TEST(GeneratePoints, AZeroArmBesideAPointerIsANullPointer) {
  TempDir dir;
  auto points = PointsOf(dir, R"(template <typename T> struct Opt {
  typedef void (Opt::*safe_bool)() const;
  void no() const {}
  bool has;
  operator safe_bool() const { return has ? &Opt::no : 0; }
  const T* Get() const { static const T v[1] = {}; return has ? 0 : v; }
  int Count() const { return has ? 1 : 0; }
};
int Use() { Opt<int> o; o.has = true; return (o ? 2 : 0) + o.Count() + (o.Get() ? 3 : 4); }
template <typename T> struct Sel { typedef int (T::*Get)() const; bool b; Get F() const { return b ? &T::size : 0; } };
)");
  std::vector<std::string> constants;
  for (const Point& p : points) {
    if (p.op == Operator::kConstant) constants.push_back(std::to_string(p.line) + ":" + p.original);
  }
  EXPECT_EQ(constants, (std::vector<std::string>{"7:1", "7:0", "9:2", "9:0", "9:3", "9:4"}))
      << "no 0 on lines 5, 6 and 10";
}

}  // namespace
}  // namespace pg
