#include "gates/mutate/test_map.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <sstream>

#include "gates/config/json_source.h"
#include "gates/runner/capture.h"

namespace pg {
namespace {

std::string Property(const Json& test, const std::string& key,
                     std::vector<std::string>* list = nullptr) {
  if (!test.contains("properties") || !test.at("properties").is_array()) return "";
  for (const Json& p : test.at("properties")) {
    if (!p.is_object() || !p.contains("name") || p.at("name") != key || !p.contains("value"))
      continue;
    const Json& v = p.at("value");
    if (v.is_string()) return v.get<std::string>();
    for (const Json& item : v.is_array() && list ? v : Json::array()) {
      if (item.is_string()) list->push_back(item.get<std::string>());
    }
  }
  return "";
}

bool HasOwnFilter(const std::vector<std::string>& command) {
  for (size_t i = 1; i < command.size(); ++i) {
    if (command[i].rfind("--gtest_filter", 0) == 0) return true;
  }
  return false;
}

std::string Trimmed(std::string s) {
  size_t hash = s.find("  #");
  if (hash != std::string::npos) s.resize(hash);
  size_t end = s.find_last_not_of(" \t\r");
  size_t begin = s.find_first_not_of(" \t");
  return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

}  // namespace

StatusOr<std::vector<CtestTest>> ParseCtestTests(const std::string& json) {
  auto doc = JsonSource::Parse("ctest --show-only=json-v1", json);
  if (!doc.ok() || !doc->root().is_object() || !doc->root().contains("tests") ||
      !doc->root().at("tests").is_array()) {
    return Status::Invalid("not the output of ctest --show-only=json-v1");
  }
  std::vector<CtestTest> out;
  for (const Json& t : doc->root().at("tests")) {
    if (!t.is_object() || !t.contains("name") || !t.at("name").is_string()) continue;
    CtestTest test{t.at("name").get<std::string>(), {}, Property(t, "WORKING_DIRECTORY"), {}};
    if (t.contains("command") && t.at("command").is_array()) {
      for (const Json& arg : t.at("command"))
        test.command.push_back(arg.is_string() ? arg.get<std::string>() : arg.dump());
    }
    std::vector<std::string> env;
    Property(t, "ENVIRONMENT", &env);
    for (const std::string& e : env) {
      size_t eq = e.find('=');
      if (eq != std::string::npos) test.env.emplace_back(e.substr(0, eq), e.substr(eq + 1));
    }
    out.push_back(std::move(test));
  }
  return out;
}

std::vector<std::string> ParseGtestListing(const std::string& listing) {
  std::vector<std::string> cases;
  std::istringstream in(listing);
  std::string suite;
  for (std::string line; std::getline(in, line);) {
    bool indented = !line.empty() && line[0] == ' ';
    std::string text = Trimmed(line);
    if (text.empty()) continue;
    if (!indented) {
      suite = text.back() == '.' && text.find(' ') == std::string::npos ? text : "";
    } else if (!suite.empty() && text.rfind("DISABLED_", 0) != 0 &&
               suite.rfind("DISABLED_", 0) != 0) {
      cases.push_back(suite + text);
    }
  }
  return cases;
}

bool IsGtestExecutable(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool found = false;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) && st.st_size > 0) {
    void* map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      // gtest's own --help text, compiled into every gtest binary (and kept by strip). A flag
      // name alone is not enough: a program that runs gtest binaries names their flags too.
      // Joined at run time, so proofgate's own binary does not carry the text it looks for.
      volatile const char* second = " instead of running them";
      const std::string help =
          std::string("List the names of all tests") + const_cast<const char*>(second);
      found = memmem(map, static_cast<size_t>(st.st_size), help.data(), help.size()) != nullptr;
      munmap(map, static_cast<size_t>(st.st_size));
    }
  }
  close(fd);
  return found;
}

StatusOr<TestMap> TestMap::Discover(const std::vector<CtestTest>& tests) {
  TestMap map;
  for (const CtestTest& t : tests) {
    bool whole =
        !t.command.empty() && !HasOwnFilter(t.command) && IsGtestExecutable(t.command.front());
    if (!whole) {
      map.owner_[t.name] = t.name;
      map.is_case_[t.name] = false;
      continue;
    }
    // The test's own environment, through env(1): RunCapture inherits ours otherwise.
    std::vector<std::string> argv = {"env"};
    for (const auto& [k, v] : t.env) argv.push_back(k + "=" + v);
    argv.insert(argv.end(), {t.command.front(), "--gtest_list_tests"});
    PG_ASSIGN_OR_RETURN(Captured listed, RunCapture(argv, t.cwd, 60));
    if (listed.exit.exit_code != 0) {
      return Status::Invalid("ctest test \"" + t.name + "\": " + t.command.front() +
                             " --gtest_list_tests exited " + std::to_string(listed.exit.exit_code) +
                             ": " + listed.output.substr(0, 400));
    }
    for (const std::string& c : ParseGtestListing(listed.output)) {
      map.owner_[c] = t.name;
      map.is_case_[c] = true;
    }
  }
  return map;
}

std::vector<std::string> TestMap::Names() const {
  std::vector<std::string> names;
  for (const auto& entry : owner_) names.push_back(entry.first);
  return names;
}

std::string TestMap::CtestOf(const std::string& name) const {
  auto it = owner_.find(name);
  return it == owner_.end() ? "" : it->second;
}

std::vector<std::string> TestMap::CasesOf(const std::string& ctest) const {
  std::vector<std::string> cases;
  for (const auto& [name, owner] : owner_) {
    if (owner == ctest && is_case_.at(name)) cases.push_back(name);
  }
  return cases;
}

TestSelection TestMap::Select(const std::vector<std::string>& names) const {
  TestSelection s;
  std::set<std::string> seen;
  for (const std::string& n : names) {
    auto it = owner_.find(n);
    std::string ctest = it == owner_.end() ? n : it->second;
    if (seen.insert(ctest).second) s.ctest_names.push_back(ctest);
    if (it != owner_.end() && is_case_.at(n))
      s.gtest_filter += (s.gtest_filter.empty() ? "" : ":") + n;
  }
  return s;
}

}  // namespace pg
