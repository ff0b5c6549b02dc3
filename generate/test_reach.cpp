#include "generate/test_reach.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "generate/cmake_file_api.h"
#include "runner/capture.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

std::string Normal(const std::string& path, const std::string& base) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(base) / p;
  return p.lexically_normal().string();
}

// The build inputs of `target` (relative to the build dir), normalised; empty when Ninja does
// not know the target.
StatusOr<std::set<std::string>> Inputs(const std::string& build_dir, const std::string& target) {
  PG_ASSIGN_OR_RETURN(Captured c, RunCapture({"ninja", "-C", build_dir, "-t", "inputs", target}, build_dir, 120));
  std::set<std::string> out;
  if (c.exit.exit_code != 0) return out;
  std::istringstream lines(c.output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.rfind("ninja: ", 0) != 0) out.insert(Normal(line, build_dir));
  }
  return out;
}

}  // namespace

StatusOr<std::map<std::string, std::vector<std::string>>> Includers(const std::string& build_dir) {
  std::map<std::string, std::vector<std::string>> out;
  std::error_code ec;
  if (!fs::exists(build_dir + "/build.ninja", ec)) return out;
  PG_ASSIGN_OR_RETURN(Captured c, RunCapture({"ninja", "-C", build_dir, "-t", "deps"}, build_dir, 120));
  if (c.exit.exit_code != 0) return out;
  std::istringstream lines(c.output);
  std::string source;  // the current object's source: its first dependency
  bool first = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.rfind("ninja: ", 0) == 0) continue;
    if (line[0] != ' ') {  // "obj.o: #deps 12, deps mtime ... (VALID)"
      first = true;
      continue;
    }
    std::string dep = Normal(line.substr(line.find_first_not_of(' ')), build_dir);
    if (first) source = dep;
    else if (!source.empty()) out[dep].push_back(source);
    first = false;
  }
  for (auto& [header, sources] : out) {
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  }
  return out;
}

std::vector<std::string> Reach::For(const std::string& file) const {
  std::vector<std::string> out = everywhere;
  auto it = by_file.find(file);
  if (it != by_file.end()) out.insert(out.end(), it->second.begin(), it->second.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

StatusOr<Reach> TestsReaching(const std::string& build_dir, const std::vector<CtestTest>& tests,
                              const std::vector<std::string>& files) {
  Reach reach;
  std::error_code ec;
  bool ninja = fs::exists(build_dir + "/build.ninja", ec);
  std::string build = fs::path(build_dir).lexically_normal().string();
  // executable → its inputs: asked of Ninja one by one, or all at once of CMake's file API
  std::map<std::string, std::set<std::string>> cache = ninja ? decltype(cache){} : ExecutableSources(build_dir);
  bool described = !cache.empty();
  std::set<std::string> wanted(files.begin(), files.end());
  std::vector<std::string> unreached;
  for (const CtestTest& t : tests) {
    std::string exe = t.command.empty() ? "" : Normal(t.command.front(), build_dir);
    bool inside = (ninja || described) && exe.rfind(build + "/", 0) == 0;
    if (inside && ninja && !cache.count(exe)) {
      PG_ASSIGN_OR_RETURN(cache[exe], Inputs(build_dir, exe.substr(build.size() + 1)));
    }
    if (!inside || cache[exe].empty()) {
      reach.everywhere.push_back(t.name);
      unreached.push_back(t.name);
      continue;
    }
    for (const std::string& f : cache[exe]) {
      if (wanted.count(f)) reach.by_file[f].push_back(t.name);
    }
  }
  if (!unreached.empty()) {
    reach.notice = std::to_string(unreached.size()) + " test(s) run for every mutant: " +
                   (ninja || described ? "not an executable the build describes (first: " + unreached.front() + ")"
                                       : "neither Ninja nor CMake's file API says what each test links");
  }
  return reach;
}

}  // namespace pg
