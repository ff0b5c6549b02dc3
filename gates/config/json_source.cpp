#include "gates/config/json_source.h"

#include <set>
#include <vector>

#include "gates/core/file_io.h"

namespace pg {
namespace {

// Positions of offsets in `text`, counted forward from the last one asked: the scanner asks
// in text order, so a file's positions cost one pass over it, not one pass each (a 9 KB
// suites.json took a millisecond of every run).
class LineCursor {
 public:
  explicit LineCursor(const std::string& text) : text_(text) {}
  SourcePos At(size_t offset) {
    if (offset < offset_) {  // never, in the scanner's order; still right if it happens
      offset_ = 0;
      pos_ = SourcePos{};
    }
    for (; offset_ < offset && offset_ < text_.size(); ++offset_) {
      if (text_[offset_] == '\n') {
        ++pos_.line;
        pos_.column = 1;
      } else {
        ++pos_.column;
      }
    }
    return pos_;
  }

 private:
  const std::string& text_;
  size_t offset_ = 0;
  SourcePos pos_;
};

std::string Format(const std::string& path, SourcePos pos) {
  return path + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

}  // namespace

// Walks text that nlohmann already accepted and records the position of every value,
// which nlohmann does not keep. It also finds duplicate keys, which nlohmann silently merges.
class JsonPositionScanner {
 public:
  JsonPositionScanner(const std::string& text, JsonSource& out)
      : text_(text), out_(out), lines_(text) {}

  Status Run() {
    while (i_ < text_.size()) {
      SkipSpaceAndComments();
      if (i_ >= text_.size()) break;
      PG_RETURN_IF_ERROR(Step());
    }
    return Status();
  }

 private:
  struct Frame {
    bool object = false;
    std::string pointer;
    int index = 0;
    std::string key;
    bool expect_key = true;
    std::set<std::string> keys;
  };

  Status Step() {
    char c = text_[i_];
    if (c == '{' || c == '[') return Open(c == '{');
    if (c == '}' || c == ']') {
      stack_.pop_back();
      ++i_;
      return Status();
    }
    if (c == ',') {
      if (!stack_.empty()) {
        Frame& f = stack_.back();
        if (f.object)
          f.expect_key = true;
        else
          ++f.index;
      }
      ++i_;
      return Status();
    }
    if (c == ':') {
      ++i_;
      return Status();
    }
    if (c == '"' && !stack_.empty() && stack_.back().object && stack_.back().expect_key) {
      return Key();
    }
    RecordValue();
    if (c == '"')
      SkipString();
    else
      SkipScalar();
    return Status();
  }

  Status Open(bool object) {
    std::string pointer = RecordValue();
    Frame frame;
    frame.object = object;
    frame.pointer = pointer;
    stack_.push_back(std::move(frame));
    ++i_;
    return Status();
  }

  Status Key() {
    size_t start = i_;
    SkipString();
    // The text already parsed, so this string does too; never throw if it somehow does not.
    Json parsed = Json::parse(text_.substr(start, i_ - start), nullptr, /*allow_exceptions=*/false);
    std::string key = parsed.is_string() ? parsed.get<std::string>() : std::string();
    Frame& f = stack_.back();
    std::string pointer = f.pointer + "/" + JsonSource::Escape(key);
    SourcePos pos = lines_.At(start);
    if (!f.keys.insert(key).second) {
      return Status::Invalid(Format(out_.path_, pos) + ": duplicate key \"" + key + "\"");
    }
    out_.positions_[pointer] = pos;
    f.key = key;
    f.expect_key = false;
    return Status();
  }

  // Records the current value's position unless its key already did; returns its pointer.
  std::string RecordValue() {
    if (stack_.empty()) {
      out_.positions_.emplace("", lines_.At(i_));
      return "";
    }
    const Frame& f = stack_.back();
    std::string pointer = f.object ? f.pointer + "/" + JsonSource::Escape(f.key)
                                   : f.pointer + "/" + std::to_string(f.index);
    out_.positions_.emplace(pointer, lines_.At(i_));
    return pointer;
  }

