// UTF-8 validity, for text that came from a process's bytes (a log tail, a test's message).
#pragma once

#include <cstddef>
#include <string_view>

namespace pg {

// The length of the valid UTF-8 sequence at s[i] (1 to 4), 0 when it is not one.
size_t Utf8Length(std::string_view s, size_t i);

// Whether all of `s` is valid UTF-8.
bool IsValidUtf8(std::string_view s);

}  // namespace pg
