// A schemata build's compile error blamed on the points around it (gates/mutate/schema_search.h):
// the innermost point at the error's line and column, as GCC and clang write them.
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

// D's body (point 1) around its `b - a` made `b + a` (point 2), after `first` as line 1.
Schema SchemaOfD(const std::string& first, std::string* original) {
  *original = first + "\nlong D(const int* a,\n const int* b) {\n  return b - a;\n}\n";
  size_t body = original->find('{'), diff = original->find("b - a");
  Schema schema{"a.cpp", false, {}};
  schema.points = {SchemaPoint{1, body, original->rfind('}') + 1, SchemaKind::kBody, body, 0, ""},
                   SchemaPoint{2, diff, diff + 5, SchemaKind::kEdit, diff + 2, 1, "+"}};
  return schema;
}

TEST(GenerateSchema, ACompileErrorIsBlamedOnTheInnermostPointAroundItsLine) {
  std::string original;
  Schema schema = SchemaOfD("#include <cstddef>", &original);
  SchemaText rendered = RenderSchema(original, schema, {});
  std::string log =
      "/tmp/x/a.cpp:4:29: error: invalid operands of types 'const int*' and 'const int*' to binary "
      "'operator+'\n";
  EXPECT_EQ(PointsBlamed(log, "a.cpp", rendered.text).points, std::set<int>{2});
  EXPECT_TRUE(PointsBlamed(log, "b.cpp", rendered.text).points.empty()) << "another file's errors";
  EXPECT_EQ(PointsBlamed("/tmp/x/a.cpp:4:3: error: at the return\n", "a.cpp", rendered.text).points,
            std::set<int>{2})
      << "beside the point, inside the body: the line's innermost point";
  EXPECT_EQ(RenderSchema(original, schema, {2}).numbers, std::set<int>{1})
      << "a dropped point is left out";
}

// A line or column number past int's range is no place (a 10-digit one once aborted the run
// with std::stoi's out_of_range); the log's real places are still read.
TEST(GenerateSchema, ALineNumberPastAnIntIsNoPlaceAndNoAbort) {
  std::string original;
  Schema schema = SchemaOfD("#include <cstddef>", &original);
  SchemaText rendered = RenderSchema(original, schema, {});
  SchemaBlame blame = PointsBlamed(
      "/tmp/x/a.cpp:99999999999:1: error: far\n/tmp/x/a.cpp:4:99999999999: error: wide\n", "a.cpp",
      rendered.text);
  EXPECT_EQ(blame.points, std::set<int>{2}) << "line 4 is a place; its column, too wide, is none";
  EXPECT_FALSE(blame.unexplained);
}

// A place is the path that starts a log line (a checkout's directory or the file's own name
// may hold spaces), never a path a message quotes after its ": ", nor a file whose name only
// ends like the schematized one's.
TEST(GenerateSchema, AnErrorsPlaceMayHoldSpacesAndStartsItsLine) {
  std::string original;
  Schema schema = SchemaOfD("#include <cstddef>", &original);
  schema.file = "src/my a.cpp";
  SchemaText rendered = RenderSchema(original, schema, {});
  std::string error = ":4:29: error: invalid operands to binary 'operator+'\n";
  EXPECT_EQ(PointsBlamed("/tmp/my x/src/my a.cpp" + error, schema.file, rendered.text).points,
            std::set<int>{2});
  EXPECT_EQ(PointsBlamed("In file included from ../src/my a.cpp:5:1:   required from here\n",
                         schema.file, rendered.text)
                .points,
            std::set<int>{1})
      << "after the include's words, a context line";
  EXPECT_TRUE(
      PointsBlamed("b.h:2:1: error: see src/my a.cpp:4:29: here\n", schema.file, rendered.text)
          .points.empty());
  EXPECT_TRUE(
      PointsBlamed("/tmp/x/tsrc/my a.cpp" + error, schema.file, rendered.text).points.empty());
  SchemaBlame nowhere =
      PointsBlamed("../src/my a.cpp: In function 'long D()':\n", schema.file, rendered.text);
  EXPECT_TRUE(nowhere.points.empty());
  EXPECT_FALSE(nowhere.unexplained) << "a line with no line number places nothing";
}

// A context line (a note, `required from here`) blames only when no error line of the file
// did: the error's point alone is left out, not the body that instantiated it; an error in
// another file (a system header) is blamed through its context.
TEST(GenerateSchema, ContextLinesBlameOnlyWhenNoErrorLineDid) {
  std::string original;
  Schema schema = SchemaOfD("#include <cstddef>", &original);
  SchemaText rendered = RenderSchema(original, schema, {});
  std::string context = "/tmp/x/a.cpp:5:1:   required from here\n";
  EXPECT_EQ(
      PointsBlamed(context + "/tmp/x/a.cpp:4:29: error: invalid operands to binary 'operator+'\n",
                   "a.cpp", rendered.text)
          .points,
      std::set<int>{2});
  EXPECT_EQ(PointsBlamed(context + "/usr/include/c++/12/x.h:9:5: error: no match\n", "a.cpp",
                         rendered.text)
                .points,
            std::set<int>{1});
}

// Lines count from the original's first line (what `#line 1` numbers), a blank one included.
TEST(GenerateSchema, AnErrorsLineCountsTheOriginalsLeadingBlankLine) {
  std::string original;
  Schema schema = SchemaOfD("", &original);
  SchemaText rendered = RenderSchema(original, schema, {});
  EXPECT_EQ(PointsBlamed("/tmp/x/a.cpp:4:29: error: invalid operands to binary 'operator+'\n",
                         "a.cpp", rendered.text)
                .points,
            std::set<int>{2});
  EXPECT_EQ(PointsBlamed("/tmp/x/a.cpp:5:1: error: expected ';'\n", "a.cpp", rendered.text).points,
            std::set<int>{1});
}

