#include "changes/test_bodies.h"

#include <regex>

#include "core/file_io.h"
#include "core/sha256.h"
#include "runner/input_glob.h"

namespace pg {
namespace {

// The index just past the brace that closes the one at `open`, skipping string and character
// literals and comments; npos when it never closes.
size_t BodyEnd(const std::string& s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' || c == '\'') {
      for (++i; i < s.size() && s[i] != c; ++i) i += s[i] == '\\';
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

}  // namespace

std::map<std::string, std::string> GtestBodies(const std::string& source) {
  static const std::regex kTest(R"(\bTEST(?:_F|_P)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{)");
  std::map<std::string, std::string> out;
  for (std::sregex_iterator it(source.begin(), source.end(), kTest), end; it != end; ++it) {
    size_t open = static_cast<size_t>(it->position(0) + it->length(0) - 1);
    size_t close = BodyEnd(source, open);
    if (close == std::string::npos) continue;
    out[(*it)[1].str() + "." + (*it)[2].str()] = Sha256Hex(Normalised(source.substr(open, close - open)));
  }
  return out;
}

StatusOr<std::map<std::string, std::string>> TreeGtestBodies(const std::string& tree, const std::vector<std::string>& globs) {
  std::map<std::string, std::string> out;
  for (const std::string& rel : ExpandGlobs(tree, globs)) {
    PG_ASSIGN_OR_RETURN(std::string text, ReadFile(tree + "/" + rel));
    for (auto& [name, hash] : GtestBodies(text)) out[name] = hash;
  }
  return out;
}

}  // namespace pg
