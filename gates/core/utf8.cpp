#include "gates/core/utf8.h"

namespace pg {

// The well-formed sequences of the Unicode standard (its table 3-7): a lead byte's range gives
// the length, and after E0, ED, F0 and F4 the second byte's range narrows, which rules out
// overlong forms, the surrogates and everything past U+10FFFF.
size_t Utf8Length(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char b = at(0);
  size_t n = b < 0x80                   ? 1
             : (b >= 0xc2 && b <= 0xdf) ? 2
             : (b >= 0xe0 && b <= 0xef) ? 3
             : (b >= 0xf0 && b <= 0xf4) ? 4
                                        : 0;
  if (n == 0 || i + n > s.size()) return 0;
  unsigned char low = b == 0xe0 ? 0xa0 : b == 0xf0 ? 0x90 : 0x80;
  unsigned char high = b == 0xed ? 0x9f : b == 0xf4 ? 0x8f : 0xbf;
  if (n > 1 && (at(1) < low || at(1) > high)) return 0;
  for (size_t k = 2; k < n; ++k) {
    if ((at(k) & 0xc0) != 0x80) return 0;
  }
  return n;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8Length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

}  // namespace pg
