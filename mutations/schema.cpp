#include "mutations/schema.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

#include "mutations/reach.h"

namespace pg {
namespace {

// For one span, a kind that wraps what it holds comes first: a body, or a negated condition
// (`if (!c)`: the negation, then the `!` inside it). No other kinds share a span.
bool WrapsOthers(SchemaKind k) { return k == SchemaKind::kBody || k == SchemaKind::kVoidBody || k == SchemaKind::kNegate; }

class Renderer {
 public:
  Renderer(const std::string& original, std::vector<SchemaPoint> points, bool c)
      : original_(original), points_(std::move(points)), c_(c) {
    std::sort(points_.begin(), points_.end(), [](const SchemaPoint& a, const SchemaPoint& b) {
      if (a.begin != b.begin) return a.begin < b.begin;
      if (a.end != b.end) return a.end > b.end;
      return WrapsOthers(a.kind) && !WrapsOthers(b.kind);  // outer spans first, then the wrapping kind
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
      std::string inner = Render(p.begin, p.end, i, p.kind == SchemaKind::kEdit ? p.edit_offset : std::string::npos, &edit);
      if (p.kind == SchemaKind::kEdit && edit == std::string::npos) continue;  // its bytes lie in a nested point
      out += Wrap(p, inner, edit);
      numbers_.insert(p.number);
      at = p.end;
    }
    // An edit's offset lies inside [b, e) (it has bytes): only whether it is past a nested point matters.
    if (track != std::string::npos && track >= at) *tracked = out.size() + (track - at);
    return out + original_.substr(at, e - at);
  }

  std::string Wrap(const SchemaPoint& p, const std::string& t, size_t edit) const {
    std::string n = std::to_string(p.number);
    std::string on = "proofgate_mutant_on_(" + n + ")";
    std::string open = "/*pg:" + n + "{*/", close = "/*}pg:" + n + "*/";
    switch (p.kind) {
      case SchemaKind::kEdit: {
        std::string mutated = p.group_operands
                                  ? "(" + t.substr(0, edit) + ")" + p.replacement + "(" + t.substr(edit + p.edit_length) + ")"
                                  : t.substr(0, edit) + p.replacement + t.substr(edit + p.edit_length);
        return open + "(" + on + " ? (" + mutated + ") : (" + t + "))" + close;
      }
      case SchemaKind::kNegate: return open + "(" + on + " ? !(" + t + ") : !!(" + t + "))" + close;
      case SchemaKind::kNot: return open + "(" + on + " ? !!(" + t.substr(1) + ") : " + t + ")" + close;
      case SchemaKind::kBody: return open + "{ if (" + on + ") " + p.replacement + " " + t + " }" + close;
      case SchemaKind::kVoidBody: return open + "{ if (" + on + ") { return; } " + t + " }" + close;
      case SchemaKind::kCall:
        return open + "(" + on + " ? " + (c_ ? "(void)0" : "static_cast<void>(0)") + " : " + t + ")" + close;
    }
    return t;
  }

  const std::string& original_;
  std::vector<SchemaPoint> points_;
  bool c_;
  std::set<int> numbers_;
};

// The switch reads the variables once; `#line 1` keeps the file's own line numbers. Guarded and
// `static inline`: a header's schema and its includer's both carry it into one translation
// unit, and a unit that uses none of it must not warn (-Werror builds: no casts, no 0 as a
// pointer). C89 has no `inline`: GCC and Clang take `__inline__` in every mode; the guard is
// read once after its definition so that -Wunused-macros finds it used. Under
// PROOFGATE_REACHED each number is appended to that file the first time this unit evaluates
// it, written at once (a process that aborts or _exits keeps its record).
std::string Prelude() {
  std::string limit = std::to_string(kReachLimit);
  std::string body = " int proofgate_mutant_on_(int id) { static int on = -1; static const char* reached; "
                     "static unsigned int seen[" + std::to_string(kReachLimit / 32) + "]; if (on < 0) { const char* v = getenv(\"" +
                     kMutantVariable + "\"); on = v ? atoi(v) : 0; reached = getenv(\"" + kReachVariable + "\"); } "
                     "if (reached && id < " + limit + " && !(seen[id / 32] & (1u << (id % 32)))) { FILE* f = fopen(reached, \"a\"); "
                     "seen[id / 32] |= 1u << (id % 32); if (f) { fprintf(f, \"%d\\n\", id); fclose(f); } } return on == id; }\n";
  return "#include <stdio.h>\n#include <stdlib.h>\n#ifndef PROOFGATE_MUTANT_ON_\n#define PROOFGATE_MUTANT_ON_ 1\n"
         "#if PROOFGATE_MUTANT_ON_ && (defined(__GNUC__) || defined(__clang__))\nstatic __inline__" + body +
         "#else\nstatic inline" + body + "#endif\n#endif\n#line 1\n";
}

}  // namespace

SchemaText RenderSchema(const std::string& original, const Schema& schema, const std::set<int>& dropped) {
  std::vector<SchemaPoint> kept;
  for (const SchemaPoint& p : schema.points) {
    if (!dropped.count(p.number)) kept.push_back(p);
  }
  SchemaText out;
  out.text = Prelude() + Renderer(original, std::move(kept), schema.c_language).Run(&out.numbers);
  return out;
}

SchemaBlame PointsBlamed(const std::string& build_log, const std::string& file, const std::string& text) {
  // Where each point's markers open and close, by line after the prelude (what #line 1 numbers).
  size_t body = text.find("#line 1\n");
  std::string rendered = body == std::string::npos ? text : text.substr(body + 8);
  std::map<int, std::pair<int, int>> lines;
  std::regex marker(R"(/\*(\}?)pg:(\d+)(\{?)\*/)");
  int line = 1;
  size_t counted = 0;
  for (std::sregex_iterator it(rendered.begin(), rendered.end(), marker), end; it != end; ++it) {
    line += static_cast<int>(std::count(rendered.begin() + static_cast<long>(counted),
                                        rendered.begin() + it->position(), '\n'));
    counted = static_cast<size_t>(it->position());
    int n = std::stoi((*it)[2]);
    if ((*it)[1].length() == 0) lines[n].first = line;
    else lines[n].second = line;
  }
  SchemaBlame blamed;
  std::regex where("([^\\s:]+):(\\d+):(\\d+:)?");
  std::istringstream log(build_log);
  for (std::string l; std::getline(log, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, where)) continue;
    std::string path = m[1];
    if (path.size() < file.size() || path.compare(path.size() - file.size(), file.size(), file) != 0) continue;
    int at = std::stoi(m[2]);
    int best_width = 1 << 30;
    for (const auto& [n, span] : lines) {
      if (span.first <= at && at <= span.second) best_width = std::min(best_width, span.second - span.first);
    }
    // Every innermost point around the line: a line holds several, the log names no column of ours.
    for (const auto& [n, span] : lines) {
      if (span.first <= at && at <= span.second && span.second - span.first == best_width) blamed.points.insert(n);
    }
    if (best_width == 1 << 30 && l.find("error", static_cast<size_t>(m.position(0) + m.length(0))) != std::string::npos) {
      blamed.unexplained = true;
    }
  }
  return blamed;
}

}  // namespace pg
