// libgit2's handles and the few helpers every file of gates/git shares: the only header of
// ours that includes <git2.h>, and only gates/git/*.cpp include it.
#pragma once

#include <git2.h>
#include <git2/sys/mempack.h>

#include <memory>
#include <mutex>
#include <string>

#include "gates/core/status.h"
#include "gates/git/git.h"

namespace pg::git {

inline void EnsureInit() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

inline Status GitError(const std::string& what) {
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

inline std::string Hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1];
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

// From here on, objects written through `repo` land in the returned in-memory store (reset it
// when done), not in .git/objects: a tree id computed without writing the repository.
inline StatusOr<git_odb_backend*> WriteToMemory(git_repository* repo, OdbPtr* odb) {
  git_odb* raw_odb = nullptr;
  if (git_repository_odb(&raw_odb, repo) != 0) return GitError("cannot open the object database");
  odb->reset(raw_odb);
  git_odb_backend* mempack = nullptr;  // highest priority: writes go here
  if (git_mempack_new(&mempack) != 0 || git_odb_add_backend(odb->get(), mempack, 1000) != 0) {
    return GitError("cannot create an in-memory object store");
  }
  return mempack;
}

inline StatusOr<RepoPtr> Open(const std::string& path) {
  EnsureInit();
  git_repository* raw = nullptr;
  if (git_repository_open_ext(&raw, path.c_str(), 0, nullptr) != 0) {
    return Status::Invalid(path + ": not inside a git repository");
  }
  return RepoPtr(raw);
}

using WalkPtr = std::unique_ptr<git_revwalk, Deleter<git_revwalk, git_revwalk_free>>;
using DiffPtr = std::unique_ptr<git_diff, Deleter<git_diff, git_diff_free>>;
using PatchPtr = std::unique_ptr<git_patch, Deleter<git_patch, git_patch_free>>;
using BlobPtr = std::unique_ptr<git_blob, Deleter<git_blob, git_blob_free>>;
using EntryPtr = std::unique_ptr<git_tree_entry, Deleter<git_tree_entry, git_tree_entry_free>>;

inline StatusOr<CommitPtr> LookupCommit(git_repository* repo, const std::string& id) {
  git_oid oid;
  git_commit* raw = nullptr;
  if (git_oid_fromstr(&oid, id.c_str()) != 0 || git_commit_lookup(&raw, repo, &oid) != 0) {
    return Status::Invalid("no commit " + id);
  }
  return CommitPtr(raw);
}

inline StatusOr<TreePtr> TreeOf(git_commit* commit) {
  git_tree* raw = nullptr;
  if (git_commit_tree(&raw, commit) != 0) return GitError("cannot read a commit's tree");
  return TreePtr(raw);
}

using ObjectPtr = std::unique_ptr<git_object, Deleter<git_object, git_object_free>>;
using NotePtr = std::unique_ptr<git_note, Deleter<git_note, git_note_free>>;
using ConflictIterPtr =
    std::unique_ptr<git_index_conflict_iterator,
                    Deleter<git_index_conflict_iterator, git_index_conflict_iterator_free>>;

inline StatusOr<git_oid> Oid(const std::string& id) {
  git_oid oid;
  if (git_oid_fromstr(&oid, id.c_str()) != 0) return Status::Invalid("not an object id: " + id);
  return oid;
}

// The tree of the merge base of `base` and HEAD: what "changed since BASE" is measured from.
inline StatusOr<TreePtr> MergeBaseTree(git_repository* repo, const std::string& workdir,
                                       const std::string& base) {
  PG_ASSIGN_OR_RETURN(std::string base_id, ResolveCommit(workdir, base));
  PG_ASSIGN_OR_RETURN(std::string head_id, ResolveCommit(workdir, "HEAD"));
  PG_ASSIGN_OR_RETURN(git_oid a, Oid(base_id));
  PG_ASSIGN_OR_RETURN(git_oid b, Oid(head_id));
  git_oid merge_base;
  if (git_merge_base(&merge_base, repo, &a, &b) != 0)
    return Status::Invalid("\"" + base + "\" shares no history with HEAD");
  PG_ASSIGN_OR_RETURN(CommitPtr commit, LookupCommit(repo, Hex(merge_base)));
  return TreeOf(commit.get());
}

}  // namespace pg::git
