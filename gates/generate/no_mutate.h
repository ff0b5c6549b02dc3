// `proofgate: no-mutate` markers: a line that carries one yields no mutant, and one on a
// function's first line or the line before it keeps the whole function unmutated.
#pragma once

#include <set>
#include <string>

#include "gates/generate/point.h"

namespace pg {

inline constexpr const char* kNoMutateMarker = "proofgate: no-mutate";

// The 1-based lines of `text` that carry the marker.
std::set<int> NoMutateLines(const std::string& text);

// Whether a marker excludes `p`: on a line its original text spans, or on its function's
// first line or the line before it.
bool MarkedNoMutate(const Point& p, const std::set<int>& marked);

}  // namespace pg
