#include "gates/init/project_init.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "gates/config/json_source.h"
#include "gates/config/suite_config.h"
#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/init/cmake_options.h"
#include "gates/init/test_executables.h"
#include "gates/init/toolchain_probe.h"
#include "gates/runner/input_glob.h"
#include "gates/runner/preflight.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

const char kExampleCatalog[] =
    R"X(// An example mutation catalog, written by `proofgate init`. Copy it to mutations/NAME.json
// (a catalog is any mutations/*.json), fill in your own mutations, and check it with
// `proofgate mutate --list`; `proofgate mutate` proves each one.
//
// A mutation edits one file of a scratch copy of the tree (`find` must occur exactly once)
// and names the tests that must then fail, each with a regex its failure message must match:
// that proves the test is red for the reason it claims, not for another.
{
  "schema_version": 1,
  "mutations": [
    { "id": "M1", "file": "src/calc.cpp", "find": "if (v > hi) return hi;", "replace": "if (v > hi) return v;",
      "expect": [{ "test": "Clamp.ClampsAtTheTop", "message": "^clamp at 100$" }],
      "note": "the upper bound is guarded" },
    // A hole you know of, documented: as claimed while it survives, reported once a test kills it.
    { "id": "M2", "file": "src/calc.cpp", "find": "return a + b;", "replace": "return b + a;",
      "expect": [{ "test": "Add.AddsTwoNumbers" }], "expect_outcome": "survived" }
  ],
  // Two mutations that together leave a test green show which test alone guards what.
  "combos": [ { "id": "C1", "apply": ["M1", "M2"], "expect_green": false } ]
}
)X";

// Where a project's build files are: `dir` under the repository's root ("" for the root
// itself; libexpat keeps its CMake and autotools in expat/).
struct Place {
  std::string root, dir;
  std::string Src() const { return dir.empty() ? root : root + "/" + dir; }
  // `base` (".", "{tree}") made to name the project's directory.
  std::string Arg(const std::string& base) const {
    return dir.empty() ? base : base == "." ? dir : base + "/" + dir;
  }
  // A command's words with the directory's option (`make -C DIR`) after its program.
  std::vector<std::string> Cmd(std::vector<std::string> argv,
                               const std::vector<std::string>& option) const {
    if (!dir.empty()) argv.insert(argv.begin() + 1, option.begin(), option.end());
    return argv;
  }
};

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

struct InitLeg {
  std::string name, comment;
  std::vector<std::string> run;
  std::vector<std::string> needs;
  bool build_dir = false;
  std::string cwd = "";                   // relative to the root; "" for the root
  std::vector<std::string> outputs = {};  // what it makes: a cached pass needs them there
};

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

