#include "git/git.h"

#include <git2.h>
#include <git2/sys/mempack.h>

#include <memory>
#include <mutex>

namespace pg::git {
namespace {

void EnsureInit() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

Status GitError(const std::string& what) {
  const git_error* e = git_error_last();
  return Status::Io(what + ": " + (e && e->message ? e->message : "unknown libgit2 error"));
}

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using RepoPtr = std::unique_ptr<git_repository, Deleter<git_repository, git_repository_free>>;
using IndexPtr = std::unique_ptr<git_index, Deleter<git_index, git_index_free>>;
using OdbPtr = std::unique_ptr<git_odb, Deleter<git_odb, git_odb_free>>;
using TreePtr = std::unique_ptr<git_tree, Deleter<git_tree, git_tree_free>>;
using SigPtr = std::unique_ptr<git_signature, Deleter<git_signature, git_signature_free>>;
using RefPtr = std::unique_ptr<git_reference, Deleter<git_reference, git_reference_free>>;
using CommitPtr = std::unique_ptr<git_commit, Deleter<git_commit, git_commit_free>>;

std::string Hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

StatusOr<RepoPtr> Open(const std::string& path) {
  EnsureInit();
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, path.c_str(), 0, nullptr) != 0) {
    return Status::Invalid(path + ": not inside a git repository");
  }
  return RepoPtr(raw);
}

// Stages the whole working directory (additions, edits and deletions) into the repository's
// in-memory index.
StatusOr<IndexPtr> StageAll(git_repository* repo) {
  git_index* raw = nullptr;
  if (git_repository_index(&raw, repo) != 0) return GitError("cannot read the index");
  IndexPtr index(raw);
  char star[] = "*";
  char* patterns[] = {star};
  git_strarray paths = {patterns, 1};
  if (git_index_add_all(index.get(), &paths, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr) != 0) {
    return GitError("cannot hash the working directory");
  }
  return index;
}

}  // namespace

StatusOr<Repo> Discover(const std::string& path) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(path));
  const char* workdir = git_repository_workdir(repo.get());
  if (!workdir) return Status::Invalid(path + ": a bare repository has no working tree");
  return Repo{workdir, git_repository_path(repo.get())};
}

StatusOr<std::string> WorkingTreeHash(const std::string& workdir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  git_odb* raw_odb = nullptr;
  if (git_repository_odb(&raw_odb, repo.get()) != 0) return GitError("cannot open the object database");
  OdbPtr odb(raw_odb);
  // Highest priority: every object written below lands in memory, not in .git/objects.
  git_odb_backend* mempack = nullptr;
  if (git_mempack_new(&mempack) != 0 || git_odb_add_backend(odb.get(), mempack, 1000) != 0) {
    return GitError("cannot create an in-memory object store");
  }
  PG_ASSIGN_OR_RETURN(IndexPtr index, StageAll(repo.get()));
  git_oid tree;
  int rc = git_index_write_tree(&tree, index.get());
  git_mempack_reset(mempack);
  if (rc != 0) return GitError("cannot compute the tree hash");
  return Hex(tree);
}

std::string HashBytes(std::string_view data) {
  EnsureInit();
  git_oid oid;
  git_odb_hash(&oid, data.data(), data.size(), GIT_OBJECT_BLOB);
  return Hex(oid);
}

Status Init(const std::string& path) {
  EnsureInit();
  git_repository* raw = nullptr;
  if (git_repository_init(&raw, path.c_str(), 0) != 0) return GitError(path + ": git init failed");
  git_repository_free(raw);
  return Status();
}

StatusOr<std::string> CommitAll(const std::string& workdir, const std::string& message) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_ASSIGN_OR_RETURN(IndexPtr index, StageAll(repo.get()));
  git_oid tree_id, commit_id;
  if (git_index_write(index.get()) != 0 || git_index_write_tree(&tree_id, index.get()) != 0) {
    return GitError("cannot write the index");
  }
  git_tree* raw_tree = nullptr;
  git_signature* raw_sig = nullptr;
  if (git_tree_lookup(&raw_tree, repo.get(), &tree_id) != 0) return GitError("cannot read the tree");
  TreePtr tree(raw_tree);
  if (git_signature_now(&raw_sig, "proofgate", "proofgate@localhost") != 0) {
    return GitError("cannot make a signature");
  }
  SigPtr sig(raw_sig);
  git_reference* raw_head = nullptr;
  CommitPtr parent;
  if (git_repository_head(&raw_head, repo.get()) == 0) {
    RefPtr head(raw_head);
    git_commit* raw_parent = nullptr;
    if (git_commit_lookup(&raw_parent, repo.get(), git_reference_target(head.get())) != 0) {
      return GitError("cannot read HEAD");
    }
    parent.reset(raw_parent);
  }
  const git_commit* parents[] = {parent.get()};
  if (git_commit_create(&commit_id, repo.get(), "HEAD", sig.get(), sig.get(), nullptr,
                        message.c_str(), tree.get(), parent ? 1 : 0, parents) != 0) {
    return GitError("cannot commit");
  }
  return Hex(commit_id);
}

}  // namespace pg::git