// Line 22 holds two points, `b - a` made `b + a` (point 1, pointers: rejected) and `c + 1`
// made `c - 1` (point 2, fine); the lines before it begin with eight tabs.
Schema SchemaOfTwoOnALine(std::string* original) {
  *original = "long D(const int* a, const int* b, int c) {\n";
  for (int line = 2; line < 22; ++line) *original += "\t\t\t\t\t\t\t\tc += 1;\n";
  *original += " return (b - a) * (c + 1);\n}\n";
  size_t diff = original->find("b - a"), sum = original->find("c + 1");
  Schema schema{"a.cpp", false, {}};
  schema.points = {SchemaPoint{1, diff, diff + 5, SchemaKind::kEdit, diff + 2, 1, "+"},
                   SchemaPoint{2, sum, sum + 5, SchemaKind::kEdit, sum + 2, 1, "-"}};
  return schema;
}

// The byte column of the rejected `+` on line 22 of the rendered body.
int ColumnOfTheSum(const std::string& text) {
  std::string body = text.substr(text.find("#line 1\n") + 8);
  size_t line = 0;
  for (int n = 1; n < 22; ++n) line = body.find('\n', line) + 1;
  return static_cast<int>(body.find("b + a", line) + 2 - line + 1);
}

// GCC counts a tab to the next multiple of 8, reading the line by the number `#line 1` gave
// it: the rendered file's own line 22, a tab-indented one above the error's, so it names the
// `+` 56 columns on. Its log's `  22 | ` margin says it is GCC's: the rejected point alone is
// blamed (read as bytes, the column lies in point 2), and its neighbour stays in the schemata.
TEST(GenerateSchema, GccsErrorIsBlamedOnThePointAtItsColumnNotTheWholeLine) {
  std::string original;
  Schema schema = SchemaOfTwoOnALine(&original);
  std::string text = RenderSchema(original, schema, {}).text;
  TempDir dir;
  dir.Write("a.cpp", text);
  auto built = RunCapture({"c++", "-fsyntax-only", "a.cpp"}, dir.path(), 60);
  ASSERT_TRUE(built.ok());
  ASSERT_NE(built->output.find("a.cpp:22:" + std::to_string(ColumnOfTheSum(text) + 56) + ":"),
            std::string::npos)
      << "GCC 11 or later names display columns\n"
      << built->output;
  EXPECT_EQ(PointsBlamed(built->output, "a.cpp", text).points, std::set<int>{1}) << built->output;
}

// Clang counts bytes (its log's "1 error generated." says it is Clang's); the same point is
// blamed (read as GCC's, the column lies before every point). A log of neither compiler is
// read both ways. A column beside every point
// of its line (a callee named by "no matching function") blames each innermost point there.
TEST(GenerateSchema, ClangsByteColumnIsBlamedAndAColumnBesideThePointsBlamesTheLine) {
  std::string original;
  Schema schema = SchemaOfTwoOnALine(&original);
  std::string text = RenderSchema(original, schema, {}).text;
  std::string column = std::to_string(ColumnOfTheSum(text));
  EXPECT_EQ(
      PointsBlamed("/t/a.cpp:22:" + column + ": error: invalid operands\n1 error generated.\n",
                   "a.cpp", text)
          .points,
      std::set<int>{1});
  std::string gccs = std::to_string(ColumnOfTheSum(text) + 56);
  EXPECT_EQ(
      PointsBlamed("/t/a.cpp:22:" + gccs + ": error: from a compiler unknown\n", "a.cpp", text)
          .points,
      (std::set<int>{1, 2}));
  EXPECT_EQ(
      PointsBlamed("/t/a.cpp:22:" + column + ": error: from a compiler unknown\n", "a.cpp", text)
          .points,
      (std::set<int>{1, 2}))
      << "read as GCC's, the column lies before every point: the line";
  EXPECT_EQ(
      PointsBlamed("/t/a.cpp:22:3: error: no matching function for call to 'F'\n", "a.cpp", text)
          .points,
      (std::set<int>{1, 2}));
  EXPECT_EQ(PointsBlamed("/t/a.cpp:22: error: no column\n", "a.cpp", text).points,
            (std::set<int>{1, 2}));
}

// A function's closing brace is in no point's markers, yet a point made it an error there
// (`while (true)` negated: control reaches the end): no point's lines explain it (SchemaSearch
// halves the file's points to find which); a note there blames nothing.
TEST(GenerateSchema, AnErrorOutsideEveryPointIsUnexplained) {
  std::string original =
      "int F(int a) {\n  while (true) {\n    if (a > 1) return a;\n    a = a + 2;\n  }\n}\n";
  size_t cond = original.find("a > 1"), sum = original.find("a + 2");
  Schema schema{"a.cpp", false, {}};
  schema.points = {SchemaPoint{1, cond, cond + 5, SchemaKind::kEdit, cond + 2, 1, ">="},
                   SchemaPoint{2, sum, sum + 5, SchemaKind::kEdit, sum + 2, 1, "-"}};
  SchemaText rendered = RenderSchema(original, schema, {});
  SchemaBlame error = PointsBlamed(
      "/tmp/x/a.cpp:6:1: error: control reaches end of non-void function [-Werror=return-type]\n",
      "a.cpp", rendered.text);
  EXPECT_TRUE(error.unexplained);
  EXPECT_TRUE(error.points.empty());
  SchemaBlame note =
      PointsBlamed("/tmp/x/a.cpp:6:1: note: in definition of F\n", "a.cpp", rendered.text);
  EXPECT_FALSE(note.unexplained);
  EXPECT_TRUE(note.points.empty());
}

}  // namespace
}  // namespace pg
