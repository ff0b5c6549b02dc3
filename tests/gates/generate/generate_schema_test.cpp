// Schemata: one build holding every mutant of a file behaves, mutant by mutant, as that
// mutant's own build.
#include <gtest/gtest.h>

#include "gates/generate/file_points.h"
#include "gates/generate/point.h"
#include "gates/mutate/commands.h"
#include "gates/mutate/schema.h"
#include "gates/mutate/schema_search.h"
#include "gates/runner/capture.h"
#include "tests/gates/support/test_support.h"

namespace pg {
namespace {

using testing::TempDir;

const char kProgram[] = R"(#include <cstdio>
static int calls = 0;
void Count(int n) { calls += n; }
int F(int a, int b) {
  signed char s = 0;
  for (signed char i = 0; i < a; ++i) s += b % 3;
  if (!(a == b) && a > 1) { Count(1); }
  if (a == 1 && b == 2 && s > 0) Count(8);  // && and || bind differently: each mutant regrouped by its text alone
  if (a > 2 || b > 2 || s == 0) Count(16);
  while (s > 10) s -= 4;
  return a >= b ? s * 2 : s - 1;
}
int main() {
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) std::printf("%d ", F(a, b));
  }
  std::printf("| %d\n", calls);
  return 0;
}
)";

// Builds `source` as dir/name and runs it with PROOFGATE_MUTANT=mutant: its output, "no build",
// or "timeout" (a mutant may loop). kProgram counts in signed chars: a negated loop condition
// wraps in a hundred steps, where an int's 2^31 took about the 2 s limit and was judged
// "timeout" in one build and not in the other.
std::string BuildAndRun(const TempDir& dir, const std::string& name, const std::string& source,
                        int mutant) {
  std::string src = dir.Write(name + ".cpp", source), exe = dir.path() + "/" + name;
  if (mutant <= 1) {
    auto built = RunCapture({"c++", "-std=c++17", "-o", exe, src}, dir.path(), 120);
    if (!built.ok() || built->exit.exit_code != 0) return "no build";
  }
  auto ran = RunCapture(
      {"env", std::string(kMutantVariable) + "=" + std::to_string(mutant), "timeout", "2", exe},
      dir.path(), 30);
  if (!ran.ok()) return "no run";
  return ran->exit.exit_code == 124 ? "timeout"
                                    : ran->output + " exit " + std::to_string(ran->exit.exit_code);
}

TEST(GenerateSchema, EveryMutantOfTheSchemaBehavesAsItsOwnBuild) {
  TempDir dir;
  std::string file = dir.Write("program.cpp", kProgram);
  dir.Write("compile_commands.json", R"([{"directory": ")" + dir.path() +
                                         R"(", "command": "c++ -std=c++17 -c )" + file +
                                         R"(", "file": ")" + file + R"("}])");
  auto parsed = FindPoints(dir.path(), file, AllOperators());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  Schema schema{"program.cpp", false, {}};
  for (size_t i = 0; i < parsed->points.size(); ++i) {
    schema.points.push_back(SchemaPointOf(parsed->points[i]));
    schema.points.back().number = static_cast<int>(i) + 1;
  }
  ASSERT_GE(schema.points.size(), 30u);
  SchemaText rendered = RenderSchema(kProgram, schema, {});
  EXPECT_EQ(rendered.numbers.size(), schema.points.size()) << "every point is in the schema";
  EXPECT_EQ(BuildAndRun(dir, "schema", rendered.text, 0), BuildAndRun(dir, "plain", kProgram, 0))
      << "no mutant on: the original program";
  for (size_t i = 0; i < parsed->points.size(); ++i) {
    const Point& p = parsed->points[i];
    std::string mutated = std::string(kProgram).replace(p.offset, p.original.size(), p.replacement);
    std::string alone = BuildAndRun(dir, "alone", mutated, 0);
    EXPECT_EQ(BuildAndRun(dir, "schema", rendered.text, static_cast<int>(i) + 1), alone)
        << "mutant " << i + 1 << ": `" << p.original << "` → `" << p.replacement << "` at offset "
        << p.offset;
  }
}

