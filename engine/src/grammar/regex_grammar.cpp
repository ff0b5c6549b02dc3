// A regular expression (vLLM's `regex`, Python's and JavaScript's common syntax) → a GBNF
// expression: the same language, for Grammar::FromGbnf.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "grammar_builder.h"

namespace vt {
namespace {

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

constexpr int kMaxNesting = 256;  // groups in groups: the parser recurses into each

std::string Escaped(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, cp > 0xFFFF ? "\\U%08X" : "\\u%04X", cp);
  return buf;
}

// What a JSON string cannot hold unescaped.
const Ranges kJsonUnsafe = {{0, 0x1F}, {'"', '"'}, {'\\', '\\'}};

// `ranges` without anything in `cut` (both sorted).
Ranges Subtract(const Ranges& ranges, const Ranges& cut) {
  Ranges out;
  for (auto [lo, hi] : ranges) {
    for (auto [clo, chi] : cut) {
      if (chi < lo || clo > hi) continue;
      if (clo > lo) out.push_back({lo, clo - 1});
      lo = chi + 1;
      if (lo > hi || chi == UINT32_MAX) break;
    }
    if (lo <= hi) out.push_back({lo, hi});
  }
  return out;
}

std::string ClassText(Ranges ranges, bool negated, bool json) {
  if (json && negated) ranges.insert(ranges.end(), kJsonUnsafe.begin(), kJsonUnsafe.end());
  if (json && !negated) {
    std::sort(ranges.begin(), ranges.end());
    ranges = Subtract(ranges, kJsonUnsafe);
  }
  std::string out = negated ? "[^" : "[";
  for (auto [lo, hi] : ranges) {
    out += Escaped(lo);
    if (hi != lo) out += "-" + Escaped(hi);
  }
  return out + "]";
}

// \d \w \s as ranges; false for another letter.
bool Shorthand(char c, Ranges* out) {
  switch (std::tolower(static_cast<unsigned char>(c))) {
    case 'd': *out = {{'0', '9'}}; return true;
    case 'w': *out = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}; return true;
    case 's': *out = {{'\t', '\r'}, {' ', ' '}}; return true;
    default: return false;
  }
}

class RegexParser {
 public:
  RegexParser(std::string_view re, bool json) : re_(re), json_(json) {}

  StatusOr<std::string> Parse() {
    if (Peek() == '^') ++pos_;
    std::string out;
    VT_RETURN_IF_ERROR(Alternation(&out));
    if (pos_ < re_.size()) return Fail(pos_, Peek() == ')' ? "an unmatched ')'" : "unexpected character");
    return "(" + out + ")";
  }

 private:
  char Peek(size_t ahead = 0) const { return pos_ + ahead < re_.size() ? re_[pos_ + ahead] : '\0'; }
  Status Fail(size_t at, const std::string& why) const {
    return Status(StatusCode::kInvalidArgument, "regex at offset " + std::to_string(at) + ": " + why);
  }

  Status Alternation(std::string* out) {
    while (true) {
      VT_RETURN_IF_ERROR(Sequence(out));
      if (Peek() != '|') return Status();
      ++pos_;
      *out += " | ";
    }
  }

  Status Sequence(std::string* out) {
    bool any = false;
    while (pos_ < re_.size() && Peek() != '|' && Peek() != ')') {
      if (Peek() == '$' && pos_ + 1 == re_.size()) {
        ++pos_;
        break;
      }
      std::string atom;
      VT_RETURN_IF_ERROR(Atom(&atom));
      VT_RETURN_IF_ERROR(Quantifier(&atom));
      *out += (any ? " " : "") + atom;
      any = true;
    }
    if (!any) *out += "\"\"";
    return Status();
  }

  Status Quantifier(std::string* atom) {
    const char c = Peek();
    if (c == '*' || c == '+' || c == '?') {
      ++pos_;
      *atom += c;
    } else if (c == '{' && (std::isdigit(static_cast<unsigned char>(Peek(1))))) {
      size_t close = re_.find('}', pos_);
      if (close == std::string_view::npos) return Fail(pos_, "an unterminated {");
      *atom += std::string(re_.substr(pos_, close + 1 - pos_));
      pos_ = close + 1;
    } else {
      return Status();
    }
    if (Peek() == '?') ++pos_;  // lazy: the same language
    if (Peek() == '+') return Fail(pos_, "possessive quantifiers are not supported");
    return Status();
  }

  Status Atom(std::string* out) {
    const size_t at = pos_;
    const char c = Peek();
    if (c == '(') return Group(out);
    if (c == '[') return Class(out);
    if (c == '.') return ++pos_, *out = ClassText({{'\n', '\n'}}, true, json_), Status();
    if (c == '*' || c == '+' || c == '?' || c == '{') return Fail(at, "a quantifier with nothing before it");
    if (c == '^' || c == '$') return Fail(at, "anchors inside the expression are not supported (only ^ first and $ last)");
    uint32_t cp = 0;
    Ranges ranges;
    VT_RETURN_IF_ERROR(Char(&cp, &ranges));
    if (!ranges.empty()) return *out = ClassText(ranges, std::isupper(static_cast<unsigned char>(re_[pos_ - 1])) != 0, json_), Status();
    *out = Literal(cp);
    return Status();
  }

