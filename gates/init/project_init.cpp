#include "gates/init/project_init.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <set>

#include "gates/config/suite_config.h"
#include "gates/core/file_io.h"
#include "gates/git/git.h"
#include "gates/init/project_shapes.h"
#include "gates/runner/input_glob.h"
#include "gates/runner/preflight.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

using init::AllNamed;
using init::CMakeShape;
using init::Has;
using init::InitLeg;
using init::MakeShape;
using init::MakeTestTarget;
using init::MesonShape;
using init::Place;
using init::PytestShape;
using init::SimpleShape;
using init::WithTestExecutables;

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
