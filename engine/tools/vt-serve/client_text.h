// Bytes a client sent, made safe for where they go: a JSON answer needs valid UTF-8, a log line
// needs one printable line. A JSON body's nesting is measured before anything parses it, so a
// deep one cannot exhaust a thread's stack in any recursive walk that follows.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vtserve {

// `text` with each byte that is not part of a well-formed UTF-8 sequence replaced by U+FFFD.
std::string ValidUtf8(std::string_view text);
// One log line's worth of `text`: valid UTF-8 kept, control bytes and invalid ones as \xNN,
// characters that break or reorder a line (NEL, U+2028/9, bidi overrides) as \u{XXXX}.
std::string Printable(std::string_view text);
// The deepest nesting of arrays and objects in the JSON text `body` (strings skipped); it stops
// counting once past `limit`, so a hostile body costs one pass.
size_t JsonDepth(std::string_view body, size_t limit);

constexpr size_t kMaxJsonDepth = 128;  // for every JSON body vt-serve parses

}  // namespace vtserve
