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
#include "gates/generate/clang_walker.h"
#include "gates/generate/source_kind.h"

namespace pg {
namespace walk {

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

}  // namespace walk

namespace {

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
  if (main) out.points = walk::Walker(tu, main, out.text, ops).Run();
  clang_disposeTranslationUnit(tu);
  clang_disposeIndex(index);
  return out;
}

}  // namespace pg