  void SkipString() {
    for (++i_; i_ < text_.size() && text_[i_] != '"'; ++i_) {
      if (text_[i_] == '\\') ++i_;
    }
    ++i_;
  }

  void SkipScalar() {
    while (i_ < text_.size() &&
           std::string_view(",}] \t\r\n/").find(text_[i_]) == std::string_view::npos)
      ++i_;
  }

  void SkipSpaceAndComments() {
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        ++i_;
      } else if (text_.compare(i_, 2, "//") == 0) {
        size_t end = text_.find('\n', i_);
        i_ = end == std::string::npos ? text_.size() : end;
      } else if (text_.compare(i_, 2, "/*") == 0) {
        size_t end = text_.find("*/", i_ + 2);
        i_ = end == std::string::npos ? text_.size() : end + 2;
      } else {
        return;
      }
    }
  }

  const std::string& text_;
  JsonSource& out_;
  LineCursor lines_;
  size_t i_ = 0;
  std::vector<Frame> stack_;
};

namespace {

// nlohmann's own tree builder, which also hears of errors that carry no byte offset in their
// exception (a number out of range: 1e999), so every error gets a file:line:col.
class PositionedDomParser : public nlohmann::detail::json_sax_dom_parser<Json> {
 public:
  explicit PositionedDomParser(Json& root)
      : json_sax_dom_parser(root, /*allow_exceptions=*/false) {}
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    offset = position;
    what = ex.what();
    // A syntax error is reported one past the offending character; a number out of range
    // just past the number: point at its first digit.
    out_of_range = ex.id == 406 && token.size() <= offset;
    token_size = token.size();
    return json_sax_dom_parser::parse_error(position, token, ex);
  }
  size_t offset = 0, token_size = 0;
  bool out_of_range = false;
  std::string what;
};

// "[json.exception.parse_error.101] parse error at line 3, column 7: syntax error ..." → the
// part after nlohmann's own prefix and position, which the caller states itself.
std::string Reason(std::string what) {
  for (const char* cut : {"syntax error", "number overflow"}) {
    size_t at = what.find(cut);
    if (at != std::string::npos) return what.substr(at);
  }
  size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

}  // namespace

StatusOr<JsonSource> JsonSource::Parse(std::string path, const std::string& text) {
  JsonSource source;
  source.path_ = std::move(path);
  PositionedDomParser dom(source.root_);
  if (!Json::sax_parse(text, &dom, nlohmann::json::input_format_t::json, /*strict=*/true,
                       /*ignore_comments=*/true) ||
      dom.is_errored()) {
    size_t offset = dom.out_of_range ? dom.offset - dom.token_size
                    : dom.offset > 0 ? dom.offset - 1
                                     : 0;
    return Status::Invalid(Format(source.path_, LineCursor(text).At(offset)) +
                           ": invalid JSON: " + Reason(dom.what));
  }
  JsonPositionScanner scanner(text, source);
  PG_RETURN_IF_ERROR(scanner.Run());
  return source;
}

StatusOr<JsonSource> JsonSource::Load(const std::string& path) {
  PG_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return Parse(path, text);
}

SourcePos JsonSource::PositionOf(const std::string& pointer) const {
  std::string p = pointer;
  while (true) {
    auto it = positions_.find(p);
    if (it != positions_.end()) return it->second;
    if (p.empty()) return SourcePos{};
    p = p.substr(0, p.rfind('/'));
  }
}

std::string JsonSource::Where(const std::string& pointer) const {
  return Format(path_, PositionOf(pointer));
}

Status JsonSource::ErrorAt(const std::string& pointer, const std::string& message) const {
  return Status::Invalid(Where(pointer) + ": " + message);
}

std::string JsonSource::Escape(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

}  // namespace pg