  Status Group(std::string* out) {
    const size_t at = pos_++;
    if (++depth_ > kMaxNesting) return Fail(at, "groups nest deeper than " + std::to_string(kMaxNesting) + " levels");
    if (Peek() == '?') {
      if (Peek(1) == ':') {
        pos_ += 2;
      } else if ((Peek(1) == 'P' && Peek(2) == '<') || (Peek(1) == '<' && Peek(2) != '=' && Peek(2) != '!')) {
        size_t close = re_.find('>', pos_);
        if (close == std::string_view::npos) return Fail(at, "an unterminated group name");
        pos_ = close + 1;
      } else {
        return Fail(at, "lookaround and inline flags are not supported");
      }
    }
    std::string inner;
    VT_RETURN_IF_ERROR(Alternation(&inner));
    if (Peek() != ')') return Fail(at, "an unterminated group");
    ++pos_;
    --depth_;
    *out = "(" + inner + ")";
    return Status();
  }

  Status Class(std::string* out) {
    const size_t at = pos_++;
    const bool negated = Peek() == '^';
    if (negated) ++pos_;
    Ranges ranges;
    bool first = true;
    while (Peek() != ']' || first) {
      if (pos_ >= re_.size()) return Fail(at, "an unterminated character class");
      first = false;
      uint32_t lo = 0, hi = 0;
      Ranges shorthand;
      VT_RETURN_IF_ERROR(Char(&lo, &shorthand));
      if (!shorthand.empty()) {
        if (std::isupper(static_cast<unsigned char>(re_[pos_ - 1]))) return Fail(pos_ - 2, "\\D, \\W or \\S inside a class is not supported");
        ranges.insert(ranges.end(), shorthand.begin(), shorthand.end());
        continue;
      }
      hi = lo;
      if (Peek() == '-' && Peek(1) != ']' && Peek(1) != '\0') {
        ++pos_;
        VT_RETURN_IF_ERROR(Char(&hi, &shorthand));
        if (!shorthand.empty() || hi < lo) return Fail(at, "a bad range in a character class");
      }
      ranges.push_back({lo, hi});
    }
    ++pos_;
    *out = ClassText(ranges, negated, json_);
    return Status();
  }

  Status Hex(size_t digits, uint32_t* cp) {
    *cp = 0;
    for (size_t i = 0; i < digits; ++i, ++pos_) {
      const char h = Peek();
      if (!std::isxdigit(static_cast<unsigned char>(h))) return Fail(pos_, "expected a hex digit");
      *cp = *cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : std::tolower(h) - 'a' + 10);
    }
    return Status();
  }

  // One character, an escape, or a shorthand class (left in `shorthand`).
  Status Char(uint32_t* cp, Ranges* shorthand) {
    const unsigned char c = static_cast<unsigned char>(re_[pos_]);
    if (c != '\\') {
      const int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
      if (len == 0 || pos_ + static_cast<size_t>(len) > re_.size()) return Fail(pos_, "invalid UTF-8");
      *cp = len == 1 ? c : c & (0x7F >> len);
      for (int i = 1; i < len; ++i) *cp = (*cp << 6) | (static_cast<unsigned char>(re_[pos_ + static_cast<size_t>(i)]) & 0x3F);
      pos_ += static_cast<size_t>(len);
      return Status();
    }
    const size_t at = pos_;
    pos_ += 2;
    const char e = re_.size() > at + 1 ? re_[at + 1] : '\0';
    if (Shorthand(e, shorthand)) return Status();
    switch (e) {
      case 'n': return *cp = '\n', Status();
      case 't': return *cp = '\t', Status();
      case 'r': return *cp = '\r', Status();
      case 'f': return *cp = '\f', Status();
      case 'v': return *cp = '\v', Status();
      case '0': return *cp = 0, Status();
      case 'x': return Hex(2, cp);
      case 'u': return Hex(4, cp);
      case '\0': return Fail(at, "a trailing backslash");
      default: break;
    }
    if (std::isalnum(static_cast<unsigned char>(e))) return Fail(at, std::string("the escape \\") + e + " is not supported");
    *cp = static_cast<unsigned char>(e);
    return Status();
  }

  // One character as a literal: in a JSON string, as JSON writes it.
  std::string Literal(uint32_t cp) const {
    std::string bytes;
    if (json_ && (cp < 0x20 || cp == '"' || cp == '\\')) {
      const char* named = cp == '"' ? "\\\"" : cp == '\\' ? "\\\\" : cp == '\n' ? "\\n" : cp == '\t' ? "\\t" : cp == '\r' ? "\\r" : nullptr;
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u%04X", cp);
      return GbnfLiteral(named ? named : buf);
    }
    grammar::AppendUtf8(cp, &bytes);
    return GbnfLiteral(bytes);
  }

  std::string_view re_;
  bool json_;
  size_t pos_ = 0;
  int depth_ = 0;  // groups open: the parser recurses into each
};

}  // namespace

std::string GbnfLiteral(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);  // UTF-8 bytes pass as they are: the parser reads characters
    }
  }
  return out + "\"";
}

StatusOr<std::string> RegexToGbnf(std::string_view regex, bool json_string) { return RegexParser(regex, json_string).Parse(); }

}  // namespace vt
