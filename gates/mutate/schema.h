// Mutant schemata: a source file rewritten so every mutant in it is compiled in, each behind a
// runtime switch read from PROOFGATE_MUTANT. One build then serves all of them, and a mutant
// costs a test run (Untch & Offutt's mutant schemata).
#pragma once

#include <set>
#include <string>
#include <vector>

namespace pg {

// How a point's span is rewritten (specs/mutate-generate.md shows each shape).
enum class SchemaKind {
  kEdit,      // (on(N) ? (T with the edit) : (T)): operators, constants
  kNegate,    // (on(N) ? !(T) : !!(T)): a condition
  kNot,       // (on(N) ? !!(T without its leading !) : T): a removed `!`
  kBody,      // { if (on(N)) REPLACEMENT T }: a body returning its type's default
  kVoidBody,  // { if (on(N)) { return; } T }
  kCall,      // (on(N) ? static_cast<void>(0) : T): a removed call
};

struct SchemaPoint {
  int number = 0;             // the mutant's switch value, from 1
  size_t begin = 0, end = 0;  // the span rewritten (byte offsets in the original)
  SchemaKind kind = SchemaKind::kEdit;
  size_t edit_offset = 0, edit_length = 0;  // kEdit: the bytes the mutant replaces
  std::string replacement;
  // kEdit of a binary operator whose replacement binds differently (`&&` ↔ `||`): the mutated
  // branch parenthesizes the operands on either side of the edit, so it parses to the tree
  // the original has with only the operator changed.
  bool group_operands = false;
  // Never rendered: its schema would not compile where the mutant alone does (a constant
  // converted inside braces, which narrows once it is no constant): a build of its own.
  bool alone = false;
};

// Every point of one file, for one build.
struct Schema {
  std::string file;  // relative to the root
  bool c_language = false;
  std::vector<SchemaPoint> points;
};

inline constexpr const char* kMutantVariable = "PROOFGATE_MUTANT";

struct SchemaText {
  std::string text;       // the whole rewritten file
  std::set<int> numbers;  // the points it holds (overlapping ones are left out)
};

// `original` with every point of `schema` not in `dropped` rewritten, after a prelude that
// declares the switch and resets the line numbers (#line 1).
SchemaText RenderSchema(const std::string& original, const Schema& schema,
                        const std::set<int>& dropped);

// What a build log's errors say of one file's schema: every `FILE:LINE:` naming `file` (the
// path ends with it), mapped through the markers in `text` to the innermost point around that
// line; and whether an error of it lies outside every point (no point's lines explain it).
struct SchemaBlame {
  std::set<int> points;
  bool unexplained = false;
};
SchemaBlame PointsBlamed(const std::string& build_log, const std::string& file,
                         const std::string& text);

}  // namespace pg
