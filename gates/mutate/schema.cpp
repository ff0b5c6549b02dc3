#include "gates/mutate/schema.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <map>
#include <regex>
#include <sstream>
#include <string_view>

#include "gates/core/integer_text.h"
#include "gates/mutate/reach.h"

namespace pg {
namespace {

// For one span, a kind that wraps what it holds comes first: a body, or a negated condition
// (`if (!c)`: the negation, then the `!` inside it). No other kinds share a span.
bool WrapsOthers(SchemaKind k) {
  return k == SchemaKind::kBody || k == SchemaKind::kVoidBody || k == SchemaKind::kNegate;
}

class Renderer {
 public:
  Renderer(const std::string& original, std::vector<SchemaPoint> points, bool c)
      : original_(original), points_(std::move(points)), c_(c) {
    std::sort(points_.begin(), points_.end(), [](const SchemaPoint& a, const SchemaPoint& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      if (a.end != b.end) return a.end > b.end;
      return WrapsOthers(a.kind) &&
             !WrapsOthers(b.kind);  // outer spans first, then the wrapping kind
    });
  }

  std::string Run(std::set<int>* numbers) {
    size_t i = 0;
    size_t unused = std::string::npos;
    std::string out = Render(0, original_.size(), &i, std::string::npos, &unused);
    *numbers = std::move(numbers_);
    return out;
  }

 private:
  // original_[b, e) with the points from *i on that lie inside it rewritten. `track` is an
  // offset in a gap between points whose place in the output is written to *tracked.
  std::string Render(size_t b, size_t e, size_t* i, size_t track, size_t* tracked) {
    std::string out;
    size_t at = b;
    while (*i < points_.size() && points_[*i].begin < e) {
      const SchemaPoint& p = points_[*i];
      ++*i;
      if (p.begin < at || p.end > e) continue;  // overlaps a sibling: left to one-at-a-time
      if (track >= at && track < p.begin) *tracked = out.size() + (track - at);
      out += original_.substr(at, p.begin - at);
      size_t edit = std::string::npos;
      std::string inner =
          Render(p.begin, p.end, i, p.kind == SchemaKind::kEdit ? p.edit_offset : std::string::npos,
                 &edit);
      if (p.kind == SchemaKind::kEdit && edit == std::string::npos)
        continue;  // its bytes lie in a nested point
      out += Wrap(p, inner, edit);
      numbers_.insert(p.number);
      at = p.end;
    }
    // An edit's offset lies inside [b, e) (it has bytes): only whether it is past a nested point
    // matters.
    if (track != std::string::npos && track >= at) *tracked = out.size() + (track - at);
    return out + original_.substr(at, e - at);
  }

  std::string Wrap(const SchemaPoint& p, const std::string& t, size_t edit) const {
    std::string n = std::to_string(p.number);
    std::string on = "proofgate_mutant_on_(" + n + ")";
    std::string open = "/*pg:" + n + "{*/", close = "/*}pg:" + n + "*/";
    switch (p.kind) {
      case SchemaKind::kEdit: {
        std::string mutated =
            p.group_operands ? "(" + t.substr(0, edit) + ")" + p.replacement + "(" +
                                   t.substr(edit + p.edit_length) + ")"
                             : t.substr(0, edit) + p.replacement + t.substr(edit + p.edit_length);
        return open + "(" + on + " ? (" + mutated + ") : (" + t + "))" + close;
      }
      case SchemaKind::kNegate:
        return open + "(" + on + " ? !(" + t + ") : !!(" + t + "))" + close;
      case SchemaKind::kNot:
        return open + "(" + on + " ? !!(" + t.substr(1) + ") : " + t + ")" + close;
      case SchemaKind::kBody:
        return open + "{ if (" + on + ") " + p.replacement + " " + t + " }" + close;
      case SchemaKind::kVoidBody:
        return open + "{ if (" + on + ") { return; } " + t + " }" + close;
      case SchemaKind::kCall:
        return open + "(" + on + " ? " + (c_ ? "(void)0" : "static_cast<void>(0)") + " : " + t +
               ")" + close;
    }
    return t;
  }

