#include "gates/prove/whole_tests.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "gates/generate/test_reach.h"
#include "gates/mutate/worker.h"

namespace fs = std::filesystem;

namespace pg {

namespace {

// Whether `head` lists a case defined in `file`: by its name, or a parametrised pytest
// function by its ids ("m.test_x[1]"), never by its own name.
bool DefinesAListedCase(const TestFile& file, const Inventory& head) {
  for (const std::string& t : head.tests) {
    if (file.bodies.count(t) || (t.ends_with("]") && file.bodies.count(t.substr(0, t.find('[')))))
      return true;
  }
  return false;
}

}  // namespace

namespace {

// A build file under the test globs (tests/CMakeLists.txt) declares tests; the inventory sees
// what it adds or removes, and it is no test source.
bool IsBuildFile(const std::string& rel) {
  std::string name = fs::path(rel).filename().string();
  return name == "CMakeLists.txt" || name == "meson.build" || name.ends_with(".cmake") ||
         name.ends_with(".mk") || name == "Makefile" || name == "makefile" ||
         name == "GNUmakefile" || name == "Makefile.am";
}

}  // namespace

std::vector<std::string> FilesWithoutListedCases(const std::vector<std::string>& changed,
                                                 const Inventory& head) {
  std::vector<std::string> out;
  for (const std::string& rel : changed) {
    if (IsBuildFile(rel)) continue;
    auto file = head.files.find(rel);
    if (file == head.files.end() || !DefinesAListedCase(file->second, head)) out.push_back(rel);
  }
  return out;
}

namespace {

// Each of `files` (absolute) → itself when compiled, else the compiled sources that include it.
std::map<std::string, std::vector<std::string>> CompiledAs(const std::string& build_dir,
                                                           const std::vector<std::string>& files) {
  auto includers = Includers(build_dir);
  const std::map<std::string, std::vector<std::string>> none;
  const auto& by_header = includers.ok() ? *includers : none;
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& f : files) {
    auto it = by_header.find(f);
    out[f] = it != by_header.end() ? it->second : std::vector<std::string>{f};
  }
  return out;
}

}  // namespace

StatusOr<WholeTests> WholeTestsFor(Worker& w, const Catalog& c,
                                   const std::vector<std::string>& files, const Inventory& head) {
  WholeTests whole;
  if (files.empty()) return whole;
  if (!c.list_command.empty() || !c.test_command.empty()) {
    whole.unaccounted = files;
    return whole;
  }
  PG_ASSIGN_OR_RETURN(std::string listing, w.ListTests(c));
  PG_ASSIGN_OR_RETURN(std::vector<CtestTest> tests, ParseCtestTests(listing));
  std::string build = w.BuildDir(c);
  std::map<std::string, std::string> relative;  // absolute → as given
  for (const std::string& rel : files)
    relative[(fs::path(w.tree()) / rel).lexically_normal().string()] = rel;
  std::vector<std::string> absolute;
  for (const auto& entry : relative) absolute.push_back(entry.first);
  auto compiled = CompiledAs(build, absolute);
  std::vector<std::string> sources;
  for (const auto& [f, as] : compiled) sources.insert(sources.end(), as.begin(), as.end());
  PG_ASSIGN_OR_RETURN(Reach reach, TestsReaching(build, tests, sources));
  for (const auto& [f, as] : compiled) {
    std::set<std::string> mine;
    for (const std::string& s : as) {
      auto by = reach.by_file.find(s);
      if (by == reach.by_file.end()) continue;
      for (const std::string& t : by->second) {
        if (head.tests.count(t))
          mine.insert(t);  // a test split into listed cases is proven by them
      }
    }
    for (const std::string& t : mine) whole.tests[t].push_back(relative[f]);
    if (mine.empty()) whole.unaccounted.push_back(relative[f]);
  }
  return whole;
}

}  // namespace pg