// The outer `||` of `a > 0 || b > 0 || c > 0` made `&&` is `(a > 0 || b > 0) && c > 0`, alone
// and in a schema where it is the only point (the inner `||` not wrapped by a point of its own,
// as when --operators or --in-diff leave it out): its operands keep their grouping.
TEST(GenerateSchema, ALogicalMutantChangesOnlyItsOperatorInTheTree) {
  TempDir dir;
  const std::string program =
      "#include <cstdio>\nint G(int a, int b, int c) { return a > 0 || b > 0 || c > 0; }\n"
      "int main() { for (int i = 0; i < 8; ++i) std::printf(\"%d\", G(i & 1, i & 2, i & 4)); }\n";
  std::string file = dir.Write("program.cpp", program);
  dir.Write("compile_commands.json", R"([{"directory": ")" + dir.path() +
                                         R"(", "command": "c++ -std=c++17 -c )" + file +
                                         R"(", "file": ")" + file + R"("}])");
  auto parsed = FindPoints(dir.path(), file, {Operator::kLogical});
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Point* outer = nullptr;
  for (const Point& p : parsed->points)
    outer = p.original == "a > 0 || b > 0 || c > 0" ? &p : outer;
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->replacement, "((a > 0 || b > 0) && c > 0)");
  std::string intended = program;
  intended.replace(intended.find("a > 0 || b > 0 || c > 0"), 23, "(a > 0 || b > 0) && c > 0");
  const std::string want = BuildAndRun(dir, "intended", intended, 0);
  std::string alone = program;
  EXPECT_EQ(
      BuildAndRun(dir, "alone",
                  alone.replace(outer->offset, outer->original.size(), outer->replacement), 0),
      want);
  Schema schema{"program.cpp", false, {SchemaPointOf(*outer)}};
  schema.points[0].number = 1;
  EXPECT_EQ(BuildAndRun(dir, "schema", RenderSchema(program, schema, {}).text, 1), want);
}

TEST(GenerateSchema, CFunctionsReturnZeroOrACompoundLiteralAndTheSchemaIsC) {
  TempDir dir;
  const std::string source =
      "struct P { int x; };\nstruct P Make(int v) { struct P p = {v}; return p; }\n"
      "int Twice(int v) { return v * 2; }\nconst char* Name(void) { return \"n\"; }\nvoid Run(int* "
      "v) { *v = Twice(*v); }\n";
  std::string file = dir.Write("src.c", source);
  dir.Write("compile_commands.json", R"([{"directory": ")" + dir.path() +
                                         R"(", "command": "cc -std=c11 -c )" + file +
                                         R"(", "file": ")" + file + R"("}])");
  auto parsed = FindPoints(dir.path(), file, AllOperators());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  std::vector<std::string> bodies;
  Schema schema{"src.c", true, {}};
  for (const Point& p : parsed->points) {
    if (p.op == Operator::kReturn) bodies.push_back(p.replacement);
    schema.points.push_back(SchemaPointOf(p));
    schema.points.back().number = static_cast<int>(schema.points.size());
    std::string mutated = std::string(source).replace(p.offset, p.original.size(), p.replacement);
    dir.Write("mutant.c", mutated);
    auto built = RunCapture(
        {"cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-c", "mutant.c", "-o", "mutant.o"},
        dir.path(), 60);
    EXPECT_EQ(built->exit.exit_code, 0)
        << "`" << p.original << "` → `" << p.replacement << "`: " << built->output;
  }
  EXPECT_EQ(bodies,
            (std::vector<std::string>{"{ (void)v; return (struct P){0}; }",
                                      "{ (void)v; return 0; }", "{ return 0; }", "{ (void)v; }"}));
  dir.Write("schema.c", RenderSchema(source, schema, {}).text);
  auto built = RunCapture(
      {"cc", "-std=c11", "-Wall", "-Werror", "-c", "schema.c", "-o", "schema.o"}, dir.path(), 60);
  EXPECT_EQ(built->exit.exit_code, 0) << "the schema of a C file is C: " << built->output;
}

TEST(GenerateSchema, TheSchemaOfACFileBuildsAsC89UnderStrictWarnings) {
  // DaveGamble/cJSON's flags: C89 knows no `inline`, and -Wunused-macros finds a guard macro
  // that nothing reads after its definition.
  TempDir dir;
  const std::string source =
      "int Less(int a, int b);\nint Less(int a, int b) { return a < b && b != 0; }\n";
  std::string file = dir.Write("src.c", source);
  dir.Write("compile_commands.json", R"([{"directory": ")" + dir.path() +
                                         R"(", "command": "cc -std=c89 -c )" + file +
                                         R"(", "file": ")" + file + R"("}])");
  auto parsed = FindPoints(dir.path(), file, AllOperators());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  Schema schema{"src.c", true, {}};
  for (const Point& p : parsed->points) {
    schema.points.push_back(SchemaPointOf(p));
    schema.points.back().number = static_cast<int>(schema.points.size());
  }
  ASSERT_GE(schema.points.size(), 3u);
  dir.Write("schema.c", RenderSchema(source, schema, {}).text);
  auto built = RunCapture(
      {"cc", "-std=c89", "-pedantic", "-Wall", "-Wextra", "-Werror", "-Wunused-macros",
       "-Wconversion", "-Wstrict-prototypes", "-Wmissing-prototypes", "-Wundef", "-Wc++-compat",
       "-Wshadow", "-Wdeclaration-after-statement", "-c", "schema.c", "-o", "schema.o"},
      dir.path(), 60);
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(built->exit.exit_code, 0) << built->output;
}