  const std::string& original_;
  std::vector<SchemaPoint> points_;
  bool c_;
  std::set<int> numbers_;
};

// The switch: `proofgate_mutant_on_(N)` says whether mutant N is the one PROOFGATE_MUTANT
// names, read once. Under PROOFGATE_REACHED each number is appended to that file the first time
// this unit evaluates it, written at once (a process that aborts or _exits keeps its record).
// Its body calls libc through the four names given; no macros, casts or 0 as a pointer, so
// strict warning sets (-Werror, -Wold-style-cast, C89 -pedantic) build it.
std::string SwitchBody(const std::string& getenv_fn, const std::string& fopen_fn,
                       const std::string& fputs_fn, const std::string& fclose_fn,
                       const std::string& file_type) {
  // Every name is proofgate's: the file's own globals and macros come before the body, and a
  // local named `f` beside a global `f` fails -Wshadow -Werror.
  std::string limit = std::to_string(kReachLimit);
  return " int proofgate_mutant_on_(int proofgate_id_) { static int proofgate_on_ = -1; "
         "static const char* proofgate_reached_; static unsigned int proofgate_seen_[" +
         std::to_string(kReachLimit / 32) +
         "]; static const char proofgate_digits_[] = \"0123456789\"; "
         "if (proofgate_on_ < 0) { const char* proofgate_v_ = " +
         getenv_fn + "(\"" + kMutantVariable +
         "\"); "
         "proofgate_on_ = 0; for (; proofgate_v_ && *proofgate_v_ >= '0' && *proofgate_v_ <= '9'; "
         "++proofgate_v_) "
         "proofgate_on_ = proofgate_on_ * 10 + (*proofgate_v_ - '0'); "
         "proofgate_reached_ = " +
         getenv_fn + "(\"" + kReachVariable +
         "\"); } "
         "if (proofgate_reached_ && proofgate_id_ >= 0 && proofgate_id_ < " +
         limit +
         " && !(proofgate_seen_[proofgate_id_ / 32] & (1u << (proofgate_id_ % 32)))) { "
         "char proofgate_line_[16]; int proofgate_at_ = 15, proofgate_n_ = proofgate_id_; " +
         file_type + " proofgate_f_ = " + fopen_fn +
         "(proofgate_reached_, \"a\"); "
         "proofgate_seen_[proofgate_id_ / 32] |= 1u << (proofgate_id_ % 32); "
         "proofgate_line_[15] = '\\0'; proofgate_line_[--proofgate_at_] = '\\n'; "
         "do { proofgate_line_[--proofgate_at_] = proofgate_digits_[proofgate_n_ % 10]; "
         "proofgate_n_ /= 10; } "
         "while (proofgate_n_ > 0); if (proofgate_f_) { " +
         fputs_fn + "(proofgate_line_ + proofgate_at_, proofgate_f_); " + fclose_fn +
         "(proofgate_f_); } } return proofgate_on_ == proofgate_id_; }\n";
}

// The file that declares the switch is the one that defines it: a number of its own, from its
// path (a header's schema and its includer's share one declaration, the first one's).
int SwitchOwner(const std::string& file) {
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : file) h = (h ^ c) * 16777619u;
  return static_cast<int>(h % 1000000000u) + 1;
}

// Before the file's first line only the switch's declaration and `#line 1` (which keeps the
// file's own line numbers): no header, so the file's own feature-test macros (`_GNU_SOURCE`)
// still come before any system header (uriparser's UriMemory.c: an `#include <stdlib.h>` here
// made `reallocarray` an implicit declaration). `static inline`: a unit that uses none of it
// must not warn. C89 has no `inline`: GCC and Clang take `__inline__` in every mode. The guard's
// value is read by the epilogue (whose file defines the switch): -Wunused-macros finds it used.
std::string Prologue(int owner) {
  std::string id = std::to_string(owner);
  return "#ifndef PROOFGATE_MUTANT_ON_\n#define PROOFGATE_MUTANT_ON_ " + id +
         "\n#if defined(__GNUC__) || defined(__clang__)\n"
         "static __inline__ int proofgate_mutant_on_(int proofgate_id_);\n#else\n"
         "static inline int proofgate_mutant_on_(int proofgate_id_);\n"
         "#endif\n#endif\n#line 1\n";
}

// After the file's last line, the definition, in the file that declared it. GCC and Clang reach
// libc through asm labels, names of proofgate's own bound to the symbols: no header, and no macro
// the file defines (`#define free ...`) rewrites them. Others include the headers here.
std::string Epilogue(int owner) {
  std::string id = std::to_string(owner);
  return "#if PROOFGATE_MUTANT_ON_ == " + id +
         "\n#if defined(__GNUC__) || defined(__clang__)\n"
         "extern char* proofgate_getenv_(const char*) __asm__(\"getenv\");\n"
         "extern void* proofgate_fopen_(const char*, const char*) __asm__(\"fopen\");\n"
         "extern int proofgate_fputs_(const char*, void*) __asm__(\"fputs\");\n"
         "extern int proofgate_fclose_(void*) __asm__(\"fclose\");\n"
         "static __inline__" +
         SwitchBody("proofgate_getenv_", "proofgate_fopen_", "proofgate_fputs_",
                    "proofgate_fclose_", "void*") +
         "#else\n#include <stdio.h>\n#include <stdlib.h>\nstatic inline" +
         SwitchBody("getenv", "fopen", "fputs", "fclose", "FILE*") + "#endif\n#endif\n";
}

}  // namespace

