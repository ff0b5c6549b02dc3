#include "lexer.h"

#include <cctype>

#include "ast.h"
#include "text/utf8.h"

namespace vt::jinja {

Status TemplateError(int line, int col, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "template:" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
}

namespace {

bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class Lexer {
 public:
  explicit Lexer(const std::string& src) : src_(src) {
    // Jinja drops one trailing newline (keep_trailing_newline is off).
    if (!src_.empty() && src_.back() == '\n') src_.pop_back();
  }

  StatusOr<std::vector<Token>> Run() {
    while (pos_ < src_.size()) {
      size_t tag = FindTag(pos_);
      EmitText(tag);
      if (tag >= src_.size()) break;
      Status st = src_[tag + 1] == '#' ? Comment() : Tag();
      if (!st.ok()) return st;
    }
    tokens_.push_back(Token{Token::Type::kEnd, "", line_, col_});
    return tokens_;
  }

 private:
  size_t FindTag(size_t from) const {
    for (size_t i = from; i + 1 < src_.size(); ++i) {
      if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
    }
    return src_.size();
  }

  void Advance(size_t to) {
    for (; pos_ < to; ++pos_) {
      if (src_[pos_] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }

  // Text up to `tag`, trimmed on the right by a `-` marker, or by lstrip_blocks when only
  // spaces and tabs stand between the line start and a block or comment tag.
  void EmitText(size_t tag) {
    Token t{Token::Type::kText, src_.substr(pos_, tag - pos_), line_, col_};
    if (tag < src_.size()) {
      bool strip = tag + 2 < src_.size() && src_[tag + 2] == '-';
      bool block = src_[tag + 1] != '{';
      if (strip) {
        while (!t.text.empty() && Space(t.text.back())) t.text.pop_back();
      } else if (block && !(tag + 2 < src_.size() && src_[tag + 2] == '+')) {
        size_t keep = t.text.size();
        while (keep > 0 && (t.text[keep - 1] == ' ' || t.text[keep - 1] == '\t')) --keep;
        bool line_start = keep == 0 ? (pos_ == 0 || src_[pos_ - 1] == '\n') : t.text[keep - 1] == '\n';
        if (line_start) t.text.resize(keep);
      }
    }
    if (!t.text.empty()) tokens_.push_back(t);
    Advance(tag);
  }

  // After a closing marker: `-` strips all whitespace, trim_blocks one newline after blocks.
  void AfterClose(bool strip, bool block) {
    if (strip) {
      size_t to = pos_;
      while (to < src_.size() && Space(src_[to])) ++to;
      Advance(to);
    } else if (block && pos_ < src_.size() && src_[pos_] == '\n') {
      Advance(pos_ + 1);
    }
  }

  Status Comment() {
    int line = line_, col = col_;
    size_t end = src_.find("#}", pos_ + 2);
    if (end == std::string::npos) return TemplateError(line, col, "unclosed comment");
    bool strip = end > pos_ + 2 && src_[end - 1] == '-';
    Advance(end + 2);
    AfterClose(strip, true);
    return Status();
  }

  Status Tag() {
    bool stmt = src_[pos_ + 1] == '%';
    const int open_line = line_, open_col = col_;
    tokens_.push_back(Token{stmt ? Token::Type::kOpenStmt : Token::Type::kOpenExpr, "", line_, col_});
    size_t skip = pos_ + 2 < src_.size() && (src_[pos_ + 2] == '-' || src_[pos_ + 2] == '+') ? 3 : 2;
    Advance(pos_ + skip);
    int depth = 0;  // braces of dict literals, so their "}}" does not close the tag
    const std::string close = stmt ? "%}" : "}}";
    while (true) {
      while (pos_ < src_.size() && Space(src_[pos_])) Advance(pos_ + 1);
      if (pos_ >= src_.size()) return TemplateError(open_line, open_col, std::string("unclosed ") + (stmt ? "{%" : "{{"));
      bool dash = src_[pos_] == '-' && src_.compare(pos_ + 1, 2, close) == 0;
      if ((depth == 0 && src_.compare(pos_, 2, close) == 0) || dash) {
        tokens_.push_back(Token{stmt ? Token::Type::kCloseStmt : Token::Type::kCloseExpr, "", line_, col_});
        Advance(pos_ + (dash ? 3 : 2));
        AfterClose(dash, stmt);
        return Status();
      }
      Status st = Next(&depth);
      if (!st.ok()) return st;
    }
  }

  Status Next(int* depth) {
    char c = src_[pos_];
    Token t{Token::Type::kOp, "", line_, col_};
    size_t end = pos_;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (end < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[end])) || src_[end] == '_')) ++end;
      t.type = Token::Type::kName;
      t.text = src_.substr(pos_, end - pos_);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (end < src_.size() && std::isdigit(static_cast<unsigned char>(src_[end]))) ++end;
      t.type = Token::Type::kInt;
      if (end + 1 < src_.size() && src_[end] == '.' && std::isdigit(static_cast<unsigned char>(src_[end + 1]))) {
        for (++end; end < src_.size() && std::isdigit(static_cast<unsigned char>(src_[end]));) ++end;
        t.type = Token::Type::kFloat;
      }
      t.text = src_.substr(pos_, end - pos_);
    } else if (c == '\'' || c == '"') {
      auto s = String(&end);
      if (!s.ok()) return s.status();
      t.type = Token::Type::kString;
      t.text = s.value();
    } else {
      static const char* const kOps[] = {"**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "=",
                                         "(", ")", "[", "]", "{", "}", ",", ".", ":", "|"};
      for (const char* op : kOps) {
        if (src_.compare(pos_, std::char_traits<char>::length(op), op) == 0) {
          t.text = op;
          break;
        }
      }
      if (t.text.empty()) return TemplateError(line_, col_, std::string("unexpected character '") + c + "'");
      end = pos_ + t.text.size();
      *depth += t.text == "{" ? 1 : t.text == "}" ? -1 : 0;
    }
    tokens_.push_back(t);
    Advance(end);
    return Status();
  }

  // A quoted string with Python's escapes; *end is set past the closing quote.
  StatusOr<std::string> String(size_t* end) {
    char quote = src_[pos_];
    std::string out;
    size_t i = pos_ + 1;
    for (; i < src_.size() && src_[i] != quote; ++i) {
      if (src_[i] != '\\' || i + 1 >= src_.size()) {
        out += src_[i];
        continue;
      }
      char e = src_[++i];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case '0': out += '\0'; break;
        case 'u':
        case 'x': {
          size_t n = e == 'u' ? 4 : 2;
          uint32_t cp = 0;
          for (size_t k = 1; k <= n; ++k) {
            char h = i + k < src_.size() ? src_[i + k] : 'g';
            if (!std::isxdigit(static_cast<unsigned char>(h))) return TemplateError(line_, col_, std::string("bad \\") + e + " escape in string");
            cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
          }
          AppendUtf8(cp, &out);
          i += n;
          break;
        }
        default: out += e;  // \\ \' \" and anything else: the character itself
      }
    }
    if (i >= src_.size()) return TemplateError(line_, col_, "unclosed string");
    *end = i + 1;
    return out;
  }

  std::string src_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
  std::vector<Token> tokens_;
};

}  // namespace

StatusOr<std::vector<Token>> Lex(const std::string& source) { return Lexer(source).Run(); }

}  // namespace vt::jinja
