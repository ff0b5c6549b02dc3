// The file sets of `preflight --staged/--base/--all-files`, and the index written back into
// the working tree (what `--staged` runs on).
#include <git2/sys/repository.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "gates/git/git.h"
#include "gates/git/git_handles.h"

namespace pg::git {
namespace {

// A hook's index: `git commit -a` and `git commit PATH` stage into a temporary index and name
// it in GIT_INDEX_FILE (relative to the working tree's top, where hooks run); libgit2 reads
// only .git/index unless it is told.
Status UseHooksIndex(git_repository* repo) {
  const char* file = std::getenv("GIT_INDEX_FILE");
  if (!file || !*file) return Status();
  std::string path = file;
  if (path[0] != '/') path = std::string(git_repository_workdir(repo)) + path;
  git_index* raw = nullptr;
  if (git_index_open(&raw, path.c_str()) != 0)
    return GitError("GIT_INDEX_FILE " + path + ": cannot read it");
  IndexPtr index(raw);
  git_repository_set_index(repo, index.get());
  return Status();
}

StatusOr<RepoPtr> OpenWithIndex(const std::string& workdir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_RETURN_IF_ERROR(UseHooksIndex(repo.get()));
  return repo;
}

StatusOr<IndexPtr> IndexOf(git_repository* repo) {
  git_index* raw = nullptr;
  if (git_repository_index(&raw, repo) != 0) return GitError("cannot read the index");
  return IndexPtr(raw);
}

// New-side paths of a diff's deltas, deleted ones left out, sorted.
std::vector<std::string> PathsOf(git_diff* diff) {
  std::vector<std::string> out;
  for (size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff, i);
    if (d->status != GIT_DELTA_DELETED) out.push_back(d->new_file.path);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// HEAD's tree, or null before the first commit.
StatusOr<TreePtr> HeadTree(git_repository* repo) {
  git_object* raw = nullptr;
  if (git_revparse_single(&raw, repo, "HEAD^{tree}") != 0) return TreePtr();
  return TreePtr(reinterpret_cast<git_tree*>(raw));
}

}  // namespace

StatusOr<std::vector<std::string>> StagedFiles(const std::string& workdir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, OpenWithIndex(workdir));
  PG_ASSIGN_OR_RETURN(IndexPtr index, IndexOf(repo.get()));
  PG_ASSIGN_OR_RETURN(TreePtr head, HeadTree(repo.get()));
  git_diff* raw = nullptr;
  if (git_diff_tree_to_index(&raw, repo.get(), head.get(), index.get(), nullptr) != 0) {
    return GitError("cannot diff the index against HEAD");
  }
  DiffPtr diff(raw);
  return PathsOf(diff.get());
}

StatusOr<std::vector<std::string>> FilesChangedSince(const std::string& workdir,
                                                     const std::string& base) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, OpenWithIndex(workdir));
  PG_ASSIGN_OR_RETURN(TreePtr tree, MergeBaseTree(repo.get(), workdir, base));
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
  git_diff* raw = nullptr;
  if (git_diff_tree_to_workdir_with_index(&raw, repo.get(), tree.get(), &opts) != 0) {
    return GitError("cannot diff the working tree");
  }
  DiffPtr diff(raw);
  return PathsOf(diff.get());
}

StatusOr<std::vector<std::string>> WorkingFiles(const std::string& workdir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, OpenWithIndex(workdir));
  PG_ASSIGN_OR_RETURN(IndexPtr index, IndexOf(repo.get()));
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS;
  git_diff* raw = nullptr;
  if (git_diff_index_to_workdir(&raw, repo.get(), index.get(), &opts) != 0)
    return GitError("cannot diff the working tree");
  DiffPtr diff(raw);
  std::set<std::string> out;
  for (size_t i = 0; i < git_index_entrycount(index.get()); ++i)
    out.insert(git_index_get_byindex(index.get(), i)->path);
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    if (d->status == GIT_DELTA_DELETED) out.erase(d->old_file.path);
    if (d->status == GIT_DELTA_UNTRACKED) out.insert(d->new_file.path);
  }
  return std::vector<std::string>(out.begin(), out.end());
}

StatusOr<std::vector<std::string>> UnstagedFiles(const std::string& workdir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, OpenWithIndex(workdir));
  PG_ASSIGN_OR_RETURN(IndexPtr index, IndexOf(repo.get()));
  if (git_index_has_conflicts(index.get())) {
    return Status::Invalid(std::string(git_repository_workdir(repo.get())) +
                           ": the index has unmerged paths; resolve them first");
  }
  // A submodule's own changes are no file of this tree to set aside (git commit leaves them).
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.flags =
      GIT_DIFF_IGNORE_SUBMODULES | GIT_DIFF_INCLUDE_TYPECHANGE;  // a file turned link: one path
  git_diff* raw = nullptr;
  if (git_diff_index_to_workdir(&raw, repo.get(), index.get(), &opts) != 0)
    return GitError("cannot diff the working tree");
  DiffPtr diff(raw);
  std::vector<std::string> out;
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const char* path = git_diff_get_delta(diff.get(), i)->old_file.path;
    // A sparse checkout's skipped file is absent by design, no deletion: git leaves it alone,
    // and checking it out (to set it aside) made git clear its bit once it was there.
    const git_index_entry* entry = git_index_get_bypath(index.get(), path, 0);
    if (entry && (entry->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE)) continue;
    out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Status CheckoutIndex(const std::string& workdir, const std::vector<std::string>& paths) {
  if (paths.empty()) return Status();
  PG_ASSIGN_OR_RETURN(RepoPtr repo, OpenWithIndex(workdir));
  PG_ASSIGN_OR_RETURN(IndexPtr index, IndexOf(repo.get()));
  std::vector<char*> names;
  for (const std::string& p : paths) names.push_back(const_cast<char*>(p.c_str()));
  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  opts.checkout_strategy =
      GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH | GIT_CHECKOUT_DONT_WRITE_INDEX;
  opts.paths = {names.data(), names.size()};
  if (git_checkout_index(repo.get(), index.get(), &opts) != 0)
    return GitError("cannot write the index into the working tree");
  return Status();
}

StatusOr<std::string> IndexTreeHash(const std::string& workdir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, OpenWithIndex(workdir));
  OdbPtr odb;
  PG_ASSIGN_OR_RETURN(git_odb_backend * mempack, WriteToMemory(repo.get(), &odb));
  PG_ASSIGN_OR_RETURN(IndexPtr index, IndexOf(repo.get()));
  git_oid tree;
  int rc = git_index_write_tree_to(&tree, index.get(), repo.get());
  git_mempack_reset(mempack);
  if (rc != 0) return GitError("cannot compute the index's tree");
  return Hex(tree);
}

StatusOr<std::string> IndexedBytes(const std::string& workdir, const std::string& path) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, OpenWithIndex(workdir));
  PG_ASSIGN_OR_RETURN(IndexPtr index, IndexOf(repo.get()));
  const git_index_entry* entry = git_index_get_bypath(index.get(), path.c_str(), 0);
  git_blob* raw = nullptr;
  if (!entry || git_blob_lookup(&raw, repo.get(), &entry->id) != 0)
    return Status::Invalid(path + ": not in the index");
  BlobPtr blob(raw);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                     git_blob_rawsize(blob.get()));
}

}  // namespace pg::git