SchemaText RenderSchema(const std::string& original, const Schema& schema,
                        const std::set<int>& dropped) {
  std::vector<SchemaPoint> kept;
  for (const SchemaPoint& p : schema.points) {
    if (!dropped.count(p.number) && !p.alone) kept.push_back(p);
  }
  SchemaText out;
  std::string body = Renderer(original, std::move(kept), schema.c_language).Run(&out.numbers);
  if (!body.empty() && body.back() != '\n') body += '\n';
  int owner = SwitchOwner(schema.file);
  out.text = Prologue(owner) + body + Epilogue(owner);
  return out;
}

namespace {

// Where each point's markers lie in a rendered file's body (after `#line 1`): bytes from the
// opening marker's first to the closing one's last, and the lines (from 1) they open and close on.
struct MarkedSpan {
  size_t begin = 0, end = 0;
  int first = 0, last = 0;
};

// How a log counts columns: Clang in bytes, GCC in display columns; when the log shows
// neither's mark (Clang's "N errors generated.", GCC's `  N | ` source margin), both readings.
enum class ColumnUnit { kBytes, kDisplay, kEither };

ColumnUnit UnitOf(const std::string& log) {
  if (std::regex_search(log, std::regex(R"((^|\n)\d+ errors? generated\.)")))
    return ColumnUnit::kBytes;
  if (std::regex_search(log, std::regex(R"((^|\n) +\d+ \| )"))) return ColumnUnit::kDisplay;
  return ColumnUnit::kEither;
}

std::vector<size_t> LineStarts(const std::string& text) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

class MarkerMap {
 public:
  explicit MarkerMap(const std::string& text) : text_(text) {
    size_t body = text.find("#line 1\n");
    rendered_ = body == std::string::npos ? text : text.substr(body + 8);
    starts_ = LineStarts(rendered_);
    text_starts_ = LineStarts(text_);
    std::regex marker(R"(/\*(\}?)pg:(\d+)(\{?)\*/)");
    for (std::sregex_iterator it(rendered_.begin(), rendered_.end(), marker), end; it != end;
         ++it) {
      auto id = ParseInteger((*it)[2].str());
      if (!id || *id > INT_MAX) continue;  // not a marker this file wrote
      MarkedSpan& span = spans_[static_cast<int>(*id)];
      size_t at = static_cast<size_t>(it->position());
      if ((*it)[1].length() == 0)
        span.begin = at, span.first = LineOf(at);
      else
        span.end = at + static_cast<size_t>(it->length()), span.last = LineOf(at);
    }
  }

  // The points one log location blames (specs/mutate-generate.md, Schemata); empty when no
  // point's lines hold `line`. `column` is 0 when the log named none.
  std::set<int> Blamed(int line, int column, ColumnUnit unit) const {
    int narrowest = 1 << 30;
    for (const auto& [n, span] : spans_) {
      if (span.first <= line && line <= span.last)
        narrowest = std::min(narrowest, span.last - span.first);
    }
    std::set<int> on_line, at_column;
    for (const auto& [n, span] : spans_) {
      if (span.first <= line && line <= span.last && span.last - span.first == narrowest)
        on_line.insert(n);
    }
    for (size_t offset : ColumnOffsets(line, column, unit)) {
      int inner = Innermost(offset);
      if (!on_line.count(inner))
        return on_line;  // the column lies outside the line's innermost points
      at_column.insert(inner);
    }
    return at_column.empty() ? on_line : at_column;
  }

 private:
  int LineOf(size_t offset) const {
    return static_cast<int>(std::upper_bound(starts_.begin(), starts_.end(), offset) -
                            starts_.begin());
  }

  // The point with the narrowest span around `offset`, 0 when none holds it.
  int Innermost(size_t offset) const {
    int best = 0;
    size_t width = std::string::npos;
    for (const auto& [n, span] : spans_) {
      if (span.begin <= offset && offset < span.end && span.end - span.begin < width)
        best = n, width = span.end - span.begin;
    }
    return best;
  }