ProjectShape CMakeShape(const Place& at, const std::vector<TestExecutable>& tests = {}) {
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

// pytest writes caches into the tree; a tree that changes under its own tests is stale.
const std::vector<std::string> kPytest = {"env", "PYTHONDONTWRITEBYTECODE=1", "pytest", "-q",
                                          "-p",  "no:cacheprovider"};

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

bool IsPytest(const std::string& src) {
  auto pyproject = ReadFile(src + "/pyproject.toml");
  auto setup_cfg = ReadFile(src + "/setup.cfg");
  return Has(src, "pytest.ini") || Has(src, "conftest.py") ||
         (pyproject.ok() && pyproject->find("[tool.pytest") != std::string::npos) ||
         (setup_cfg.ok() && setup_cfg->find("[tool:pytest]") != std::string::npos) ||
         !ExpandGlobs(src, {"**/test_*.py", "**/*_test.py"}).empty();
}

// The file each kind is known by ("" for pytest: several), in the order init tries them.
const std::vector<std::pair<std::string, std::string>>& Kinds() {
  static const std::vector<std::pair<std::string, std::string>> kinds = {
      {"cmake", "CMakeLists.txt"}, {"meson", "meson.build"},
      {"cargo", "Cargo.toml"},     {"pytest", ""},
      {"npm", "package.json"},     {"make", "Makefile"}};
  return kinds;
}

bool Holds(const std::string& src, const std::string& kind) {
  for (const auto& [name, file] : Kinds()) {
    if (name == kind) return file.empty() ? IsPytest(src) : Has(src, file);
  }
  return false;
}

// What `kind` is known by, for messages.
std::string KindFile(const std::string& kind) {
  return kind == "pytest"  ? "pytest.ini, conftest.py, pytest settings or test_*.py"
         : kind == "cargo" ? "Cargo.toml"
         : kind == "meson" ? "meson.build"
         : kind == "npm"   ? "package.json"
         : kind == "make"  ? "Makefile"
                           : "CMakeLists.txt";
}

// The shape of `kind` for the project at `at`, which holds its files.
ProjectShape ShapeOf(const Place& at, const std::string& kind) {
  if (kind == "cmake") return CMakeShape(at);
  if (kind == "meson") return MesonShape(at);
  if (kind == "cargo") {
    std::vector<std::string> manifest = {"--manifest-path", at.Arg(".") + "/Cargo.toml"};
    return SimpleShape(
        at.root, "Cargo",
        {{"build", "build everything", at.Cmd({"cargo", "build"}, manifest), {}, true},
         {"test", "every test", at.Cmd({"cargo", "test"}, manifest), {"build"}, false}});
  }
  if (kind == "pytest") return PytestShape(at);
  if (kind == "npm") {
    std::vector<InitLeg> legs;
    std::vector<std::string> prefix = {"--prefix", at.dir};
    if (Has(at.Src(), "package-lock.json"))
      legs.push_back(
          {"install", "the locked dependencies", at.Cmd({"npm", "ci"}, prefix), {}, false});
    legs.push_back({"test", "npm's test script", at.Cmd({"npm", "test"}, prefix),
                    legs.empty() ? std::vector<std::string>{} : std::vector<std::string>{"install"},
                    false});
    return SimpleShape(at.root, "npm", legs);
  }
  auto makefile = ReadFile(at.Src() + "/Makefile");
  return MakeShape(at, makefile.ok() && MakeTestTarget(*makefile) == "check" ? "check" : "test");
}

// Meson's code without its comments and strings: a `test(` there registers nothing.
std::string MesonCode(const std::string& text) {
  std::string code;
  bool quoted = false, comment = false;
  for (char c : text) {
    if (c == '\n')
      quoted = comment = false;
    else if (comment)
      continue;
    else if (c == '\'')
      quoted = !quoted;
    else if (c == '#' && !quoted)
      comment = true;
    if (!comment && !quoted && c != '\'') code += c;
  }
  return code;
}

// A CMake tree that registers no test leaves its tests to the build system that does: Meson's
// `test(` (martinus/unordered_dense), else the Makefile's check or test target (kgabis/parson).
ProjectShape CMakeOrWhatTests(const Place& at) {
  std::string src = at.Src();
  ProjectShape cmake = CMakeShape(at);
  if (cmake.kind != "CMake") return cmake;
  static const std::regex kMesonTest(R"((^|[^A-Za-z0-9_.])test\s*\()");
  if (Has(src, "meson.build") &&
      std::regex_search(MesonCode(AllNamed(src, "meson.build")), kMesonTest)) {
    ProjectShape meson = MesonShape(at);
    meson.why =
        "no CMakeLists.txt here calls add_test or a *_discover_tests, and meson.build registers "
        "tests: the legs "
        "run Meson (init --kind cmake chooses CMake)";
    return meson;
  }
  auto makefile = ReadFile(src + "/Makefile");
  std::string target = makefile.ok() ? MakeTestTarget(*makefile) : "";
  if (target.empty()) return cmake;
  ProjectShape make = MakeShape(at, target);
  make.why = "no CMakeLists.txt here calls add_test or a *_discover_tests, and the Makefile's `" +
             target + "` target runs tests: the legs run make";
  return make;
}

// The project at `at`: `kind` when given, else the first kind whose files are there;
// kInvalidInput when none is there.
StatusOr<ProjectShape> ShapeAt(const Place& at, const std::string& kind) {
  std::string src = at.Src();
  if (!kind.empty()) {
    if (Holds(src, kind)) return ShapeOf(at, kind);
    return Status::Invalid(src + ": no " + KindFile(kind) + " for --kind " + kind);
  }
  if (Holds(src, "cmake")) return CMakeOrWhatTests(at);
  for (const auto& entry : Kinds()) {
    if (Holds(src, entry.first)) return ShapeOf(at, entry.first);
  }
  return Status::Invalid(
      src + ": no build system proofgate knows (CMake, Meson, Cargo, pytest, npm, Make)");
}

// Directories right under root that may hold its project: not hidden, a build tree, docs
// or a vendored tree.
std::vector<std::string> Subdirectories(const std::string& root) {
  static const std::set<std::string> kSkip = {
      "doc",    "docs",   "documentation", "third_party", "thirdparty",   "3rdparty",
      "vendor", "extern", "external",      "deps",        "node_modules", "_deps"};
  std::vector<std::string> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
    std::string name = e.path().filename().string(), lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (!e.is_directory(ec) || name[0] == '.' || lower.starts_with("build") || kSkip.count(lower))
      continue;
    out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The directories, nearest first, from where init was started up to (not including) root.
std::vector<std::string> StartedIn(const std::string& root, const std::string& start) {
  std::vector<std::string> out;
  if (start.empty()) return out;
  fs::path rel =
      fs::path(start).lexically_normal().lexically_relative(fs::path(root).lexically_normal());
  for (; !rel.empty() && rel != "." && *rel.begin() != ".."; rel = rel.parent_path())
    out.push_back(rel.string());
  return out;
}

ProjectShape Below(ProjectShape shape, const std::string& dir) {
  shape.notes.insert(shape.notes.begin(), "the build files are in " + dir +
                                              "/, not at the root: the legs build it from there");
  return shape;
}

// The project's place and shape before a plain CMake shape looks for its test executables.
StatusOr<std::pair<Place, ProjectShape>> Found(const std::string& root, const std::string& start,
                                               const std::string& kind) {
  auto here = ShapeAt({root, ""}, kind);
  if (here.ok()) return std::make_pair(Place{root, ""}, *here);
  for (const std::string& dir : StartedIn(root, start)) {
    auto there = ShapeAt({root, dir}, kind);
    if (there.ok()) return std::make_pair(Place{root, dir}, Below(*there, dir));
  }
  std::vector<std::pair<std::string, ProjectShape>> found;
  for (const std::string& dir : Subdirectories(root)) {
    auto there = ShapeAt({root, dir}, kind);
    if (there.ok()) found.emplace_back(dir, *there);
  }
  if (found.size() == 1)
    return std::make_pair(Place{root, found[0].first}, Below(found[0].second, found[0].first));
  if (found.empty() && !kind.empty()) {
    return Status::Invalid(root + ": --kind " + kind + ": no " + KindFile(kind) +
                           " here or in a directory right under it: "
                           "nothing written");
  }
  if (found.empty()) {
    return Status::Invalid(
        root +
        ": no build system proofgate knows (CMake, Meson, Cargo, pytest, npm, Make), here or in a "
        "directory right under it: nothing written");
  }
  std::string names;
  for (const auto& [dir, shape] : found)
    names += (names.empty() ? "" : ", ") + dir + "/ (" + shape.kind + ")";
  return Status::Invalid(root + ": no build system at the root, and one in each of " + names +
                         ": run init in the one to gate (proofgate init -C DIR): nothing written");
}

}  // namespace

StatusOr<ProjectShape> DetectProject(const std::string& root, const std::string& start,
                                     const std::string& kind) {
  PG_ASSIGN_OR_RETURN(auto found, Found(root, start, kind));
  if (found.second.kind != "CMake") return found.second;
  ProjectShape shape = WithTestExecutables(found.first, found.second);
  if (!found.first.dir.empty() && shape.kind != "CMake") return Below(shape, found.first.dir);
  return shape;
}

// The build directory the legs make, kept out of the tree hash: otherwise the first preflight's
// own build changes the tree while it runs, and its verdict is `stale`. .git/info/exclude is this
// clone's own ignore list: no tracked file changes.
std::string ExcludeBuildDir(const std::string& root) {
  auto repo = git::Discover(root);
  std::string exclude = repo.ok() ? repo->commondir + "info/exclude" : "";
  auto text = exclude.empty() ? StatusOr<std::string>(Status::Io("")) : ReadFile(exclude);
  std::string before = text.ok() ? *text : "";
  Status wrote = exclude.empty() ? Status::Io("no repository") : MakeDirs(repo->commondir + "info");
  if (wrote.ok()) {
    wrote = WriteFileAtomic(
        exclude, before + (before.empty() || before.back() == '\n' ? "" : "\n") +
                     "# added by proofgate init: the build directory its legs make\n/build/\n");
  }
  if (!wrote.ok())
    return "build/ is not ignored by git: add it to .gitignore, or every run that builds changes "
           "the tree";
  return "build/ was not ignored by git: added /build/ to " + exclude +
         " (this clone only; no tracked file changed)";
}

StatusOr<InitResult> InitProject(const std::string& root, const std::string& start,
                                 const std::string& kind) {
  std::string suites = root + "/" + kDefaultConfig;
  if (Has(root, kDefaultConfig))
    return Status::Invalid(suites + " exists: left as it is (init never overwrites)");
  PG_ASSIGN_OR_RETURN(ProjectShape shape, DetectProject(root, start, kind));
  InitResult r{shape, {}, {}};
  if (!shape.why.empty()) r.notes.push_back(shape.why);
  r.notes.insert(r.notes.end(), shape.notes.begin(), shape.notes.end());
  PG_RETURN_IF_ERROR(MakeDirs(root + "/preflight"));
  PG_RETURN_IF_ERROR(WriteFileAtomic(suites, shape.suites));
  r.written.push_back(kDefaultConfig);
  if (!Has(root, "mutations/example.jsonc")) {
    PG_RETURN_IF_ERROR(MakeDirs(root + "/mutations"));
    PG_RETURN_IF_ERROR(WriteFileAtomic(root + "/mutations/example.jsonc", kExampleCatalog));
    r.written.push_back("mutations/example.jsonc");
  }
  auto ignored = git::IsIgnored(root, "build/x");
  bool builds_in_build_dir = shape.kind.rfind("CMake", 0) == 0 || shape.kind == "Meson";
  if (builds_in_build_dir && ignored.ok() && !*ignored) r.notes.push_back(ExcludeBuildDir(root));
  if (shape.kind == "CMake") {  // no CMakeLists.txt registers a test
    r.notes.push_back(
        "no CMakeLists.txt here calls add_test or a *_discover_tests: ctest will find no test and "
        "the "
        "test leg fails until one is registered (or point the leg at your test executable)");
  }
  return r;
}

}  // namespace pg
