// String helpers with Python's meanings (strip with a character set, split, title case).
#pragma once

#include <string>
#include <vector>

#include "vt/jinja.h"

namespace vt::jinja {

// Python's str.strip/lstrip/rstrip: `chars` undefined/None means whitespace.
std::string Strip(const std::string& s, const Value& chars, bool left, bool right);
// Python's str.split(sep=None, maxsplit=-1).
Array Split(const std::string& s, const Value& sep, int64_t maxsplit);
std::string Replace(const std::string& s, const std::string& from, const std::string& to, int64_t count);
std::string Upper(std::string s);
std::string Lower(std::string s);
std::string Title(const std::string& s);
std::string Capitalize(const std::string& s);

}  // namespace vt::jinja