// A point that turns the `op` at `at` (its first occurrence there) into `to`.
SchemaPoint EditAt(int number, const std::string& source, const std::string& at, char to) {
  size_t begin = source.find(at);
  size_t op = begin + at.find_first_of("+-*/");
  return SchemaPoint{number, begin, begin + at.size(), SchemaKind::kEdit,
                     op,     1,     std::string(1, to)};
}

// `cmd` built in `dir`, then run with PROOFGATE_MUTANT=mutant: its output.
std::string RunWith(const TempDir& dir, int mutant) {
  auto ran =
      RunCapture({"env", std::string(kMutantVariable) + "=" + std::to_string(mutant), "./prog"},
                 dir.path(), 30);
  return ran.ok() ? ran->output : "no run";
}

// uriparser's UriMemory.c defines _GNU_SOURCE before its includes; a schema that put
// `#include <stdlib.h>` first fixed glibc's features without it, so its GNU calls became
// implicit declarations (here strchrnul: an error under -Werror, a crash without).
TEST(GenerateSchema, NothingComesBeforeTheFilesOwnFirstLine) {
  TempDir dir;
  const std::string source =
      "#define _GNU_SOURCE\n#include <stdio.h>\n#include <string.h>\n"
      "static long End(const char* s) { return strchrnul(s, 'x') - s; }\n"
      "int main(void) { int n = 2 + 1; printf(\"%d %ld\\n\", n, End(\"abxc\")); return 0; }\n";
  Schema schema{"src/memory.c", true, {EditAt(1, source, "2 + 1", '-')}};
  std::string text = RenderSchema(source, schema, {}).text;
  EXPECT_EQ(text.substr(0, text.find("#line 1\n")).find("#include"), std::string::npos) << text;
  dir.Write("schema.c", text);
  auto built = RunCapture(
      {"cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", "prog", "schema.c"}, dir.path(), 60);
  ASSERT_TRUE(built.ok());
  ASSERT_EQ(built->exit.exit_code, 0) << built->output;
  EXPECT_EQ(RunWith(dir, 0), "3 2\n");
  EXPECT_EQ(RunWith(dir, 1), "1 2\n");
}

// A header's schema included twice (no guard) inside its includer's schema, under warnings a
// late definition could trip: a global `f` beside the switch's locals (-Wshadow), two
// declarations (-Wredundant-decls), a guard nothing reads (-Wunused-macros). One switch.
TEST(GenerateSchema, AHeaderIncludedTwiceAndItsIncluderShareOneSwitch) {
  TempDir dir;
  const std::string header = "1 + 1,\n";
  const std::string source =
      "#include <cstdio>\nint f = 0;\nstatic const int kValues[] = {\n#include \"h.h\"\n#include "
      "\"h.h\"\n};\n"
      "int main() { std::printf(\"%d %d %d\\n\", kValues[0], kValues[1], f + 3 * 2); return 0; }\n";
  dir.Write("h.h",
            RenderSchema(header, Schema{"h.h", false, {EditAt(1, header, "1 + 1", '-')}}, {}).text);
  dir.Write(
      "a.cpp",
      RenderSchema(source, Schema{"a.cpp", false, {EditAt(2, source, "3 * 2", '/')}}, {}).text);
  auto built = RunCapture({"c++", "-std=c++17", "-Wall", "-Wextra", "-Wshadow", "-Wredundant-decls",
                           "-Wunused-macros", "-Wold-style-cast", "-Werror", "-o", "prog", "a.cpp"},
                          dir.path(), 60);
  ASSERT_TRUE(built.ok());
  ASSERT_EQ(built->exit.exit_code, 0) << built->output;
  EXPECT_EQ(RunWith(dir, 0), "2 2 6\n");
  EXPECT_EQ(RunWith(dir, 1), "0 0 6\n");
  EXPECT_EQ(RunWith(dir, 2), "2 2 1\n");
}

// Spans are half-open: a point that begins where the one before it ends is its sibling, not
// inside it, and both are rendered.
TEST(GenerateSchema, PointsThatTouchAreSiblingsAndBothRendered) {
  std::string original = "int v = x[0]+x[1];\n";
  size_t first = original.find("x[0]"), second = original.find("+x[1]");
  Schema schema{"a.cpp", false, {}};
  schema.points = {SchemaPoint{1, first, first + 4, SchemaKind::kEdit, first + 2, 1, "1"},
                   SchemaPoint{2, second, second + 5, SchemaKind::kEdit, second, 1, "-"}};
  SchemaText rendered = RenderSchema(original, schema, {});
  EXPECT_EQ(rendered.numbers, (std::set<int>{1, 2})) << rendered.text;
}

