#include "gates/generate/discover.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "gates/generate/clang_database.h"
#include "gates/generate/clang_loader.h"
#include "gates/generate/file_points.h"
#include "gates/generate/no_mutate.h"
#include "gates/generate/source_kind.h"
#include "gates/generate/test_reach.h"
#include "gates/git/git.h"
#include "gates/runner/input_glob.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

// A relative path that stays inside the root ("src", "src/a.cpp"), without "." or a trailing /.
std::string Clean(const std::string& path) {
  std::string p = fs::path(path).lexically_normal().string();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p == "." ? "" : p;
}

struct Wanted {
  std::string rel;
  bool named = false;           // named as a file: parsed even when it is a test's own source
  std::vector<std::string> by;  // a header: the compiled sources including it (absolute)
};

// The files of `tree` (absolute) the PATHS select, relative, minus the excluded ones.
std::vector<Wanted> Select(const DiscoverOptions& o, const std::vector<std::string>& files,
                           const std::string& tree) {
  std::vector<Wanted> out;
  for (const std::string& abs : files) {
    if (abs.rfind(tree + "/", 0) != 0) continue;  // generated sources, other trees, the system's
    std::string rel = abs.substr(tree.size() + 1);
    bool excluded = std::any_of(o.exclude.begin(), o.exclude.end(),
                                [&](const std::string& g) { return GlobMatch(g, rel); });
    if (excluded) continue;
    Wanted w{rel, false, {}};
    bool picked = o.paths.empty();
    for (const std::string& p : o.paths) {
      std::string c = Clean(p);
      if (c.empty() || rel == c || rel.rfind(c + "/", 0) == 0) picked = true;
      if (rel == c) w.named = true;
    }
    if (picked) out.push_back(w);
  }
  return out;
}

bool Overlaps(const Point& p, const std::set<int>& lines) {
  auto [first, last] = PointLines(p);
  auto it = lines.lower_bound(first);
  return it != lines.end() && *it <= last;
}

bool IsC(const std::string& path) {
  return path.size() > 2 && path.compare(path.size() - 2, 2, ".c") == 0;
}

// Headers under PATHS that compiled files include, each with its includers; `notices` says how
// many headers were left out because nothing compiled includes them or Ninja keeps no log.
StatusOr<std::vector<Wanted>> Headers(const DiscoverOptions& o, const std::string& tree,
                                      const std::string& build_dir,
                                      std::vector<std::string>* notices) {
  PG_ASSIGN_OR_RETURN(auto includers, Includers(build_dir));
  std::vector<std::string> included, all;
  for (const auto& [header, sources] : includers) {
    if (IsHeaderFile(header)) included.push_back(header);
  }
  std::vector<Wanted> out = Select(o, included, tree);
  for (Wanted& w : out) w.by = includers[tree + "/" + w.rel];
  auto tracked = git::TrackedFiles(o.root);
  for (const std::string& rel : tracked.ok() ? *tracked : std::vector<std::string>{}) {
    if (IsHeaderFile(rel) && !includers.count(tree + "/" + rel)) all.push_back(tree + "/" + rel);
  }
  size_t unused = Select(o, all, tree).size();
  if (unused > 0) {
    notices->push_back(std::to_string(unused) + " header(s) under PATHS not mutated: " +
                       (includers.empty()
                            ? std::string("the build keeps no dependency log or depfiles")
                            : std::string("no compiled file of the tree includes them")));
  }
  return out;
}

// Numbers the mutants in reading order and gathers each file's schema points; `c_files` are
// the files compiled as C (a header: as the source it was parsed through).
void Number(std::vector<std::pair<Mutation, SchemaPoint>> found,
            const std::set<std::string>& c_files, Discovered* out) {
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.file, a.first.line, a.first.column) <
           std::tie(b.first.file, b.first.line, b.first.column);
  });
  int number = 0;
  for (auto& [m, s] : found) {
    m.schema_number = s.number = ++number;
    if (out->schemata.empty() || out->schemata.back().file != m.file) {
      out->schemata.push_back(Schema{m.file, c_files.count(m.file) > 0, {}});
    }
    out->schemata.back().points.push_back(s);
    out->mutations.push_back(std::move(m));
  }
}

Mutation MutationOf(const Point& p, const std::string& text,
                    const std::vector<std::string>& tests) {
  Mutation m;
  m.id = PointId(p);
  m.file = p.file;
  m.find = p.original;
  m.replace = p.replacement;
  m.offset = p.offset;
  m.generated = true;
  m.tests = tests;
  m.line = p.line;
  m.column = p.column;
  m.op = std::string(OperatorName(p.op));
  m.change = PointChange(p, text);
  m.diff = PointDiff(p, text);
  return m;
}

}  // namespace

Status CheckDiscoverOptions(const DiscoverOptions& o) {
  for (const std::string& p : o.paths) {
    std::string c = Clean(p);
    std::error_code ec;
    if (fs::path(p).is_absolute() || c.rfind("..", 0) == 0 || !fs::exists(o.root + "/" + c, ec)) {
      return Status::Invalid("--generate " + p + ": not a file or directory inside " + o.root);
    }
    // Before any build: a Python file is refused in words, not with "no compile_commands.json".
    if (fs::is_regular_file(o.root + "/" + c, ec) && !IsSourceFile(c) && !IsHeaderFile(c)) {
      return Status::Invalid("--generate " + p +
                             ": mutate --generate makes mutants of C and C++ sources and headers "
                             "(.c .cc .cpp .cxx .h .hpp ...); this is not one");
    }
  }
  if (!o.in_diff.empty()) {
    auto base = git::ResolveCommit(o.root, o.in_diff);
    if (!base.ok())
      return Status::Invalid("--in-diff " + o.in_diff + ": " + base.status().message());
  }
  return Status();
}

