#include "gates/generate/test_reach.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "gates/core/file_io.h"
#include "gates/init/cmake_file_api.h"
#include "gates/runner/capture.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

std::string Normal(const std::string& path, const std::string& base) {
  fs::path p(path);
  if (p.is_relative()) p = fs::path(base) / p;
  return p.lexically_normal().string();
}

// A path as `ninja -t inputs` prints it: shell-quoted where it holds a space or another
// character a shell would split on ('/a/my lib.cpp', with ' as '\'').
std::string ShellUnquoted(const std::string& word) {
  std::string out;
  bool quoted = false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '\'')
      quoted = !quoted;
    else if (word[i] == '\\' && !quoted && i + 1 < word.size())
      out += word[++i];
    else
      out += word[i];
  }
  return out;
}

// The build inputs of `target` (relative to the build dir), normalised; empty when Ninja does
// not know the target.
StatusOr<std::set<std::string>> Inputs(const std::string& build_dir, const std::string& target) {
  PG_ASSIGN_OR_RETURN(
      Captured c, RunCapture({"ninja", "-C", build_dir, "-t", "inputs", target}, build_dir, 120));
  std::set<std::string> out;
  if (c.exit.exit_code != 0) return out;
  std::istringstream lines(c.output);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && !line.starts_with("ninja: "))
      out.insert(Normal(ShellUnquoted(line), build_dir));
  }
  return out;
}

// A compiler's depfile (Make syntax, `obj: src hdr... \` continued): its source, then what it
// read. Escaped spaces in names are not handled (CMake trees rarely have them).
std::vector<std::string> DepfileInputs(const std::string& text, const std::string& base) {
  std::string joined;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n')
      ++i;  // a continuation
    else
      joined += text[i];
  }
  size_t colon = joined.find(": ");
  std::vector<std::string> out;
  if (colon == std::string::npos) return out;
  std::istringstream words(joined.substr(colon + 2, joined.find('\n', colon) - colon - 2));
  for (std::string w; words >> w;) out.push_back(Normal(w, base));
  return out;
}

// Includers from the depfiles a build that is not Ninja's keeps beside its objects.
std::map<std::string, std::vector<std::string>> DepfileIncluders(const std::string& build_dir) {
  std::map<std::string, std::vector<std::string>> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(
           build_dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    bool depfile =
        name.size() > 4 && (name.compare(name.size() - 4, 4, ".o.d") == 0 ||
                            (name.size() > 6 && name.compare(name.size() - 6, 6, ".obj.d") == 0));
    if (!depfile || !it->is_regular_file(ec)) continue;
    auto text = ReadFile(it->path().string());
    std::vector<std::string> inputs =
        text.ok() ? DepfileInputs(*text, build_dir) : std::vector<std::string>{};
    for (size_t i = 1; i < inputs.size(); ++i) out[inputs[i]].push_back(inputs[0]);
  }
  return out;
}

// Includers from `ninja -t deps`: each object's line, then its dependencies indented, the
// source first.
StatusOr<std::map<std::string, std::vector<std::string>>> NinjaIncluders(
    const std::string& build_dir) {
  std::map<std::string, std::vector<std::string>> out;
  PG_ASSIGN_OR_RETURN(Captured c,
                      RunCapture({"ninja", "-C", build_dir, "-t", "deps"}, build_dir, 120));
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
    if (first)
      source = dep;
    else if (!source.empty())
      out[dep].push_back(source);
    first = false;
  }
  return out;
}

}  // namespace

StatusOr<std::map<std::string, std::vector<std::string>>> Includers(const std::string& build_dir) {
  std::error_code ec;
  std::map<std::string, std::vector<std::string>> out;
  if (fs::exists(build_dir + "/build.ninja", ec)) {
    PG_ASSIGN_OR_RETURN(out, NinjaIncluders(build_dir));
  } else {
    out = DepfileIncluders(build_dir);
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
  std::map<std::string, std::set<std::string>> cache =
      ninja ? decltype(cache){} : ExecutableSources(build_dir);
  bool described = !cache.empty();
  std::set<std::string> wanted(files.begin(), files.end());
  std::vector<std::string> unreached;
  for (const CtestTest& t : tests) {
    if (t.command.empty()) {  // a project's own test command, run whole: it reaches every file
      reach.everywhere.push_back(t.name);
      continue;
    }
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
                   (ninja || described
                        ? "not an executable the build describes (first: " + unreached.front() + ")"
                        : "neither Ninja nor CMake's file API says what each test links");
  }
  return reach;
}

}  // namespace pg
