#include "gates/core/integer_text.h"

#include <charconv>

namespace pg {

std::optional<long> ParseInteger(std::string_view text, int base) {
  long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace pg
