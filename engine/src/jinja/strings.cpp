// Case mapping is ASCII-only: chat templates upper/lower role names and keywords, not prose.
#include "strings.h"

#include <algorithm>
#include <cctype>

#include "interpreter.h"

namespace vt::jinja {
namespace {

bool PySpace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f); }

}  // namespace

// Python's str.isspace() beyond ASCII: NEL, NBSP, the Zs spaces and the line separators.
bool UnicodeSpace(const std::string& c) {
  static const char* const kSpaces[] = {"\xc2\x85", "\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\xa8", "\xe2\x80\xa9",
                                        "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80"};
  for (const char* s : kSpaces) {
    if (c == s) return true;
  }
  return c.size() == 3 && c[0] == '\xe2' && c[1] == '\x80' && static_cast<unsigned char>(c[2]) >= 0x80 && static_cast<unsigned char>(c[2]) <= 0x8a;
}

// Python's str.strip/lstrip/rstrip: `chars` (a set of code points) or, when not a string,
// whitespace as str.isspace() sees it.
std::string Strip(const std::string& s, const Value& chars, bool left, bool right) {
  std::vector<std::string> cps = CodePoints(s);
  std::vector<std::string> set = chars.is_string() ? CodePoints(chars.AsString()) : std::vector<std::string>();
  auto strip = [&](const std::string& c) {
    if (chars.is_string()) return std::find(set.begin(), set.end(), c) != set.end();
    return (c.size() == 1 && PySpace(static_cast<unsigned char>(c[0]))) || UnicodeSpace(c);
  };
  size_t b = 0, e = cps.size();
  while (left && b < e && strip(cps[b])) ++b;
  while (right && e > b && strip(cps[e - 1])) --e;
  std::string out;
  for (size_t i = b; i < e; ++i) out += cps[i];
  return out;
}

Array Split(const std::string& s, const Value& sep, int64_t maxsplit) {
  Array out;
  if (!sep.is_string()) {  // runs of whitespace, none at the ends
    size_t i = 0;
    while (true) {
      while (i < s.size() && PySpace(static_cast<unsigned char>(s[i]))) ++i;
      if (i >= s.size()) break;
      if (maxsplit >= 0 && static_cast<int64_t>(out.size()) == maxsplit) {
        out.push_back(Value::String(Strip(s.substr(i), Value(), false, true)));
        break;
      }
      size_t j = i;
      while (j < s.size() && !PySpace(static_cast<unsigned char>(s[j]))) ++j;
      out.push_back(Value::String(s.substr(i, j - i)));
      i = j;
    }
    return out;
  }
  const std::string& d = sep.AsString();
  size_t from = 0;
  for (size_t at; !d.empty() && (maxsplit < 0 || static_cast<int64_t>(out.size()) < maxsplit) && (at = s.find(d, from)) != std::string::npos;
       from = at + d.size()) {
    out.push_back(Value::String(s.substr(from, at - from)));
  }
  out.push_back(Value::String(s.substr(from)));
  return out;
}

std::string Replace(const std::string& s, const std::string& from, const std::string& to, int64_t count) {
  std::string out;
  size_t pos = 0;
  for (int64_t n = 0; count < 0 || n < count; ++n) {
    size_t at = from.empty() ? (pos <= s.size() ? pos : std::string::npos) : s.find(from, pos);
    if (at == std::string::npos) break;
    out += s.substr(pos, at - pos) + to;
    if (from.empty()) {
      if (at < s.size()) out += s[at];
      pos = at + 1;
    } else {
      pos = at + from.size();
    }
  }
  return pos <= s.size() ? out + s.substr(pos) : out;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Title(const std::string& s) {
  std::string out = s;
  bool start = true;
  for (char& c : out) {
    bool alpha = std::isalpha(static_cast<unsigned char>(c)) != 0;
    c = static_cast<char>(alpha && start ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
    start = !alpha;
  }
  return out;
}

std::string Capitalize(const std::string& s) {
  std::string out = Lower(s);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

}  // namespace vt::jinja
