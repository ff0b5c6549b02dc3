#include "client_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace vtserve {
namespace {

// The length of the well-formed UTF-8 sequence at `s[i]` (RFC 3629: no overlongs, no
// surrogates, nothing past U+10FFFF), or 0.
size_t SequenceAt(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = at(0);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (at(1) < lo || at(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (at(k) < 0x80 || at(k) > 0xBF) return 0;
  }
  return n;
}

std::string Hex(unsigned char c) {
  char buf[5];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

// The code point of the well-formed `n`-byte sequence at `s`.
uint32_t CodePoint(std::string_view s, size_t n) {
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
  if (n == 2) return (b(0) & 0x1Fu) << 6 | (b(1) & 0x3Fu);
  if (n == 3) return (b(0) & 0x0Fu) << 12 | (b(1) & 0x3Fu) << 6 | (b(2) & 0x3Fu);
  return (b(0) & 0x07u) << 18 | (b(1) & 0x3Fu) << 12 | (b(2) & 0x3Fu) << 6 | (b(3) & 0x3Fu);
}

// Characters that end a line or reorder one on a terminal: C1 controls (NEL), the line and
// paragraph separators, and the bidirectional overrides and isolates.
bool Unprintable(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F;
}

}  // namespace

std::string ValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t n = SequenceAt(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string Printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t n = SequenceAt(text, i);
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F || c == '\\'))) {
      out += c == '\\' ? std::string("\\\\") : Hex(c);
      ++i;
      continue;
    }
    if (n > 1 && Unprintable(CodePoint(text.substr(i, n), n))) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u{%04x}", CodePoint(text.substr(i, n), n));
      out += buf;
      i += n;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

size_t JsonDepth(std::string_view body, size_t limit) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0) --depth;
    if (deepest > limit) break;
  }
  return deepest;
}

}  // namespace vtserve