// A point left alone (a constant converted inside braces: GeneratePoints.ALiteralConvertedInside…)
// is not rendered, so it is not among the numbers its build holds: it gets a build of its own.
TEST(GenerateSchema, APointLeftAloneIsNotRenderedAndNotInTheBuild) {
  std::string original = "unsigned long v = x + unsigned long{0};\n";
  size_t plus = original.find('+'), zero = original.find('0');
  Schema schema{"a.cpp", false, {}};
  schema.points = {SchemaPoint{1, plus - 2, original.find(";"), SchemaKind::kEdit, plus, 1, "-"},
                   SchemaPoint{2, zero, zero + 1, SchemaKind::kEdit, zero, 1, "1"}};
  schema.points[1].alone = true;
  SchemaText rendered = RenderSchema(original, schema, {});
  EXPECT_EQ(rendered.numbers, (std::set<int>{1})) << rendered.text;
  EXPECT_NE(rendered.text.find("unsigned long{0}"), std::string::npos) << rendered.text;
}

// A build tree of each generator CMake may have made: which one it is decides the build's flags.
struct BuildTrees {
  BuildTrees() {
    ninja.Write("build.ninja", "");
    make.Write("Makefile", "");
  }
  TempDir ninja, make;
};

// Every file of this repository's gates/ whose schema did not compile cost a rebuild of its
// own (Ninja stops at the first failed file), and five were not enough: the schemata's build
// goes on past a failed file, with the generator's own flag, and a catalog's command is its own.
TEST(GenerateSchema, TheSchemataBuildGoesOnPastAFailedFile) {
  BuildTrees trees;
  Catalog c;
  c.build_targets = {"lib"};
  Placeholders p;
  p.build = trees.ninja.path();
  EXPECT_EQ(KeepGoingBuildArgv(c, p),
            (std::vector<std::string>{"cmake", "--build", trees.ninja.path(), "--target", "lib",
                                      "--", "-k", "0"}));
  p.build = trees.make.path();
  EXPECT_EQ(KeepGoingBuildArgv(c, p),
            (std::vector<std::string>{"cmake", "--build", trees.make.path(), "--target", "lib",
                                      "--", "-k"}));
  c.build_command = {"./build.sh", "{build}"};
  EXPECT_EQ(KeepGoingBuildArgv(c, p), (std::vector<std::string>{"./build.sh", trees.make.path()}));
}

// A halving's probe builds what the whole build before it failed to make, as Ninja names it
// (1.11 and 1.12 write its FAILED lines differently); only CMake's own Ninja build is narrowed.
TEST(GenerateSchema, AProbeBuildsOnlyTheOutputsNinjaSaidFailed) {
  std::string log =
      "[1/3] Building CXX object a.o\nFAILED: CMakeFiles/lib.dir/src/lib.cpp.o \n"
      "src/lib.cpp:3:1: error: x\nFAILED: [code=1] CMakeFiles/t.dir/t.cpp.o\n"
      "  FAILED: not.o\nFAILED: CMakeFiles/lib.dir/src/lib.cpp.o\nninja: build stopped\n";
  std::vector<std::string> outputs = NinjaFailedOutputs(log);
  EXPECT_EQ(outputs, (std::vector<std::string>{"CMakeFiles/lib.dir/src/lib.cpp.o",
                                               "CMakeFiles/t.dir/t.cpp.o"}));
  BuildTrees trees;
  Catalog c;
  c.build_targets = {"lib"};
  Placeholders p;
  p.build = trees.ninja.path();
  EXPECT_EQ(OutputsBuildArgv(c, p, outputs),
            (std::vector<std::string>{"cmake", "--build", trees.ninja.path(), "--target",
                                      outputs[0], outputs[1], "--", "-k", "0"}));
  EXPECT_TRUE(OutputsBuildArgv(c, p, {}).empty()) << "nothing named: the whole build";
  p.build = trees.make.path();
  EXPECT_TRUE(OutputsBuildArgv(c, p, outputs).empty()) << "Make's objects are not its targets";
  p.build = trees.ninja.path();
  c.build_command = {"./build.sh", "{build}"};
  EXPECT_TRUE(OutputsBuildArgv(c, p, outputs).empty())
      << "a catalog's own command is run as written";
}

}  // namespace
}  // namespace pg
