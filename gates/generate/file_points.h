// The mutation points of one file over every way the build compiles it: a file built with
// several sets of -D flags (benhoyt/inih's ini.c, 15) is parsed once per configuration, so
// code that only one of them compiles gets mutants too.
#pragma once

#include <set>
#include <string>

#include "gates/core/status.h"
#include "gates/generate/clang_points.h"

namespace pg {

// At most this many configurations of a file are parsed; the rest are named in the warning.
inline constexpr size_t kMaxConfigurations = 16;

// `file`'s points (absolute; with `header`, those written in that header, parsed through
// `file`) under each of its compile commands in `build_dir`'s database, a point found by
// several parses once. The warning joins the parses' distinct ones.
StatusOr<ParsedFile> FindPoints(const std::string& build_dir, const std::string& file,
                                const std::set<Operator>& ops, const std::string& header = "");

}  // namespace pg