  // The bytes a log's column may name on `line`: Clang counts bytes, GCC (11 on) display
  // columns. None past the line's end.
  std::vector<size_t> ColumnOffsets(int line, int column, ColumnUnit unit) const {
    if (column < 1 || line < 1 || static_cast<size_t>(line) > starts_.size()) return {};
    size_t begin = starts_[static_cast<size_t>(line) - 1];
    size_t end = std::min(rendered_.find('\n', begin), rendered_.size());
    std::vector<size_t> offsets;
    size_t byte = static_cast<size_t>(column);
    if (unit != ColumnUnit::kDisplay && begin + byte - 1 < end) offsets.push_back(begin + byte - 1);
    if (unit == ColumnUnit::kBytes) return offsets;
    byte = ByteColumnOf(PhysicalLine(line), column);
    if (byte > 0 && begin + byte - 1 < end &&
        (offsets.empty() || offsets.front() != begin + byte - 1)) {
      offsets.push_back(begin + byte - 1);
    }
    return offsets;
  }

  // GCC turns a byte column into a display column by reading the line by its number, which
  // `#line 1` made the original's: so it reads the rendered file's physical line of that
  // number, prelude included, not the line the error is on.
  std::string_view PhysicalLine(int line) const {
    if (static_cast<size_t>(line) > text_starts_.size()) return {};
    size_t begin = text_starts_[static_cast<size_t>(line) - 1];
    return std::string_view(text_).substr(begin,
                                          std::min(text_.find('\n', begin), text_.size()) - begin);
  }

  // The byte column that GCC's `display` column names on `physical`: a tab counts to the next
  // multiple of 8, a byte past the line's end counts 1. 0 when none: inside a tab, or past a
  // byte past ASCII (a character's width is the terminal's to say).
  static size_t ByteColumnOf(std::string_view physical, int display) {
    int at = 1;  // the display column of byte i
    for (size_t i = 0;; ++i) {
      if (at == display) return i + 1;
      if (at > display) return 0;
      if (i >= physical.size()) return i + 1 + static_cast<size_t>(display - at);
      unsigned char c = static_cast<unsigned char>(physical[i]);
      if (c >= 0x80) return 0;
      at = c == '\t' ? (at - 1) / 8 * 8 + 9 : at + 1;
    }
  }

  std::string text_, rendered_;               // the whole file; its body, after `#line 1`
  std::vector<size_t> text_starts_, starts_;  // each line's first byte in each
  std::map<int, MarkedSpan> spans_;
};

// Where a log line places `file`: `PATH/file:LINE:` or `PATH/file:LINE:COLUMN:`, the path
// starting the line (after "In file included from " and the like, never after a message's
// ": "). A path may hold spaces, as a checkout's or a file's name may. False when none.
bool PlacedIn(const std::string& l, const std::string& file, int* line, int* column, size_t* end) {
  std::string key = file + ":";
  for (size_t at = l.find(key); at != std::string::npos; at = l.find(key, at + 1)) {
    if (at > 0 && l[at - 1] != '/' && l[at - 1] != ' ') continue;
    if (l.substr(0, at).find(": ") != std::string::npos) return false;
    size_t i = at + key.size(), digits = i;
    while (i < l.size() && std::isdigit(static_cast<unsigned char>(l[i]))) ++i;
    if (i == digits || i >= l.size() || l[i] != ':') continue;
    // A number past int's range is no line of a file (a 10-digit one once aborted the run).
    auto at_line = ParseInteger(l.substr(digits, i - digits));
    if (!at_line || *at_line > INT_MAX) continue;
    *line = static_cast<int>(*at_line);
    size_t more = ++i;
    while (i < l.size() && std::isdigit(static_cast<unsigned char>(l[i]))) ++i;
    auto at_column = ParseInteger(l.substr(more, i - more));
    bool has_column = at_column && *at_column <= INT_MAX && i < l.size() && l[i] == ':';
    *column = has_column ? static_cast<int>(*at_column) : 0;
    *end = has_column ? i + 1 : more;
    return true;
  }
  return false;
}

}  // namespace

SchemaBlame PointsBlamed(const std::string& build_log, const std::string& file,
                         const std::string& text) {
  MarkerMap markers(text);
  ColumnUnit unit = UnitOf(build_log);
  SchemaBlame blamed;
  std::set<int> by_context;  // notes and `required from here`: used when no error line blames
  std::istringstream log(build_log);
  for (std::string l; std::getline(log, l);) {
    int line = 0, column = 0;
    size_t end = 0;
    if (!PlacedIn(l, file, &line, &column, &end)) continue;
    std::set<int> points = markers.Blamed(line, column, unit);
    bool error = l.find("error", end) != std::string::npos;
    (error ? blamed.points : by_context).insert(points.begin(), points.end());
    if (points.empty() && error) blamed.unexplained = true;
  }
  if (blamed.points.empty()) blamed.points = std::move(by_context);
  return blamed;
}

}  // namespace pg
