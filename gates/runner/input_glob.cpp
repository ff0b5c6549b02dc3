#include "gates/runner/input_glob.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "gates/core/file_io.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool MatchParts(const std::vector<std::string>& pat, size_t pi,
                const std::vector<std::string>& path, size_t si) {
  if (pi == pat.size()) return si == path.size();
  if (pat[pi] == "**") {
    for (size_t k = si; k <= path.size(); ++k) {
      if (MatchParts(pat, pi + 1, path, k)) return true;
    }
    return false;
  }
  if (si == path.size()) return false;
  if (fnmatch(pat[pi].c_str(), path[si].c_str(), FNM_PERIOD) != 0) return false;
  return MatchParts(pat, pi + 1, path, si + 1);
}

bool HasWildcard(const std::string& part) { return part.find_first_of("*?[") != std::string::npos; }

}  // namespace

bool GlobMatch(const std::string& pattern, const std::string& path) {
  return MatchParts(Split(pattern), 0, Split(path), 0);
}

std::vector<std::string> ExpandGlobs(const std::string& root,
                                     const std::vector<std::string>& patterns) {
  std::set<std::string> found;
  for (const std::string& pattern : patterns) {
    std::string prefix;
    for (const std::string& part : Split(pattern)) {
      if (HasWildcard(part)) break;
      prefix += (prefix.empty() ? "" : "/") + part;
    }
    fs::path start = prefix.empty() ? fs::path(root) : fs::path(root) / prefix;
    std::error_code ec;
    if (fs::is_regular_file(start, ec)) {
      if (GlobMatch(pattern, prefix)) found.insert(prefix);
      continue;
    }
    fs::recursive_directory_iterator it(start, fs::directory_options::skip_permission_denied, ec),
        end;
    for (; !ec && it != end; it.increment(ec)) {
      if (it->path().filename() == ".git") {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file(ec)) continue;
      std::string rel = RelativePath(it->path().generic_string(), root);
      if (GlobMatch(pattern, rel)) found.insert(rel);
    }
  }
  return {found.begin(), found.end()};
}

}  // namespace pg