namespace {

// The points of one wanted file, as mutants: a source parsed as itself, a header through the
// first source including it.
Status AddFile(const DiscoverOptions& o, const Wanted& w, const std::string& tree,
               const std::string& build_dir, const std::vector<std::string>& reaching,
               const std::map<std::string, std::set<int>>& changed,
               std::vector<std::pair<Mutation, SchemaPoint>>* found, std::set<std::string>* ids,
               Discovered* out, std::vector<std::string>* test_sources) {
  std::string file = tree + "/" + w.rel;
  PG_ASSIGN_OR_RETURN(ParsedFile parsed, w.by.empty()
                                             ? FindPoints(build_dir, file, o.ops)
                                             : FindPoints(build_dir, w.by.front(), o.ops, file));
  if (parsed.includes_test_framework && !w.named) {
    test_sources->push_back(w.rel);
    return Status();
  }
  if (!parsed.warning.empty()) out->notices.push_back(w.rel + ": " + parsed.warning);
  std::set<int> marked = NoMutateLines(parsed.text);
  auto lines = changed.find(w.rel);
  for (Point& p : parsed.points) {
    p.file = w.rel;
    Locate(parsed.text, &p);
    bool outside = !o.in_diff.empty() && (lines == changed.end() || !Overlaps(p, lines->second));
    if (MarkedNoMutate(p, marked) || outside) continue;
    Mutation m = MutationOf(p, parsed.text, reaching);
    if (ids->insert(m.id).second) found->emplace_back(std::move(m), SchemaPointOf(p));
  }
  return Status();
}

std::string Listed(size_t n, const char* what, const std::vector<std::string>& files) {
  return std::to_string(n) + what + files.front() + (files.size() > 1 ? ", …" : "");
}

}  // namespace

StatusOr<Discovered> DiscoverMutants(const DiscoverOptions& o, const std::string& tree,
                                     const std::string& build_dir,
                                     const std::vector<CtestTest>& tests) {
  PG_RETURN_IF_ERROR(LoadLibclang());
  PG_ASSIGN_OR_RETURN(std::vector<std::string> compiled, CompiledFiles(build_dir));
  Discovered out;
  std::vector<Wanted> wanted = Select(o, compiled, tree);
  PG_ASSIGN_OR_RETURN(std::vector<Wanted> headers, Headers(o, tree, build_dir, &out.notices));
  wanted.insert(wanted.end(), headers.begin(), headers.end());
  std::map<std::string, std::set<int>> changed;
  if (!o.in_diff.empty()) {
    PG_ASSIGN_OR_RETURN(changed, git::LinesChangedSince(o.root, o.in_diff));
    wanted.erase(std::remove_if(wanted.begin(), wanted.end(),
                                [&](const Wanted& w) { return !changed.count(w.rel); }),
                 wanted.end());
  }
  std::set<std::string>
      reached;  // the sources whose tests are looked up: each wanted one, and each includer
  for (const Wanted& w : wanted) {
    if (w.by.empty()) reached.insert(tree + "/" + w.rel);
    reached.insert(w.by.begin(), w.by.end());
  }
  PG_ASSIGN_OR_RETURN(Reach reach,
                      TestsReaching(build_dir, tests, {reached.begin(), reached.end()}));
  if (!reach.notice.empty()) out.notices.push_back(reach.notice);
  std::vector<std::string> unreached, test_sources;
  std::set<std::string> ids, c_files;
  std::vector<std::pair<Mutation, SchemaPoint>> found;
  for (const Wanted& w : wanted) {
    std::set<std::string> union_of;
    for (const std::string& src :
         w.by.empty() ? std::vector<std::string>{tree + "/" + w.rel} : w.by) {
      for (const std::string& t : reach.For(src)) union_of.insert(t);
    }
    if (union_of.empty()) {
      unreached.push_back(w.rel);
      continue;
    }
    if (IsC(w.by.empty() ? w.rel : w.by.front())) c_files.insert(w.rel);
    PG_RETURN_IF_ERROR(AddFile(o, w, tree, build_dir, {union_of.begin(), union_of.end()}, changed,
                               &found, &ids, &out, &test_sources));
  }
  Number(std::move(found), c_files,
         &out);  // reading order within a file (the walk's order is the AST's)
  if (!unreached.empty() && tests.empty()) {
    out.notices.push_back(
        "the build registers no ctest test, so no file is reached: is testing on in suites.json's "
        "configure "
        "command (BUILD_TESTING, or the project's own option)? A test executable the build makes "
        "but "
        "never registers runs through suites.json's \"commands\": {\"test_command\": [...]}");
  } else if (!unreached.empty()) {
    out.notices.push_back(
        Listed(unreached.size(), " file(s) no test reaches, not mutated: ", unreached));
  }
  if (!test_sources.empty()) {
    out.notices.push_back(
        Listed(test_sources.size(),
               " test source(s) left unmutated (name one to mutate it): ", test_sources));
  }
  return out;
}

}  // namespace pg
