#include "gates/prove/test_bodies.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "gates/core/file_io.h"
#include "gates/core/sha256.h"
#include "gates/runner/input_glob.h"

namespace pg {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The index just past the literal that opens at `at` (a quote; after an `R` prefix, a raw
// string's `"delim(...)delim"`), escapes skipped; the end of `s` when it never closes.
size_t LiteralEnd(const std::string& s, size_t at, bool raw) {
  if (raw) {
    size_t paren = s.find('(', at);
    if (paren == std::string::npos) return s.size();
    size_t end = s.find(")" + s.substr(at + 1, paren - at - 1) + "\"", paren);
    return end == std::string::npos ? s.size() : end + (paren - at) + 1;
  }
  size_t i = at + 1;
  for (; i < s.size() && s[i] != s[at]; ++i) i += s[i] == '\\';
  return std::min(i + 1, s.size());
}

// A quote that is a digit separator (1'000), not a character literal's.
bool IsSeparator(const std::string& s, size_t i) {
  return s[i] == '\'' && i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]));
}

// The index just past the brace that closes the one at `open`, skipping string, raw string and
// character literals and comments; npos when it never closes.
size_t BodyEnd(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if ((c == '"' || c == '\'') && !IsSeparator(s, i)) {
      i = LiteralEnd(s, i, c == '"' && s[i - 1] == 'R') - 1;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      i = s.find('\n', i);
      if (i == std::string::npos) return i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i = s.find("*/", i + 2);
      if (i == std::string::npos) return i;
      ++i;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return std::string::npos;
}

std::string Normalised(const std::string& body) {
  std::string out;
  bool space = false;
  for (char c : body) {
    bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (ws) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// A C or C++ body as clang-format cannot change it (specs/change-proof.md): comments dropped,
// white space kept only between two word characters, literals as written, adjacent string
// literals joined as the compiler joins them. A reformat respaces operators, splits a long
// literal and reflows comments: none of that changes what a test proves.
std::string CodeNormalised(const std::string& body) {
  std::string out;
  bool space = false, after_string = false;
  for (size_t i = 0; i < body.size();) {
    char c = body[i];
    if (c == '/' && i + 1 < body.size() && (body[i + 1] == '/' || body[i + 1] == '*')) {
      size_t end = body[i + 1] == '/' ? body.find('\n', i) : body.find("*/", i + 2);
      i = end == std::string::npos ? body.size() : end + (body[i + 1] == '/' ? 0 : 2);
      space = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      ++i;
      continue;
    }
    if ((c == '"' || c == '\'') && !IsSeparator(body, i)) {
      bool raw = c == '"' && !out.empty() && out.back() == 'R';
      size_t end = LiteralEnd(body, i, raw);
      bool joins = c == '"' && !raw && after_string;
      if (joins) out.pop_back();  // "ab" "c" is "abc"
      out += body.substr(joins ? i + 1 : i, end - (joins ? i + 1 : i));
      after_string = c == '"' && !raw;
      space = false;
      i = end;
      continue;
    }
    if (space && !out.empty() && IsWordChar(out.back()) && IsWordChar(c)) out += ' ';
    out += c;
    space = after_string = false;
    ++i;
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> GtestBodies(const std::string& source) {
  static const std::regex kTest(R"(\bTEST(?:_F|_P)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{)");
  std::map<std::string, std::string> out;
  for (std::sregex_iterator it(source.begin(), source.end(), kTest), end; it != end; ++it) {
    size_t open = static_cast<size_t>(it->position(0) + it->length(0) - 1);
    size_t close = BodyEnd(source, open);
    if (close == std::string::npos) continue;
    out[(*it)[1].str() + "." + (*it)[2].str()] =
        Sha256Hex(CodeNormalised(source.substr(open, close - open)));
  }
  return out;
}

namespace {

// A Python line's shape: its indent, and how much it opens brackets (a line inside an open
// bracket continues a statement and starts nothing). Strings are skipped, not parsed.
struct PyLine {
  size_t indent = 0;
  int opens = 0;
  bool code = false;                   // not blank, not only a comment
  size_t comment = std::string::npos;  // where a comment starts: no part of a test's body
};

PyLine ShapeOf(const std::string& line) {
  PyLine l;
  l.indent = line.find_first_not_of(" \t");
  if (l.indent == std::string::npos || line[l.indent] == '#') {
    l.comment = l.indent;
    return l;
  }
  l.code = true;
  for (size_t i = l.indent; i < line.size(); ++i) {
    char c = line[i];
    if (c == '#') {
      l.comment = i;
      break;
    }
    if (c == '"' || c == '\'') {
      for (++i; i < line.size() && line[i] != c; ++i) i += line[i] == '\\';
    } else if (c == '(' || c == '[' || c == '{') {
      ++l.opens;
    } else if (c == ')' || c == ']' || c == '}') {
      --l.opens;
    }
  }
  return l;
}

// Whether a triple-quoted string opens or closes on `line` (an odd count of one kind).
bool TogglesTripleQuote(const std::string& line) {
  size_t n = 0;
  for (const char* q : {"\"\"\"", "'''"}) {
    for (size_t at = line.find(q); at != std::string::npos; at = line.find(q, at + 3)) ++n;
  }
  return n % 2 == 1;
}

struct PyScope {
  size_t indent;
  std::string name;
  bool function;
};

// A class's test methods it inherits from a class of the same module (`class TestB(TestA)`):
// pytest lists them under the derived class, with the base's body. Chains are followed.
void AddInherited(const std::map<std::string, std::string>& bases,
                  std::map<std::string, std::string>* out) {
  for (int depth = 0; depth < 8; ++depth) {
    bool added = false;
    for (const auto& [cls, written] : bases) {
      std::istringstream names(written);
      for (std::string base; std::getline(names, base, ',');) {
        base.erase(0, base.find_first_not_of(" \t"));
        base.erase(base.find_last_not_of(" \t") + 1);
        std::string parent = cls.substr(0, cls.rfind('.') + 1) + base;  // a class beside it
        std::vector<std::pair<std::string, std::string>> inherited;
        for (auto it = out->lower_bound(parent + ".");
             it != out->end() && it->first.starts_with(parent + "."); ++it) {
          std::string method = it->first.substr(parent.size() + 1);
          if (method.find('.') == std::string::npos)
            inherited.emplace_back(cls + "." + method, it->second);
        }
        for (const auto& entry : inherited)
          added = out->insert(entry).second || added;  // its own method stays its own
      }
    }
    if (!added) return;
  }
}

// "tests/test_more.py" → "tests.test_more": the dotted name pytest's JUnit report gives its cases.
std::string ModuleOf(const std::string& rel) {
  std::string m = rel.substr(0, rel.size() - 3);
  std::replace(m.begin(), m.end(), '/', '.');
  return m;
}

}  // namespace

std::map<std::string, std::string> PytestBodies(const std::string& module,
                                                const std::string& source) {
  static const std::regex kDef(R"(^(?:async\s+)?def\s+(\w+))"),
      kClass(R"(^class\s+(\w+)\s*(?:\(([^)]*)\))?)");
  std::map<std::string, std::string>
      bases;  // a class's dotted name → what it derives from, as written
  std::vector<std::string> lines;
  std::istringstream in(source);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::map<std::string, std::string> out;
  std::vector<PyScope> scopes;
  std::string open_name;  // the test whose body is being read
  size_t open_indent = 0, open_start = 0, decorators = std::string::npos;
  int depth = 0;
  bool in_string = false;
  auto close = [&](size_t end) {
    std::string body;
    for (size_t k = open_start; k < end; ++k)
      body += lines[k].substr(0, ShapeOf(lines[k]).comment) + "\n";
    out[open_name] = Sha256Hex(Normalised(body));
    open_name.clear();
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    PyLine l = ShapeOf(lines[i]);
    bool starts = !in_string && depth == 0 && l.code;
    if (TogglesTripleQuote(lines[i])) in_string = !in_string;
    if (!in_string) depth = std::max(0, depth + l.opens);
    if (!starts) continue;
    if (!open_name.empty() && l.indent <= open_indent) close(i);
    while (!scopes.empty() && scopes.back().indent >= l.indent) scopes.pop_back();
    std::string text = lines[i].substr(l.indent);
    std::smatch m;
    if (text[0] == '@') {
      if (decorators == std::string::npos) decorators = i;
      continue;
    }
    size_t first = decorators != std::string::npos ? decorators : i;
    decorators = std::string::npos;
    bool in_function =
        std::any_of(scopes.begin(), scopes.end(), [](const PyScope& s) { return s.function; });
    if (std::regex_search(text, m, kClass)) {
      std::string name = module;
      for (const PyScope& s : scopes) name += "." + s.name;
      if (!in_function) bases[name + "." + m[1].str()] = m[2];
      scopes.push_back({l.indent, m[1], false});
    } else if (std::regex_search(text, m, kDef)) {
      if (!in_function && m[1].str().starts_with("test")) {
        open_name = module;
        for (const PyScope& s : scopes) open_name += "." + s.name;
        open_name += "." + m[1].str(), open_indent = l.indent, open_start = first;
      }
      scopes.push_back({l.indent, m[1], true});
    }
  }
  if (!open_name.empty()) close(lines.size());
  AddInherited(bases, &out);
  return out;
}

std::map<std::string, std::string> CaseBodies(const std::string& source) {
  // Catch2's and doctest's cases are named by a string: catch_discover_tests and
  // doctest_discover_tests give each ctest test that name (a Catch2 scenario's with its prefix).
  static const std::regex kNamed(
      R"re(\b(TEST_CASE|SCENARIO|TEST_CASE_METHOD\s*\(\s*[\w:]+\s*,)\s*\(?\s*"((?:[^"\\\n]|\\.)*)"[^{;]*\{)re");
  std::map<std::string, std::string> out = GtestBodies(source);
  for (std::sregex_iterator it(source.begin(), source.end(), kNamed), end; it != end; ++it) {
    size_t open = static_cast<size_t>(it->position(0) + it->length(0) - 1);
    size_t close = BodyEnd(source, open);
    if (close == std::string::npos) continue;
    std::string name = ((*it)[1].str() == "SCENARIO" ? "Scenario: " : "") + (*it)[2].str();
    out[name] = Sha256Hex(CodeNormalised(source.substr(open, close - open)));
  }
  return out;
}

StatusOr<std::map<std::string, TestFile>> TreeTestFiles(const std::string& tree,
                                                        const std::vector<std::string>& globs) {
  std::map<std::string, TestFile> out;
  for (const std::string& rel : ExpandGlobs(tree, globs)) {
    PG_ASSIGN_OR_RETURN(std::string text, ReadFile(tree + "/" + rel));
    TestFile& f = out[rel];
    f.hash = Sha256Hex(text);
    f.bodies = rel.ends_with(".py") ? PytestBodies(ModuleOf(rel), text) : CaseBodies(text);
  }
  return out;
}

}  // namespace pg
