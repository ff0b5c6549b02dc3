// GBNF text → GrammarBuilder, as llama.cpp's grammar-parser reads it (grammars/README.md).
#include <cctype>

#include "grammar_builder.h"

namespace vt {
namespace {

using grammar::Alternative;
using grammar::GrammarBuilder;

constexpr int kMaxRepeat = 10000;  // {m,n} past this would make rules by the thousands
constexpr int kMaxNesting = 256;   // groups in groups: the parser and the automaton recurse

bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

class GbnfParser {
 public:
  GbnfParser(std::string_view text, GrammarBuilder* builder) : text_(text), b_(*builder) {}

  Status Parse() {
    Space(true);
    while (pos_ < text_.size()) {
      const size_t at = pos_;
      std::string name = Name();
      if (name.empty()) return Fail(at, "expected a rule name");
      Space(false);
      if (text_.substr(pos_, 3) != "::=") return Fail(pos_, "expected '::=' after '" + name + "'");
      pos_ += 3;
      Space(true);
      std::vector<Alternative> alts;
      VT_RETURN_IF_ERROR(Alternates(false, &alts));
      VT_RETURN_IF_ERROR(b_.Define(b_.Rule(name, Where(at)), std::move(alts), Where(at)));
      Space(true);
    }
    return Status();
  }

 private:
  // "line L, column C: " of `at`, counted on from the last place asked for: parsing goes
  // forward, so a grammar of a million bytes is counted once (counting from the start for
  // each rule reference took minutes, an outside tester's find).
  std::string Where(size_t at) const {
    if (at < where_at_) where_at_ = 0, where_line_ = 1, where_col_ = 1;
    for (; where_at_ < at && where_at_ < text_.size(); ++where_at_) {
      if (text_[where_at_] == '\n') ++where_line_, where_col_ = 1;
      else ++where_col_;
    }
    return "line " + std::to_string(where_line_) + ", column " + std::to_string(where_col_) + ": ";
  }
  Status Fail(size_t at, const std::string& why) const { return Status(StatusCode::kInvalidArgument, Where(at) + why); }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }

