#include "gates/init/test_executables.h"

#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "gates/core/file_io.h"
#include "gates/init/cmake_file_api.h"
#include "gates/runner/capture.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Whether an own source lies in a test directory of the project's own (a vendored tree's tests,
// or the path above the project, say nothing).
bool InTestDirectory(const std::string& source, const std::string& source_dir) {
  static const std::set<std::string> kTests = {"test",      "tests",      "unittest",
                                               "unittests", "unit_tests", "testing"};
  static const std::set<std::string> kVendored = {"third_party", "thirdparty", "3rdparty", "vendor",
                                                  "extern",      "external",   "deps",     "_deps"};
  fs::path rel = fs::path(source).lexically_normal().lexically_relative(
      fs::path(source_dir).lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return false;
  bool test = false;
  for (const fs::path& part : rel.parent_path()) {
    std::string name = Lower(part.string());
    if (kVendored.count(name)) return false;
    test = test || kTests.count(name);
  }
  return test;
}

// The framework its own sources include: GoogleTest, doctest or Catch2 (v2's catch.hpp, v3's
// catch2/ headers); "" for a plain main.
std::string Framework(const std::vector<std::string>& sources) {
  for (const std::string& s : sources) {
    auto text = ReadFile(s);
    if (!text.ok()) continue;
    if (text->find("gtest/gtest.h") != std::string::npos ||
        text->find("gmock/gmock.h") != std::string::npos)
      return "GoogleTest";
    if (text->find("doctest.h") != std::string::npos) return "doctest";
    if (text->find("catch2/") != std::string::npos || text->find("catch.hpp") != std::string::npos)
      return "Catch2";
  }
  return "";
}

// A leg name from a file name: letters, digits, '_', '.', '-' kept, others '_'; a second
// executable of the same name gets "-2".
std::string PlainName(const std::string& file, std::set<std::string>* taken) {
  std::string name;
  for (unsigned char c : file)
    name += std::isalnum(c) || c == '_' || c == '.' || c == '-' ? static_cast<char>(c) : '_';
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name[0]))) name = "t" + name;
  std::string unique = name;
  for (int n = 2; !taken->insert(unique).second; ++n) unique = name + "-" + std::to_string(n);
  return unique;
}

// The first line of a failed configure that says what went wrong.
std::string FirstError(const std::string& output) {
  size_t at = output.find("CMake Error");
  if (at == std::string::npos) at = output.find("rror");
  if (at == std::string::npos) return "see its output";
  at = output.rfind('\n', at);
  at = at == std::string::npos ? 0 : at + 1;
  return output.substr(at, output.find('\n', at) - at);
}

}  // namespace

StatusOr<std::vector<TestExecutable>> FindTestExecutables(const std::string& source_dir,
                                                          const std::vector<std::string>& options) {
  std::string pattern = (fs::temp_directory_path() / "proofgate-init-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    return Status::Error(ErrorKind::kIo,
                         "init: cannot make a temporary directory for CMake's configure");
  std::string build = pattern;
  std::vector<TestExecutable> out;
  Status ok = PlaceCodemodelQuery(build);
  std::vector<std::string> argv = {"cmake", "-S", source_dir, "-B", build};
  argv.insert(argv.end(), options.begin(), options.end());
  auto configured = ok.ok() ? RunCapture(argv, source_dir, 600) : StatusOr<Captured>(ok);
  if (configured.ok() && configured->exit.exit_code != 0) {
    ok = Status::Invalid("cmake's configure failed: " + FirstError(configured->output));
  } else if (!configured.ok()) {
    ok = configured.status();
  }
  std::vector<CMakeExecutable> all =
      ok.ok() ? CMakeExecutables(build) : std::vector<CMakeExecutable>{};
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.artifact < b.artifact; });
  std::set<std::string> taken;
  for (const CMakeExecutable& e : all) {
    fs::path rel = fs::path(e.artifact).lexically_relative(build);
    bool named = Lower(rel.filename().string()).find("test") != std::string::npos;
    bool placed = std::any_of(e.own_sources.begin(), e.own_sources.end(),
                              [&](const std::string& s) { return InTestDirectory(s, source_dir); });
    if (rel.empty() || *rel.begin() == ".." || !(named || placed)) continue;
    out.push_back(
        {rel.string(), PlainName(rel.filename().string(), &taken), Framework(e.own_sources)});
  }
  std::error_code ec;
  fs::remove_all(build, ec);
  if (!ok.ok()) return ok;
  return out;
}

std::string LegName(const TestExecutable& t, size_t count) {
  return count == 1 ? "test" : "test-" + t.name;
}

namespace {

// A word for sh, its text single-quoted, where "\1" stands for "$1" (the build) and "\2" for
// "$2" (the results).
std::string ShellWord(const std::string& word) {
  std::string out;
  bool open = false;
  for (char c : word) {
    bool marker = c == '\1' || c == '\2';
    if ((marker || c == '\'') && open) out += '\'';
    open = open && !marker && c != '\'';
    if (marker || c == '\'') {
      out += c == '\1' ? "\"$1\"" : c == '\2' ? "\"$2\"" : "\\'";
      continue;
    }
    if (!open) out += '\'';
    open = true;
    out += c;
  }
  return out.empty() ? "''" : out + (open ? "'" : "");
}

// GoogleTest needs none: mutate and prove set GTEST_OUTPUT for every test command, and gtest's
// JSON holds each failure's own lines where its JUnit holds the whole output.
std::vector<std::string> JUnitArguments(const TestExecutable& t, const std::string& file) {
  if (t.framework == "doctest") return {"--reporters=junit", "--out=" + file};
  if (t.framework == "Catch2") return {"-r", "junit", "-o", file};
  return {};
}

// Its cases, one per line, as its JUnit names them, `run` running it in its directory: gtest's
// `Suite.` lines head their indented cases; doctest frames its names with `[doctest]` and `===`
// lines; Catch2 v2 lists names alone with --list-test-names-only, which v3 refused for
// --list-tests --verbosity quiet.
std::string ListScript(const TestExecutable& t, const std::string& run) {
  if (t.framework == "GoogleTest")
    return "(" + run + " --gtest_list_tests) | awk '/^[^ ]/{s=$1} /^  [^ ]/{print s $1}';";
  if (t.framework == "doctest")
    return "(" + run + " --list-test-cases) | grep -v -e '^\\[doctest\\]' -e '^===';";
  if (t.framework == "Catch2") {
    return "{ (" + run + " --list-test-names-only) 2>/dev/null | grep . || (" + run +
           " --list-tests --verbosity quiet); };";
  }
  return "";
}

}  // namespace

ExecutableCommands TestExecutableCommands(const std::vector<TestExecutable>& tests) {
  std::string run = "s=0;", list;
  for (const TestExecutable& t : tests) {
    fs::path path(t.path);  // run in its own directory, as ctest runs a test by default
    std::string in_dir = "cd " + ShellWord("\1/" + path.parent_path().string()) + " && " +
                         ShellWord("./" + path.filename().string());
    run += " (" + in_dir;
    for (const std::string& a : JUnitArguments(t, "\2/" + LegName(t, tests.size()) + ".xml"))
      run += " " + ShellWord(a);
    run += ") || s=1;";
    std::string listed = ListScript(t, in_dir);
    list += listed.empty() ? "" : " " + listed;
  }
  ExecutableCommands out{{"sh", "-c", run + " exit $s", "sh", "{build}", "{results}"}, {}};
  if (!list.empty()) out.list = {"sh", "-c", list.substr(1), "sh", "{build}"};
  return out;
}

}  // namespace pg
