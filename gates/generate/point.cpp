#include "gates/generate/point.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <map>

#include "gates/core/integer_text.h"
#include "gates/core/sha256.h"

namespace pg {
namespace {

constexpr std::array<std::pair<Operator, std::string_view>, 9> kNames = {{
    {Operator::kRelational, "relational"},
    {Operator::kEquality, "equality"},
    {Operator::kArithmetic, "arithmetic"},
    {Operator::kLogical, "logical"},
    {Operator::kNegate, "negate"},
    {Operator::kNot, "not"},
    {Operator::kConstant, "constant"},
    {Operator::kReturn, "return"},
    {Operator::kCall, "call"},
}};

// Whole lines [first, last] of `text` (1-based), each without its newline.
std::string Lines(const std::string& text, size_t from, size_t to) {
  size_t begin = text.rfind('\n', from == 0 ? 0 : from - 1);
  begin = (begin == std::string::npos || from == 0) ? 0 : begin + 1;
  size_t end = text.find('\n', to);
  return text.substr(begin, (end == std::string::npos ? text.size() : end) - begin);
}

std::string Prefixed(const std::string& lines, char mark) {
  std::string out(1, mark);
  for (char c : lines) out += c == '\n' ? std::string("\n") + mark : std::string(1, c);
  return out + "\n";
}

std::string OneLine(std::string s, size_t limit) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s.size() > limit ? s.substr(0, limit) + "…" : s;
}

}  // namespace

std::string_view OperatorName(Operator op) {
  for (const auto& [o, name] : kNames) {
    if (o == op) return name;
  }
  return "?";
}

std::set<Operator> AllOperators() {
  std::set<Operator> all;
  for (const auto& [o, name] : kNames) all.insert(o);
  return all;
}

StatusOr<std::set<Operator>> ParseOperators(const std::string& list) {
  std::set<Operator> out;
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = list.find(',', at);
    std::string name = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    auto it =
        std::find_if(kNames.begin(), kNames.end(), [&](const auto& n) { return n.second == name; });
    if (it == kNames.end()) {
      std::string known;
      for (const auto& [o, n] : kNames) known += (known.empty() ? "" : ", ") + std::string(n);
      return Status::Invalid("--operators: unknown operator \"" + name + "\" (known: " + known +
                             ")");
    }
    out.insert(it->first);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

std::optional<std::pair<Operator, std::string>> BinaryMutation(std::string_view op) {
  static const std::map<std::string_view, std::pair<Operator, std::string>> table = {
      {"<", {Operator::kRelational, "<="}},  {"<=", {Operator::kRelational, "<"}},
      {">", {Operator::kRelational, ">="}},  {">=", {Operator::kRelational, ">"}},
      {"==", {Operator::kEquality, "!="}},   {"!=", {Operator::kEquality, "=="}},
      {"+", {Operator::kArithmetic, "-"}},   {"-", {Operator::kArithmetic, "+"}},
      {"*", {Operator::kArithmetic, "/"}},   {"/", {Operator::kArithmetic, "*"}},
      {"%", {Operator::kArithmetic, "/"}},   {"+=", {Operator::kArithmetic, "-="}},
      {"-=", {Operator::kArithmetic, "+="}}, {"*=", {Operator::kArithmetic, "/="}},
      {"/=", {Operator::kArithmetic, "*="}}, {"%=", {Operator::kArithmetic, "/="}},
      {"&&", {Operator::kLogical, "||"}},    {"||", {Operator::kLogical, "&&"}},
  };
  auto it = table.find(op);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

SchemaPoint SchemaPointOf(const Point& p) {
  SchemaPoint s;
  s.begin = p.span_begin;
  s.end = p.span_end;
  s.kind = p.schema;
  s.edit_offset = p.schema_operator ? p.operator_offset : p.offset;
  s.edit_length = p.schema_operator ? p.operator_original.size() : p.original.size();
  s.replacement = p.schema_operator ? p.operator_replacement : p.replacement;
  s.group_operands = p.schema_operator;
  s.alone = p.alone;
  return s;
}

void Locate(const std::string& text, Point* p) {
  size_t upto = std::min(p->offset, text.size());
  p->line =
      1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(upto), '\n'));
  size_t nl = upto == 0 ? std::string::npos : text.rfind('\n', upto - 1);
  p->column = static_cast<int>(upto - (nl == std::string::npos ? 0 : nl + 1)) + 1;
}

std::string PointId(const Point& p) {
  std::string hash = Sha256Hex(p.original + std::string(1, '\0') + p.replacement).substr(0, 8);
  return p.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ":" +
         std::string(OperatorName(p.op)) + ":" + hash;
}

std::pair<int, int> PointLines(const Point& p) {
  return {p.line,
          p.line + static_cast<int>(std::count(p.original.begin(), p.original.end(), '\n'))};
}

std::string PointDiff(const Point& p, const std::string& text) {
  size_t end = p.offset + p.original.size();
  std::string before = Lines(text, p.offset, end == p.offset ? end : end - 1);
  std::string mutated = text.substr(0, p.offset) + p.replacement + text.substr(end);
  std::string after =
      Lines(mutated, p.offset, p.offset + std::max<size_t>(p.replacement.size(), 1) - 1);
  auto count = [](const std::string& s) { return 1 + std::count(s.begin(), s.end(), '\n'); };
  std::string head = "@@ -" + std::to_string(p.line) + "," + std::to_string(count(before)) + " +" +
                     std::to_string(p.line) + "," + std::to_string(count(after)) + " @@\n";
  return "--- a/" + p.file + "\n+++ b/" + p.file + "\n" + head + Prefixed(before, '-') +
         Prefixed(after, '+');
}

std::string PointChange(const Point& p, const std::string& text) {
  auto trim = [](std::string s) {
    size_t a = s.find_first_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a);
  };
  if (p.original.find('\n') == std::string::npos && p.replacement.find('\n') == std::string::npos) {
    size_t end = p.offset + p.original.size();
    std::string line = Lines(text, p.offset, end == p.offset ? end : end - 1);
    size_t at = p.offset - (text.rfind('\n', p.offset == 0 ? 0 : p.offset - 1) + 1);
    if (p.offset == 0 || text.rfind('\n', p.offset - 1) == std::string::npos) at = p.offset;
    std::string after = line.substr(0, at) + p.replacement +
                        line.substr(std::min(line.size(), at + p.original.size()));
    if (line.size() <= 120) return "`" + trim(line) + "` → `" + trim(after) + "`";
  }
  return "`" + OneLine(p.original, 60) + "` → `" + OneLine(p.replacement, 60) + "`";
}

std::optional<std::pair<std::string, unsigned long long>> DecimalLiteral(const std::string& token) {
  size_t digits = 0;
  while (digits < token.size() && std::isdigit(static_cast<unsigned char>(token[digits]))) ++digits;
  if (digits == 0 || digits > 18 || (token[0] == '0' && digits > 1)) return std::nullopt;
  for (size_t i = digits; i < token.size(); ++i) {
    if (!std::strchr("uUlLzZ", token[i])) return std::nullopt;
  }
  // 18 digits at most: a long holds them.
  return std::make_pair(
      token.substr(0, digits),
      static_cast<unsigned long long>(ParseInteger(token.substr(0, digits)).value_or(0)));
}

std::string Squeezed(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char ch) { return std::isspace(ch); }),
          s.end());
  return s;
}

}  // namespace pg
