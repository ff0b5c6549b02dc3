#include "mutations/scratch_tree.h"

#include <filesystem>

#include "core/file_io.h"
#include "git/git.h"

namespace fs = std::filesystem;

namespace pg {
namespace {

// Files and symlinks under `root` that git does not ignore, with their modes (scripts stay
// executable), skipping .git. Ignored directories are not entered (build trees are large).
Status CopyTree(const std::string& root, const std::string& dir) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string rel = fs::relative(it->path(), root, ec).generic_string();
    if (rel == ".git" || rel.rfind(".git/", 0) == 0) {
      it.disable_recursion_pending();
      continue;
    }
    bool is_dir = it->is_directory(ec) && !it->is_symlink(ec);
    PG_ASSIGN_OR_RETURN(bool ignored, git::IsIgnored(root, is_dir ? rel + "/" : rel));
    if (ignored) {
      if (is_dir) it.disable_recursion_pending();
      continue;
    }
    fs::path target = fs::path(dir) / rel;
    if (is_dir) {
      fs::create_directories(target, ec);
    } else {
      fs::create_directories(target.parent_path(), ec);
      fs::copy(it->path(), target, fs::copy_options::copy_symlinks | fs::copy_options::overwrite_existing, ec);
    }
    if (ec) return Status::Io(rel + ": cannot copy into the scratch tree: " + ec.message());
  }
  return ec ? Status::Io(root + ": " + ec.message()) : Status();
}

}  // namespace

Status MakeScratchTree(const std::string& root, const std::string& dir) {
  if (fs::exists(dir)) return Status::Internal(dir + " already exists");
  PG_RETURN_IF_ERROR(MakeDirs(dir));
  PG_RETURN_IF_ERROR(CopyTree(root, dir));
  PG_RETURN_IF_ERROR(git::Init(dir));
  return git::CommitAll(dir, "proofgate: scratch copy of " + root).status();
}

StatusOr<AppliedMutation> AppliedMutation::Apply(const std::string& tree, const Mutation& m) {
  AppliedMutation a;
  a.tree_ = tree;
  a.path_ = tree + "/" + m.file;
  PG_ASSIGN_OR_RETURN(a.original_, ReadFile(a.path_));
  a.original_hash_ = git::HashBytes(a.original_);
  if (a.original_.compare(m.offset, m.find.size(), m.find) != 0) {
    return Status::Invalid("mutation \"" + m.id + "\": " + m.file + " changed since the catalog was checked");
  }
  std::string mutated = a.original_;
  mutated.replace(m.offset, m.find.size(), m.replace);
  a.perms_ = static_cast<unsigned>(fs::status(a.path_).permissions());
  PG_RETURN_IF_ERROR(a.Write(mutated));
  return a;
}

// Atomic replace keeps readers from seeing half a file; the mode is put back because the
// replacement is a new file (an executable script must stay executable).
Status AppliedMutation::Write(const std::string& content) {
  PG_RETURN_IF_ERROR(WriteFileAtomic(path_, content));
  std::error_code ec;
  fs::permissions(path_, static_cast<fs::perms>(perms_), ec);
  return ec ? Status::Io(path_ + ": cannot restore its mode: " + ec.message()) : Status();
}

Status AppliedMutation::Restore() {
  PG_RETURN_IF_ERROR(Write(original_));
  PG_ASSIGN_OR_RETURN(std::string now, ReadFile(path_));
  if (git::HashBytes(now) != original_hash_) return Status::Internal(path_ + ": restored bytes differ from the original");
  PG_ASSIGN_OR_RETURN(std::vector<std::string> dirty, git::Dirty(tree_));
  if (!dirty.empty()) return Status::Internal(tree_ + ": not clean after restoring (" + dirty.front() + ")");
  return Status();
}

}  // namespace pg
