#include "gates/runner/declared_outputs.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "gates/runner/input_glob.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

bool HasWildcard(const std::string& s) { return s.find_first_of("*?[") != std::string::npos; }

// "build/", "./build" and "build" name one folder.
std::string Normal(const std::string& path) {
  std::string out = fs::path(path).lexically_normal().generic_string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

}  // namespace

bool OutputsThere(const std::string& root, const Leg& leg) {
  return std::all_of(leg.outputs.begin(), leg.outputs.end(), [&](const std::string& out) {
    std::error_code ec;
    if (!HasWildcard(out)) return fs::exists(fs::path(root) / out, ec);
    return !ExpandGlobs(root, {out, out + "/**"})
                .empty();  // a file it matches, or one in a folder it matches
  });
}

bool OutputCovers(const std::string& output, const std::string& path) {
  std::string pattern = Normal(output);
  if (!HasWildcard(pattern)) {
    return path == pattern ||
           (path.size() > pattern.size() && path.compare(0, pattern.size(), pattern) == 0 &&
            path[pattern.size()] == '/');
  }
  // The path itself, or a folder it lies in ("build-*" covers build-rel/lib/x.o).
  for (size_t end = path.size(); end != std::string::npos && end > 0;
       end = path.rfind('/', end - 1)) {
    if (GlobMatch(pattern, path.substr(0, end))) return true;
  }
  return false;
}

git::UntrackedSkip DeclaredOutputs(const SuiteConfig& config, const std::string& root_prefix) {
  auto outputs = std::make_shared<std::vector<std::string>>();
  for (const Leg& leg : config.legs)
    outputs->insert(outputs->end(), leg.outputs.begin(), leg.outputs.end());
  if (outputs->empty()) return {};
  return [outputs, prefix = root_prefix](const std::string& path) {
    if (path.compare(0, prefix.size(), prefix) != 0) return false;  // outside the root: no leg's
    std::string rel = path.substr(prefix.size());
    return std::any_of(outputs->begin(), outputs->end(),
                       [&](const std::string& out) { return OutputCovers(out, rel); });
  };
}

}  // namespace pg
