// The one place proofgate reads integers out of text (flags, commit messages, journal files):
// the whole text must be the number, in range, or there is no value — never an exception.
#pragma once

#include <optional>
#include <string_view>

namespace pg {

std::optional<long> ParseInteger(std::string_view text, int base = 10);

}  // namespace pg
