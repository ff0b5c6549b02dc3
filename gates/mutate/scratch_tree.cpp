#include "gates/mutate/scratch_tree.h"

#include <filesystem>
#include <functional>
#include <set>

#include "gates/core/file_io.h"
#include "gates/git/git.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

using Visit = std::function<Status(const std::string& rel, const fs::path& path)>;
Status ForEachUnignored(const std::string& root, const Visit& visit);

// Files and symlinks under `root` that git does not ignore, skipping .git. Ignored directories
// are not entered (build trees are large), but what git tracks inside them is visited: a
// project may keep a tracked file in an ignored output folder its tests write into.
Status ForEachFile(const std::string& root, const Visit& visit) {
  PG_ASSIGN_OR_RETURN(std::vector<std::string> tracked, git::TrackedFiles(root));
  std::set<std::string> seen;
  PG_RETURN_IF_ERROR(ForEachUnignored(root, [&](const std::string& rel, const fs::path& path) {
    seen.insert(rel);
    return visit(rel, path);
  }));
  for (const std::string& rel : tracked) {
    std::error_code ec;
    fs::path path = fs::path(root) / rel;
    bool file = fs::is_symlink(path, ec) || fs::is_regular_file(path, ec);
    if (file && !seen.count(rel)) PG_RETURN_IF_ERROR(visit(rel, path));
  }
  return Status();
}

Status ForEachUnignored(const std::string& root, const Visit& visit) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string rel = RelativePath(it->path().generic_string(), root);
    if (rel == ".git" || rel.rfind(".git/", 0) == 0) {
      it.disable_recursion_pending();
      continue;
    }
    bool is_dir = it->is_directory(ec) && !it->is_symlink(ec);
    PG_ASSIGN_OR_RETURN(bool ignored, git::IsIgnored(root, is_dir ? rel + "/" : rel));
    if (ignored && is_dir) it.disable_recursion_pending();
    if (ignored || is_dir) continue;
    PG_RETURN_IF_ERROR(visit(rel, it->path()));
  }
  return ec ? Status::Io(root + ": " + ec.message()) : Status();
}

// Copies one file or symlink, keeping its mode; via a temporary so a copy is whole or absent.
Status CopyOne(const fs::path& from, const fs::path& to, const std::string& rel) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  fs::path temp = to.string() + ".proofgate-copy";
  fs::remove(temp, ec);
  fs::copy(from, temp, fs::copy_options::copy_symlinks, ec);
  if (!ec) fs::rename(temp, to, ec);
  return ec ? Status::Io(rel + ": cannot copy into the scratch tree: " + ec.message()) : Status();
}

bool SameFile(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  bool la = fs::is_symlink(a, ec), lb = fs::is_symlink(b, ec);
  if (la || lb) return la && lb && fs::read_symlink(a, ec) == fs::read_symlink(b, ec);
  // A shortcut: the bytes compared below decide alike, only slower.
  if (!fs::exists(b, ec) || fs::file_size(a, ec) != fs::file_size(b, ec))
    return false;  // proofgate: no-mutate
  if (fs::status(a, ec).permissions() != fs::status(b, ec).permissions()) return false;
  auto x = ReadFile(a.string()), y = ReadFile(b.string());
  return x.ok() && y.ok() && *x == *y;
}

// Removes what the copy has and the user's tree no longer does (never .git).
void RemoveStale(const std::string& dir, const std::set<std::string>& keep) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string rel = RelativePath(it->path().generic_string(), dir);
    if (rel == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if ((!it->is_directory(ec) || it->is_symlink(ec)) && !keep.count(rel))
      stale.push_back(it->path());
  }
  for (const fs::path& p : stale) fs::remove(p, ec);
}

}  // namespace

Status MakeScratchTree(const std::string& root, const std::string& dir) {
  if (fs::exists(dir)) return Status::Internal(dir + " already exists");
  PG_RETURN_IF_ERROR(MakeDirs(dir));
  PG_RETURN_IF_ERROR(ForEachFile(root, [&](const std::string& rel, const fs::path& path) {
    return CopyOne(path, fs::path(dir) / rel, rel);
  }));
  PG_RETURN_IF_ERROR(git::Init(dir));
  return git::CommitAll(dir, "proofgate: scratch copy of " + root).status();
}

Status SyncScratchTree(const std::string& root, const std::string& dir) {
  std::error_code ec;
  std::string partial = dir + ".partial";  // a killed run leaves it here, never half in `dir`
  fs::remove_all(partial, ec);
  if (!fs::exists(fs::path(dir) / ".git", ec)) {
    fs::remove_all(dir, ec);
    PG_RETURN_IF_ERROR(MakeScratchTree(root, partial));
    fs::rename(partial, dir, ec);
    return ec ? Status::Io(dir + ": " + ec.message()) : Status();
  }
  std::set<std::string> keep;
  PG_RETURN_IF_ERROR(ForEachFile(root, [&](const std::string& rel, const fs::path& path) {
    keep.insert(rel);
    fs::path target = fs::path(dir) / rel;
    return SameFile(path, target) ? Status() : CopyOne(path, target, rel);
  }));
  RemoveStale(dir, keep);
  PG_ASSIGN_OR_RETURN(std::vector<std::string> dirty, git::Dirty(dir));
  if (dirty.empty()) return Status();
  return git::CommitAll(dir, "proofgate: sync with " + root).status();
}

namespace {

// The scratch repository ignores the links themselves: a user's "node_modules/" pattern matches
// a directory, and a link is a file to git, which would leave every scratch tree dirty.
Status ExcludeLinks(const std::string& dir, const std::vector<std::string>& carry) {
  std::string path = dir + "/.git/info/exclude";
  auto text = ReadFile(path);
  std::string have = text.ok() ? *text : "";
  std::string add;
  for (const std::string& rel : carry) {
    if (have.find("\n/" + rel + "\n") == std::string::npos && have.rfind("/" + rel + "\n", 0) != 0)
      add += "/" + rel + "\n";
  }
  if (add.empty()) return Status();
  std::error_code ec;
  fs::create_directories(dir + "/.git/info", ec);
  if (!have.empty() && have.back() != '\n') have += '\n';
  return WriteFileAtomic(path, have + add);
}

}  // namespace

Status LinkCarried(const std::string& root, const std::string& dir,
                   const std::vector<std::string>& carry) {
  PG_RETURN_IF_ERROR(ExcludeLinks(dir, carry));
  for (const std::string& rel : carry) {
    std::error_code ec;
    fs::path source = fs::absolute(fs::path(root) / rel, ec), link = fs::path(dir) / rel;
    bool has = fs::exists(source, ec);
    if (fs::is_symlink(link, ec)) {
      if (has && fs::read_symlink(link, ec) == source) continue;
      fs::remove(link, ec);
    } else if (fs::exists(link, ec)) {
      return Status::Io(link.string() +
                        ": a carried path is in the scratch tree as a copy, not a link");
    }
    if (!has) continue;
    fs::create_directories(link.parent_path(), ec);
    fs::create_symlink(source, link, ec);
    if (ec) return Status::Io(link.string() + ": cannot link the carried path: " + ec.message());
  }
  return Status();
}

}  // namespace pg