  // Spaces, tabs and comments; newlines too when `newlines`.
  void Space(bool newlines) {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || (newlines && c == '\n')) {
        ++pos_;
      } else {
        break;
      }
    }
  }

  // At a newline ending a top-level alternative: whether the next line goes on with '|'.
  bool Continues() {
    size_t save = pos_;
    Space(true);
    if (Peek() == '|') return true;
    pos_ = save;
    return false;
  }

  std::string Name() {
    size_t start = pos_;
    while (pos_ < text_.size() && NameChar(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  Status Alternates(bool nested, std::vector<Alternative>* alts) {
    while (true) {
      Alternative seq;
      VT_RETURN_IF_ERROR(Sequence(nested, &seq));
      alts->push_back(std::move(seq));
      Space(nested);
      if (Peek() == '\n' && !nested && !Continues()) return Status();
      if (Peek() != '|') return Status();
      ++pos_;
      Space(true);
    }
  }

  Status Sequence(bool nested, Alternative* seq) {
    while (true) {
      Space(nested);
      char c = Peek();
      if (c == '\0' || c == '|' || c == ')' || c == '\n') return Status();
      VT_RETURN_IF_ERROR(Item(seq));
    }
  }

  Status Item(Alternative* seq) {
    const size_t start = seq->size(), at = pos_;
    const char c = Peek();
    if (c == '"') {
      VT_RETURN_IF_ERROR(Literal(seq));
    } else if (c == '[') {
      VT_RETURN_IF_ERROR(Class(seq));
    } else if (c == '.') {
      ++pos_;
      Append(seq, b_.Class({{0, 0x10FFFF}}, false));
    } else if (c == '(') {
      if (++depth_ > kMaxNesting) return Fail(pos_, "groups nest deeper than " + std::to_string(kMaxNesting) + " levels");
      ++pos_;
      Space(true);
      std::vector<Alternative> alts;
      VT_RETURN_IF_ERROR(Alternates(true, &alts));
      Space(true);
      if (Peek() != ')') return Fail(pos_, "expected ')' to close the group opened at " + Where(at));
      ++pos_;
      --depth_;
      Append(seq, b_.Group(std::move(alts)));
    } else if (NameChar(c)) {
      std::string name = Name();
      seq->push_back(Grammar::Element{Grammar::Kind::kRef, b_.Rule(name, Where(at))});
    } else {
      return Fail(pos_, std::string("unexpected '") + c + "'");
    }
    return Postfix(start, seq);
  }

  static void Append(Alternative* seq, const Alternative& more) { seq->insert(seq->end(), more.begin(), more.end()); }

  // `*`, `+`, `?` or `{m,n}` after the symbol that starts at `start`.
  Status Postfix(size_t start, Alternative* seq) {
    Space(false);
    int min = 0, max = -1;
    const char c = Peek();
    if (c == '*' || c == '+' || c == '?') {
      ++pos_;
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : -1;
    } else if (c == '{') {
      VT_RETURN_IF_ERROR(Braces(&min, &max));
    } else {
      return Status();
    }
    Alternative symbol(seq->begin() + static_cast<long>(start), seq->end());
    seq->resize(start);
    Append(seq, b_.Repeat(symbol, min, max));
    return Status();
  }

  Status Braces(int* min, int* max) {
    const size_t at = pos_++;
    auto number = [&](int* out) {
      size_t begin = pos_;
      long v = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek())) && v <= kMaxRepeat) v = v * 10 + (text_[pos_++] - '0');
      *out = static_cast<int>(v);
      return pos_ > begin;
    };
    Space(false);
    if (!number(min)) return Fail(pos_, "expected a number after '{'");
    Space(false);
    *max = *min;
    if (Peek() == ',') {
      ++pos_;
      Space(false);
      if (!number(max)) *max = -1;
      Space(false);
    }
    if (Peek() != '}') return Fail(pos_, "expected '}'");
    ++pos_;
    if (*min > kMaxRepeat || *max > kMaxRepeat) return Fail(at, "a repetition count over " + std::to_string(kMaxRepeat));
    if (*max >= 0 && *max < *min) return Fail(at, "{m,n} with n < m");
    return Status();
  }

  Status Literal(Alternative* seq) {
    const size_t at = pos_++;
    std::string bytes;
    while (Peek() != '"') {
      if (pos_ >= text_.size()) return Fail(at, "unterminated string");
      uint32_t cp = 0;
      VT_RETURN_IF_ERROR(Char(&cp));
      grammar::AppendUtf8(cp, &bytes);
    }
    ++pos_;
    Append(seq, b_.Literal(bytes));
    return Status();
  }

  Status Class(Alternative* seq) {
    const size_t at = pos_++;
    const bool negated = Peek() == '^';
    if (negated) ++pos_;
    grammar::CodeRanges ranges;
    while (Peek() != ']') {
      if (pos_ >= text_.size()) return Fail(at, "unterminated character class");
      uint32_t lo = 0, hi = 0;
      VT_RETURN_IF_ERROR(Char(&lo));
      hi = lo;
      if (Peek() == '-' && Peek(1) != ']' && Peek(1) != '\0') {
        ++pos_;
        VT_RETURN_IF_ERROR(Char(&hi));
        if (hi < lo) return Fail(at, "a range whose end comes before its start");
      }
      ranges.push_back({lo, hi});
    }
    ++pos_;
    Append(seq, b_.Class(std::move(ranges), negated));
    return Status();
  }

  Status Hex(int digits, uint32_t* cp) {
    *cp = 0;
    for (int i = 0; i < digits; ++i) {
      char h = Peek();
      if (!std::isxdigit(static_cast<unsigned char>(h))) return Fail(pos_, "expected " + std::to_string(digits) + " hex digits");
      *cp = *cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
      ++pos_;
    }
    return *cp > 0x10FFFF ? Fail(pos_, "a code point past U+10FFFF") : Status();
  }

  // One character of a literal or class: an escape, or one UTF-8 character.
  Status Char(uint32_t* cp) {
    const unsigned char c = static_cast<unsigned char>(text_[pos_]);
    if (c == '\\') {
      ++pos_;
      const char e = Peek();
      ++pos_;
      switch (e) {
        case 'n': return *cp = '\n', Status();
        case 'r': return *cp = '\r', Status();
        case 't': return *cp = '\t', Status();
        case 'x': return Hex(2, cp);
        case 'u': return Hex(4, cp);
        case 'U': return Hex(8, cp);
        case '\\': case '"': case '[': case ']': case '-': case '^': return *cp = static_cast<uint32_t>(e), Status();
        default: return Fail(pos_ - 2, std::string("unknown escape '\\") + e + "'");
      }
    }
    const int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || pos_ + static_cast<size_t>(len) > text_.size()) return Fail(pos_, "invalid UTF-8");
    *cp = len == 1 ? c : c & (0x7F >> len);
    for (int i = 1; i < len; ++i) {
      const unsigned char k = static_cast<unsigned char>(text_[pos_ + static_cast<size_t>(i)]);
      if ((k & 0xC0) != 0x80) return Fail(pos_, "invalid UTF-8");
      *cp = (*cp << 6) | (k & 0x3F);
    }
    pos_ += static_cast<size_t>(len);
    return Status();
  }

  std::string_view text_;
  GrammarBuilder& b_;
  size_t pos_ = 0;
  int depth_ = 0;  // groups open: the parser recurses into each
  mutable size_t where_at_ = 0, where_line_ = 1, where_col_ = 1;
};

}  // namespace

StatusOr<std::shared_ptr<const Grammar>> Grammar::FromGbnf(std::string_view text) {
  grammar::GrammarBuilder builder;
  GbnfParser parser(text, &builder);
  VT_RETURN_IF_ERROR(parser.Parse());
  return builder.Finish("root");
}

}  // namespace vt
