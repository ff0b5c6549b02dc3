// Expands a leg's `inputs` globs ("build/**/*.a", "models/*.gguf") to files under the root.
#pragma once

#include <string>
#include <vector>

namespace pg {

// `*` and `?` match within one path segment, `**` matches any number of segments.
bool GlobMatch(const std::string& pattern, const std::string& path);

// Relative paths of regular files under `root` matching any pattern, sorted, without
// duplicates. `.git` is never entered. The walk starts at each pattern's literal prefix.
std::vector<std::string> ExpandGlobs(const std::string& root,
                                     const std::vector<std::string>& patterns);

}  // namespace pg
