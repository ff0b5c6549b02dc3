// ICU does the composition (the Unicode tables are the hard part); the only file including ICU.
#include "nfc.h"

#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <vector>

namespace vt {

std::string Nfc(const std::string& text) {
  bool ascii = true;
  for (unsigned char c : text) ascii = ascii && c < 0x80;
  if (ascii) return text;  // the common case: ASCII is always NFC
  UErrorCode err = U_ZERO_ERROR;
  const UNormalizer2* nfc = unorm2_getNFCInstance(&err);
  int32_t n16 = 0;
  u_strFromUTF8(nullptr, 0, &n16, text.data(), static_cast<int32_t>(text.size()), &err);
  if (err != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(err)) return text;
  err = U_ZERO_ERROR;
  std::vector<UChar> in(static_cast<size_t>(n16) + 1);
  u_strFromUTF8(in.data(), n16 + 1, nullptr, text.data(), static_cast<int32_t>(text.size()), &err);
  if (U_FAILURE(err) || unorm2_isNormalized(nfc, in.data(), n16, &err)) return text;
  err = U_ZERO_ERROR;
  std::vector<UChar> out(static_cast<size_t>(n16) * 3 + 16);
  int32_t m = unorm2_normalize(nfc, in.data(), n16, out.data(), static_cast<int32_t>(out.size()), &err);
  if (U_FAILURE(err)) return text;
  std::string result(static_cast<size_t>(m) * 3 + 4, '\0');
  int32_t n8 = 0;
  u_strToUTF8(result.data(), static_cast<int32_t>(result.size()), &n8, out.data(), m, &err);
  if (U_FAILURE(err)) return text;
  result.resize(static_cast<size_t>(n8));
  return result;
}

}  // namespace vt
