#include "gates/init/project_shapes.h"

#include <filesystem>
#include <sstream>

#include "gates/config/json_source.h"
#include "gates/config/suite_config.h"
#include "gates/core/file_io.h"
#include "gates/init/cmake_options.h"
#include "gates/init/toolchain_probe.h"
#include "gates/runner/input_glob.h"
#include "gates/runner/preflight.h"

namespace fs = std::filesystem;

namespace pg::init {
namespace {

// A JSON array of strings, each quoted and escaped as JSON (a `sh -c` script has quotes).
std::string Argv(const std::vector<std::string>& args) {
  std::string out = "[";
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + JsonText(Json(args[i]));
  return out + "]";
}

// The default test globs that match something here (all of them when none does).
std::string TestGlobs(const std::string& root) {
  std::vector<std::string> used;
  for (const std::string& g : kDefaultTestGlobs) {
    if (!ExpandGlobs(root, {g}).empty()) used.push_back(g);
  }
  return Argv(used.empty() ? kDefaultTestGlobs : used);
}

std::string Render(const std::string& kind, const std::vector<InitLeg>& legs,
                   const std::string& commands, const std::string& root) {
  std::ostringstream out;
  out << "// proofgate's suites for this repository: `proofgate preflight [SUITE...]`.\n"
      << "// Written by `proofgate init` for a " << kind << " project; edit freely.\n"
      << "// A leg is one command (\"run\": argv, or a string for sh -c); a suite is a list of "
         "legs.\n"
      << "{\n  \"schema_version\": 1,\n  \"legs\": {\n";
  std::string suite;
  for (size_t i = 0; i < legs.size(); ++i) {
    const InitLeg& l = legs[i];
    out << "    // " << l.comment << "\n    \"" << l.name << "\": {\"run\": " << Argv(l.run);
    if (!l.needs.empty()) out << ", \"needs\": " << Argv(l.needs);
    if (l.build_dir) out << ", \"locks\": [\"build-dir\"]";
    if (!l.cwd.empty()) out << ", \"cwd\": " << JsonText(Json(l.cwd));
    if (!l.outputs.empty()) out << ", \"outputs\": " << Argv(l.outputs);
    out << "}" << (i + 1 < legs.size() ? "," : "") << "\n";
    suite += (suite.empty() ? "\"" : ", \"") + l.name + "\"";
  }
  out << "  },\n";
  out << "  // What the builds read that the tree does not hold: its output is part of each leg's "
         "cache key.\n"
      << "  \"toolchain\": [" << Argv({"sh", "-c", ToolchainScript(kind)}) << "],\n";
  if (!commands.empty()) out << commands;
  out << "  // `proofgate prove --base REF`: which files are tests (the base tree gets HEAD's).\n"
      << "  \"prove\": {\"tests\": " << TestGlobs(root) << "},\n"
      << "  \"suites\": {\"default\": [" << suite << "]}\n}\n";
  return out.str();
}

// The test legs, and the commands for scratch copies, of test executables no ctest test runs:
// each leg runs one in its own directory, as ctest runs a test by default; the commands run or
// list them all in `{build}`.
std::vector<InitLeg> ExecutableLegs(const std::vector<TestExecutable>& tests,
                                    std::string* commands) {
  std::vector<InitLeg> legs;
  for (const TestExecutable& t : tests) {
    fs::path path(t.path);
    legs.push_back({LegName(t, tests.size()),
                    "the test executable " + t.path +
                        (t.framework.empty() ? "" : " (" + t.framework + ")") +
                        ", which no ctest test runs",
                    {"./" + path.filename().string()},
                    {"build"},
                    false,
                    path.has_parent_path() ? "build/" + path.parent_path().string() : "build"});
  }
  ExecutableCommands scratch = TestExecutableCommands(tests);
  *commands =
      ",\n               \"test_command\": " + Argv(scratch.test) +
      (scratch.list.empty() ? "" : ",\n               \"list_command\": " + Argv(scratch.list));
  return legs;
}

// pytest writes caches into the tree; a tree that changes under its own tests is stale.
const std::vector<std::string> kPytest = {"env", "PYTHONDONTWRITEBYTECODE=1", "pytest", "-q",
                                          "-p",  "no:cacheprovider"};

}  // namespace

bool Has(const std::string& root, const std::string& rel) {
  std::error_code ec;
  return fs::exists(fs::path(root) / rel, ec);
}

// The text of every file named `name` under root (build trees and .git skipped), joined.
std::string AllNamed(const std::string& root, const std::string& name) {
  std::string text;
  for (const std::string& rel : ExpandGlobs(root, {"**/" + name})) {
    if (rel.rfind("build", 0) == 0 || rel.find("/_deps/") != std::string::npos) continue;
    auto content = ReadFile(root + "/" + rel);
    if (content.ok()) text += *content + "\n";
  }
  return text;
}

ProjectShape CMakeShape(const Place& at, const std::vector<TestExecutable>& tests) {
  std::string text = AllNamed(at.Src(), "CMakeLists.txt");
  std::string kind = text.find("gtest_discover_tests") != std::string::npos
                         ? "CMake + GoogleTest (gtest_discover_tests)"
                     : text.find("catch_discover_tests") != std::string::npos
                         ? "CMake + Catch2 (catch_discover_tests)"
                     : text.find("doctest_discover_tests") != std::string::npos ? "CMake + doctest"
                     : text.find("add_test") != std::string::npos ? "CMake + ctest (add_test)"
                     : tests.empty()                              ? "CMake"
                                                                  : "CMake + test executables";
  CMakeOptions o = CMakeOptionsFor(at.Src());
  std::vector<std::string> configure = {"cmake", "-S", at.Arg("."), "-B", "build"},
                           scratch = {"cmake", "-S", at.Arg("{tree}"), "-B", "{build}"};
  configure.insert(configure.end(), o.options.begin(), o.options.end());
  scratch.insert(scratch.end(), o.options.begin(), o.options.end());
  std::vector<InitLeg> legs = {
      {"configure",
       "configure once into build/ (keep build/ in .gitignore)" +
           (o.switched.empty() ? "" : "; " + o.switched + " on: the tests build only when asked"),
       configure,
       {},
       true,
       "",
       {"build/CMakeCache.txt"}},
      {"build",
       "build everything",
       {"cmake", "--build", "build"},
       {"configure"},
       true,
       "",
       {"build"}}};
  std::string test_commands;
  if (tests.empty()) {
    legs.push_back({"test",
                    "every ctest test; gtest cases report by name",
                    {"ctest", "--test-dir", "build", "--output-on-failure", "--no-tests=error"},
                    {"build"},
                    false});
  } else {
    std::vector<InitLeg> run = ExecutableLegs(tests, &test_commands);
    legs.insert(legs.end(), run.begin(), run.end());
  }
  // Scratch copies (mutate, prove) configure as the configure leg does; build and test keep the
  // CMake + ctest defaults, which know gtest cases by name, unless no ctest test runs the tests.
  std::string commands =
      "  // How mutate and prove configure a scratch copy: as the configure leg does" +
      std::string(tests.empty() ? ".\n"
                                : "; test and list its tests with each test executable.\n") +
      "  \"commands\": {\"configure\": " + Argv(scratch) + test_commands + "},\n";
  ProjectShape shape{kind, Render(kind, legs, commands, at.root), "", {}};
  if (!o.switched.empty()) {
    shape.notes.push_back(
        o.switched + " turned on (-D" +
        (o.switched.find(',') == std::string::npos ? o.switched : "NAME") +
        "=ON in both configure commands): CMakeLists.txt builds the tests only when asked");
  }
  if (!o.docs_off.empty()) {
    shape.notes.push_back(
        o.docs_off +
        " turned off (-DNAME=OFF in both configure commands): its documentation needs a tool "
        "this machine lacks, and CMake's configure would fail without it");
  }
  if (!o.off.empty()) {
    shape.notes.push_back(
        o.off + " left off: a special kind of test (hardware, a toolkit, a costly run); add -D" +
        (o.off.find(',') == std::string::npos ? o.off : "NAME") +
        "=ON to both configure commands where this machine runs them");
  }
  return shape;
}

// A CMake project that registers no ctest test: its test executables, from a configure of its
// own, become the test legs; the shape is kept, noting why, when none is found.
ProjectShape WithTestExecutables(const Place& at, ProjectShape cmake) {
  auto tests = FindTestExecutables(at.Src(), CMakeOptionsFor(at.Src()).options);
  if (!tests.ok())
    cmake.notes.push_back("init configured the project to look for test executables: " +
                          tests.status().message());
  if (!tests.ok() || tests->empty()) return cmake;
  ProjectShape shape = CMakeShape(at, *tests);
  std::string names;
  for (const TestExecutable& t : *tests)
    names += (names.empty() ? "" : ", ") + ("build/" + t.path) +
             (t.framework.empty() ? "" : " (" + t.framework + ")");
  shape.notes.push_back(
      "no CMakeLists.txt here calls add_test or a *_discover_tests: the test legs run what the "
      "build makes "
      "that looks like tests: " +
      names);
  return shape;
}

ProjectShape PytestShape(const Place& at) {
  std::vector<std::string> run = kPytest;
  if (!at.dir.empty()) run.push_back(at.dir);  // pytest finds the directory's own pytest.ini
  std::vector<std::string> test = run, list = run;
  // A mutant's own tests, by node id; a module that cannot import (a test of a name the base
  // lacks, in prove's mixed tree) fails alone, not the whole run.
  test.insert(test.end(), {"--junitxml={results}/pytest.xml", "--continue-on-collection-errors",
                           "{tests_pytest}"});
  list.insert(list.end(), {"--collect-only"});
  std::string commands =
      "  // How mutate and prove test a scratch copy: nothing to build; results as JUnit.\n"
      "  \"commands\": {\"configure\": [\"true\"], \"build_command\": [\"true\"],\n"
      "               \"test_command\": " +
      Argv(test) +
      ",\n"
      "               \"list_command\": " +
      Argv(list) + "},\n";
  return {"pytest",
          Render("pytest", {{"test", "every test", run, {}, false}}, commands, at.root),
          "",
          {}};
}

ProjectShape SimpleShape(const std::string& root, const std::string& kind,
                         const std::vector<InitLeg>& legs) {
  std::string note =
      "  // mutate and prove need \"commands\" for this kind of project: configure, build_command "
      "and a\n"
      "  // test_command that writes JUnit XML into {results} (see specs/mutate.md).\n";
  return {kind, Render(kind, legs, note, root), "", {}};
}

// Meson: scratch copies set up, compile and test as the legs do; `meson setup` refuses a build
// directory it already set up (and Meson 1.0's --reconfigure one it has not), and its JUnit
// report is copied where mutate reads results, so catalogs can name meson's tests.
ProjectShape MesonShape(const Place& at) {
  std::vector<std::string> setup = {"meson", "setup", "build"};
  if (!at.dir.empty()) setup.push_back(at.dir);
  std::vector<InitLeg> legs = {
      {"setup", "configure once into build/", setup, {}, true, "", {"build/build.ninja"}},
      {"build",
       "build everything",
       {"meson", "compile", "-C", "build"},
       {"setup"},
       true,
       "",
       {"build"}},
      {"test", "every test", {"meson", "test", "-C", "build"}, {"build"}, false}};
  std::vector<std::string> configure = {
      "sh",
      "-c",
      "meson setup --reconfigure \"$1\" \"$2\" >/dev/null 2>&1 || meson setup \"$1\" \"$2\"",
      "sh",
      "{build}",
      at.Arg("{tree}")};
  std::vector<std::string> test = {
      "sh",
      "-c",
      "meson test -C \"$1\"; s=$?; cp \"$1/meson-logs/testlog.junit.xml\" \"$2/\"; exit $s",
      "sh",
      "{build}",
      "{results}"};
  std::string commands =
      "  // How mutate and prove set up, build and test a scratch copy: as the legs do, meson's\n"
      "  // JUnit report copied into {results}.\n"
      "  \"commands\": {\"configure\": " +
      Argv(configure) +
      ",\n"
      "               \"build_command\": [\"meson\", \"compile\", \"-C\", \"{build}\"],\n"
      "               \"test_command\": " +
      Argv(test) + "},\n";
  return {"Meson", Render("Meson", legs, commands, at.root), "", {}};
}

// Make: where bear is on PATH, scratch copies build in place under it, so `mutate --generate`
// has the compilation database that make itself never writes.
ProjectShape MakeShape(const Place& at, const std::string& target) {
  std::vector<std::string> make = at.Cmd({"make"}, {"-C", at.dir}), test = make;
  test.push_back(target);
  std::vector<InitLeg> legs = {{"build", "the default target", make, {}, true},
                               {"test", "make " + target, test, {"build"}, false}};
  if (!OnPath("bear")) return SimpleShape(at.root, "Make", legs);
  make.insert(make.begin(), {"bear", "--"});
  std::string commands =
      "  // How mutate and prove build and test a scratch copy: make in it, under bear, whose\n"
      "  // compile_commands.json is where `mutate --generate` finds each file's flags. Declared\n"
      "  // catalogs name tests: give them a test_command that writes JUnit XML into {results}.\n"
      "  \"commands\": {\"configure\": [\"true\"], \"build_command\": " +
      Argv(make) +
      ",\n"
      "               \"test_command\": " +
      Argv(test) + "},\n";
  return {"Make", Render("Make", legs, commands, at.root), "", {}};
}

// The Makefile target that runs the tests: `check` (autotools' name) before `test`; empty when
// the text defines neither at the start of a line.
std::string MakeTestTarget(const std::string& makefile) {
  for (const char* target : {"check:", "test:"}) {
    std::string t = target;
    if (makefile.rfind(t, 0) == 0 || makefile.find("\n" + t) != std::string::npos)
      return t.substr(0, t.size() - 1);
  }
  return "";
}

}  // namespace pg::init
