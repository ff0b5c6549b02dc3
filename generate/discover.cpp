#include "generate/discover.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "generate/clang_points.h"
#include "generate/no_mutate.h"
#include "generate/test_reach.h"
#include "git/git.h"
#include "runner/input_glob.h"

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
  bool named = false;  // named as a file: parsed even when it is a test's own source
};

// The compiled files of `tree` the PATHS select, relative, minus the excluded ones.
std::vector<Wanted> Select(const DiscoverOptions& o, const std::vector<std::string>& compiled, const std::string& tree) {
  std::vector<Wanted> out;
  for (const std::string& abs : compiled) {
    if (abs.rfind(tree + "/", 0) != 0) continue;  // generated sources, other trees
    std::string rel = abs.substr(tree.size() + 1);
    bool excluded = std::any_of(o.exclude.begin(), o.exclude.end(), [&](const std::string& g) { return GlobMatch(g, rel); });
    if (excluded) continue;
    Wanted w{rel, false};
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

bool IsC(const std::string& path) { return path.size() > 2 && path.compare(path.size() - 2, 2, ".c") == 0; }

// Numbers the mutants in reading order and gathers each file's schema points.
void Number(std::vector<std::pair<Mutation, SchemaPoint>> found, Discovered* out) {
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.file, a.first.line, a.first.column) < std::tie(b.first.file, b.first.line, b.first.column);
  });
  int number = 0;
  for (auto& [m, s] : found) {
    m.schema_number = s.number = ++number;
    if (out->schemata.empty() || out->schemata.back().file != m.file) out->schemata.push_back(Schema{m.file, IsC(m.file), {}});
    out->schemata.back().points.push_back(s);
    out->mutations.push_back(std::move(m));
  }
}

Mutation MutationOf(const Point& p, const std::string& text, const std::vector<std::string>& tests) {
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
  }
  if (!o.in_diff.empty()) {
    auto base = git::ResolveCommit(o.root, o.in_diff);
    if (!base.ok()) return Status::Invalid("--in-diff " + o.in_diff + ": " + base.status().message());
  }
  return Status();
}

StatusOr<Discovered> DiscoverMutants(const DiscoverOptions& o, const std::string& tree, const std::string& build_dir,
                                     const std::vector<CtestTest>& tests) {
  PG_ASSIGN_OR_RETURN(std::vector<std::string> compiled, CompiledFiles(build_dir));
  std::vector<Wanted> wanted = Select(o, compiled, tree);
  std::map<std::string, std::set<int>> changed;
  if (!o.in_diff.empty()) {
    PG_ASSIGN_OR_RETURN(changed, git::LinesChangedSince(o.root, o.in_diff));
    wanted.erase(std::remove_if(wanted.begin(), wanted.end(), [&](const Wanted& w) { return !changed.count(w.rel); }),
                 wanted.end());
  }
  std::vector<std::string> abs;
  for (const Wanted& w : wanted) abs.push_back(tree + "/" + w.rel);
  PG_ASSIGN_OR_RETURN(Reach reach, TestsReaching(build_dir, tests, abs));
  Discovered out;
  if (!reach.notice.empty()) out.notices.push_back(reach.notice);
  std::vector<std::string> unreached, test_sources;
  std::set<std::string> ids;
  std::vector<std::pair<Mutation, SchemaPoint>> found;
  for (const Wanted& w : wanted) {
    std::vector<std::string> reaching = reach.For(tree + "/" + w.rel);
    if (reaching.empty()) {
      unreached.push_back(w.rel);
      continue;
    }
    PG_ASSIGN_OR_RETURN(ParsedFile parsed, FindPoints(build_dir, tree + "/" + w.rel, o.ops));
    if (parsed.includes_test_framework && !w.named) {
      test_sources.push_back(w.rel);
      continue;
    }
    if (!parsed.warning.empty()) out.notices.push_back(w.rel + ": " + parsed.warning);
    std::set<int> marked = NoMutateLines(parsed.text);
    for (Point& p : parsed.points) {
      p.file = w.rel;
      Locate(parsed.text, &p);
      if (MarkedNoMutate(p, marked) || (!o.in_diff.empty() && !Overlaps(p, changed[w.rel]))) continue;
      Mutation m = MutationOf(p, parsed.text, reaching);
      if (ids.insert(m.id).second) found.emplace_back(std::move(m), SchemaPointOf(p));
    }
  }
  Number(std::move(found), &out);  // reading order within a file (the walk's order is the AST's)
  if (!unreached.empty()) {
    out.notices.push_back(std::to_string(unreached.size()) + " file(s) no test reaches, not mutated: " + unreached.front() +
                          (unreached.size() > 1 ? ", …" : ""));
  }
  if (!test_sources.empty()) {
    out.notices.push_back(std::to_string(test_sources.size()) + " test source(s) left unmutated (name one to mutate it): " +
                          test_sources.front() + (test_sources.size() > 1 ? ", …" : ""));
  }
  return out;
}

}  // namespace pg
