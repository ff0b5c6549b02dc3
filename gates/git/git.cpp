#include "gates/git/git.h"

#include <git2.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "gates/git/git_handles.h"

namespace pg::git {
namespace {

// What StageAll leaves as the index has it: listed paths (files proofgate writes) and, when
// `untracked` says so, a path the index does not track (a leg's declared outputs).
struct Skip {
  const std::vector<std::string>* paths;
  const UntrackedSkip* untracked;
  git_index* index;
};

int SkipListed(const char* path, const char*, void* payload) {
  const auto* skip = static_cast<const Skip*>(payload);
  if (std::find(skip->paths->begin(), skip->paths->end(), path) != skip->paths->end()) return 1;
  // A tracked file counts wherever it lies: only what git does not know is a product.
  if (*skip->untracked && (*skip->untracked)(path) && !git_index_get_bypath(skip->index, path, 0))
    return 1;
  return 0;
}

// Stages the whole working directory (additions, edits and deletions) into the repository's
// in-memory index.
StatusOr<IndexPtr> StageAll(git_repository* repo, const std::vector<std::string>& skip = {},
                            const UntrackedSkip& untracked = {}) {
  git_index* raw = nullptr;
  if (git_repository_index(&raw, repo) != 0) return GitError("cannot read the index");
  IndexPtr index(raw);
  char star[] = "*";
  char* patterns[] = {star};
  git_strarray paths = {patterns, 1};
  Skip payload{&skip, &untracked, index.get()};
  bool filtered = !skip.empty() || untracked;
  if (git_index_add_all(index.get(), &paths, GIT_INDEX_ADD_DEFAULT, filtered ? SkipListed : nullptr,
                        &payload) != 0) {
    return GitError("cannot hash the working directory");
  }
  return index;
}

}  // namespace

StatusOr<Repo> Discover(const std::string& path) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(path));
  const char* workdir = git_repository_workdir(repo.get());
  if (!workdir) return Status::Invalid(path + ": a bare repository has no working tree");
  Repo out{workdir, git_repository_path(repo.get()), git_repository_commondir(repo.get()), ""};
  out.hooksdir = out.commondir + "hooks/";
  // core.hooksPath moves the hooks git runs (husky and lefthook users set it); libgit2 does not
  // apply it.
  git_config* config = nullptr;
  git_buf hooks = GIT_BUF_INIT;
  if (git_repository_config_snapshot(&config, repo.get()) == 0 &&
      git_config_get_string_buf(&hooks, config, "core.hooksPath") == 0) {
    std::string dir(hooks.ptr, hooks.size);
    const char* home =
        std::getenv("HOME");  // git expands a leading ~ (a hook under ./~/ never runs)
    if (home && (dir == "~" || dir.rfind("~/", 0) == 0)) dir = std::string(home) + dir.substr(1);
    if (!dir.empty() && dir[0] != '/') dir = out.workdir + dir;
    if (!dir.empty() && dir.back() != '/') dir += '/';
    if (!dir.empty()) out.hooksdir = dir;
  }
  git_buf_dispose(&hooks);
  git_config_free(config);
  return out;
}

StatusOr<std::string> WorkingTreeHash(const std::string& workdir,
                                      const std::vector<std::string>& skip, TreeFiles* files,
                                      const UntrackedSkip& untracked) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  OdbPtr odb;
  PG_ASSIGN_OR_RETURN(git_odb_backend * mempack, WriteToMemory(repo.get(), &odb));
  PG_ASSIGN_OR_RETURN(IndexPtr index, StageAll(repo.get(), skip, untracked));
  for (size_t i = 0; files && i < git_index_entrycount(index.get()); ++i) {
    const git_index_entry* e = git_index_get_byindex(index.get(), i);
    (*files)[e->path] = Hex(e->id) + " " + std::to_string(e->mode);
  }
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
  if (git_tree_lookup(&raw_tree, repo.get(), &tree_id) != 0)
    return GitError("cannot read the tree");
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

StatusOr<std::vector<Commit>> WalkRange(const std::string& workdir, const std::string& range) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  git_revwalk* raw = nullptr;
  if (git_revwalk_new(&raw, repo.get()) != 0) return GitError("cannot walk commits");
  WalkPtr walk(raw);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
  // "A..B" is a range; a single revision means everything reachable from it.
  int rc = -1;
  if (range.find("..") != std::string::npos) {
    rc = git_revwalk_push_range(walk.get(), range.c_str());
  } else {
    git_object* obj = nullptr;
    rc = git_revparse_single(&obj, repo.get(), range.c_str());
    if (rc == 0) {
      rc = git_revwalk_push(walk.get(), git_object_id(obj));
      git_object_free(obj);
    }
  }
  if (rc != 0) {
    return Status::Invalid("range \"" + range +
                           "\": " + (git_error_last() ? git_error_last()->message : "invalid"));
  }
  std::vector<Commit> out;
  git_oid oid;
  while (git_revwalk_next(&oid, walk.get()) == 0) {
    PG_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo.get(), Hex(oid)));
    out.push_back(Commit{Hex(oid), git_commit_summary(c.get()) ? git_commit_summary(c.get()) : "",
                         git_commit_message(c.get()) ? git_commit_message(c.get()) : "",
                         Hex(*git_commit_tree_id(c.get()))});
  }
  return out;
}

StatusOr<std::vector<FileChange>> CommitChanges(const std::string& workdir,
                                                const std::string& commit_id) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_ASSIGN_OR_RETURN(CommitPtr commit, LookupCommit(repo.get(), commit_id));
  PG_ASSIGN_OR_RETURN(TreePtr tree, TreeOf(commit.get()));
  TreePtr parent_tree;
  git_commit* parent = nullptr;
  if (git_commit_parentcount(commit.get()) > 0 &&
      git_commit_parent(&parent, commit.get(), 0) == 0) {
    CommitPtr owned(parent);
    PG_ASSIGN_OR_RETURN(parent_tree, TreeOf(owned.get()));
  }
  git_diff* raw = nullptr;
  if (git_diff_tree_to_tree(&raw, repo.get(), parent_tree.get(), tree.get(), nullptr) != 0)
    return GitError("cannot diff");
  DiffPtr diff(raw);
  // A moved file is its edits, as `git log --stat` counts it, not a deletion and an addition.
  git_diff_find_options similar = GIT_DIFF_FIND_OPTIONS_INIT;
  similar.flags = GIT_DIFF_FIND_RENAMES;
  if (git_diff_find_similar(diff.get(), &similar) != 0) return GitError("cannot find renames");
  std::vector<FileChange> out;
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* d = git_diff_get_delta(diff.get(), i);
    FileChange f;
    f.path = d->new_file.path ? d->new_file.path : d->old_file.path;
    f.status = git_diff_status_char(d->status);
    if (d->status == GIT_DELTA_RENAMED && d->old_file.path) f.old_path = d->old_file.path;
    git_patch* p = nullptr;
    if (git_patch_from_diff(&p, diff.get(), i) == 0 && p) {
      PatchPtr patch(p);
      size_t context = 0;
      git_patch_line_stats(&context, &f.added, &f.removed, patch.get());
    }
    out.push_back(std::move(f));
  }
  return out;
}

StatusOr<std::string> FileAt(const std::string& workdir, const std::string& commit_id,
                             const std::string& path) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_ASSIGN_OR_RETURN(CommitPtr commit, LookupCommit(repo.get(), commit_id));
  PG_ASSIGN_OR_RETURN(TreePtr tree, TreeOf(commit.get()));
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, tree.get(), path.c_str()) != 0)
    return Status::Invalid(path + " is not in " + commit_id);
  EntryPtr entry(raw);
  git_blob* blob = nullptr;
  if (git_blob_lookup(&blob, repo.get(), git_tree_entry_id(entry.get())) != 0)
    return GitError("cannot read " + path);
  BlobPtr owned(blob);
  return std::string(static_cast<const char*>(git_blob_rawcontent(owned.get())),
                     git_blob_rawsize(owned.get()));
}

StatusOr<std::vector<std::string>> FilesIn(const std::string& workdir, const std::string& commit_id,
                                           const std::string& dir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_ASSIGN_OR_RETURN(CommitPtr commit, LookupCommit(repo.get(), commit_id));
  PG_ASSIGN_OR_RETURN(TreePtr tree, TreeOf(commit.get()));
  std::vector<std::string> out;
  git_tree_entry* raw = nullptr;
  if (git_tree_entry_bypath(&raw, tree.get(), dir.c_str()) != 0) return out;
  EntryPtr entry(raw);
  git_tree* sub = nullptr;
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE ||
      git_tree_lookup(&sub, repo.get(), git_tree_entry_id(entry.get())) != 0) {
    return out;
  }
  TreePtr subtree(sub);
  for (size_t i = 0; i < git_tree_entrycount(subtree.get()); ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(subtree.get(), i);
    if (git_tree_entry_type(e) == GIT_OBJECT_BLOB)
      out.push_back(dir + "/" + git_tree_entry_name(e));
  }
  return out;
}

StatusOr<std::string> ResolveCommit(const std::string& workdir, const std::string& rev) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  git_object* raw = nullptr;
  if (git_revparse_single(&raw, repo.get(), rev.c_str()) != 0)
    return Status::Invalid("no revision \"" + rev + "\"");
  ObjectPtr obj(raw);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, obj.get(), GIT_OBJECT_COMMIT) != 0)
    return Status::Invalid("\"" + rev + "\" is not a commit");
  ObjectPtr commit(peeled);
  return Hex(*git_object_id(commit.get()));
}

StatusOr<bool> IsAncestor(const std::string& workdir, const std::string& ancestor,
                          const std::string& commit) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  git_oid a, c;
  if (git_oid_fromstr(&a, ancestor.c_str()) != 0 || git_oid_fromstr(&c, commit.c_str()) != 0) {
    return Status::Invalid("not commit ids: " + ancestor + ", " + commit);
  }
  if (git_oid_equal(&a, &c)) return true;
  int r = git_graph_descendant_of(repo.get(), &c, &a);
  if (r < 0) return Status::Invalid("cannot compare " + ancestor + " with " + commit);
  return r == 1;
}

StatusOr<std::string> TreeIdOf(const std::string& workdir, const std::string& rev) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  git_object* raw = nullptr;
  if (git_revparse_single(&raw, repo.get(), rev.c_str()) != 0)
    return Status::Invalid("no revision \"" + rev + "\"");
  ObjectPtr named(raw);
  if (git_object_peel(&raw, named.get(), GIT_OBJECT_TREE) != 0)
    return Status::Invalid("\"" + rev + "\" names no tree");
  ObjectPtr tree(raw);
  return Hex(*git_object_id(tree.get()));
}

StatusOr<Merge> MergeCommits(const std::string& workdir, const std::string& ours,
                             const std::string& theirs) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_ASSIGN_OR_RETURN(CommitPtr a, LookupCommit(repo.get(), ours));
  PG_ASSIGN_OR_RETURN(CommitPtr b, LookupCommit(repo.get(), theirs));
  git_oid base_oid;
  TreePtr base_tree;
  if (git_merge_base(&base_oid, repo.get(), git_commit_id(a.get()), git_commit_id(b.get())) == 0) {
    PG_ASSIGN_OR_RETURN(CommitPtr base, LookupCommit(repo.get(), Hex(base_oid)));
    PG_ASSIGN_OR_RETURN(base_tree, TreeOf(base.get()));
  }
  PG_ASSIGN_OR_RETURN(TreePtr ta, TreeOf(a.get()));
  PG_ASSIGN_OR_RETURN(TreePtr tb, TreeOf(b.get()));
  git_index* raw = nullptr;
  if (git_merge_trees(&raw, repo.get(), base_tree.get(), ta.get(), tb.get(), nullptr) != 0)
    return GitError("merge failed");
  IndexPtr index(raw);
  Merge m;
  if (git_index_has_conflicts(index.get())) {
    git_index_conflict_iterator* it_raw = nullptr;
    git_index_conflict_iterator_new(&it_raw, index.get());
    ConflictIterPtr it(it_raw);
    const git_index_entry *anc, *our, *their;
    while (git_index_conflict_next(&anc, &our, &their, it.get()) == 0) {
      m.conflicts.push_back(our ? our->path : their ? their->path : anc->path);
    }
    return m;
  }
  git_oid tree;
  if (git_index_write_tree_to(&tree, index.get(), repo.get()) != 0)
    return GitError("cannot write the merged tree");
  m.tree_id = Hex(tree);
  return m;
}

Status CheckoutTreeTo(const std::string& workdir, const std::string& tree_id,
                      const std::string& dir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  git_object* raw = nullptr;
  if (git_revparse_single(&raw, repo.get(), tree_id.c_str()) != 0)
    return GitError("no tree " + tree_id);
  ObjectPtr named(raw);
  if (git_object_peel(&raw, named.get(), GIT_OBJECT_TREE) != 0)
    return GitError(tree_id + " names no tree");
  ObjectPtr tree(raw);
  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  opts.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
  opts.target_directory = dir.c_str();
  // A private index: the user's index must not learn about the scratch checkout.
  git_index* scratch_index = nullptr;
  git_index_new(&scratch_index);
  IndexPtr owned(scratch_index);
  opts.baseline_index = scratch_index;
  if (git_checkout_tree(repo.get(), tree.get(), &opts) != 0)
    return GitError("cannot check out " + tree_id + " into " + dir);
  return Status();
}

StatusOr<std::string> ReadNote(const std::string& workdir, const std::string& ref,
                               const std::string& commit_id) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_ASSIGN_OR_RETURN(git_oid oid, Oid(commit_id));
  git_note* raw = nullptr;
  if (git_note_read(&raw, repo.get(), ref.c_str(), &oid) != 0) return Status::Invalid("no note");
  NotePtr note(raw);
  return std::string(git_note_message(note.get()));
}

Status WriteNote(const std::string& workdir, const std::string& ref, const std::string& commit_id,
                 const std::string& note) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_ASSIGN_OR_RETURN(git_oid oid, Oid(commit_id));
  git_signature* raw = nullptr;
  if (git_signature_default(&raw, repo.get()) != 0 &&
      git_signature_now(&raw, "proofgate", "proofgate@localhost") != 0) {
    return GitError("cannot make a signature");
  }
  SigPtr sig(raw);
  git_oid note_oid;
  if (git_note_create(&note_oid, repo.get(), ref.c_str(), sig.get(), sig.get(), &oid, note.c_str(),
                      /*force=*/1) != 0) {
    return GitError("cannot write a note");
  }
  return Status();
}

Status SwitchBranch(const std::string& workdir, const std::string& name, bool create) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  if (create) {
    PG_ASSIGN_OR_RETURN(std::string head, ResolveCommit(workdir, "HEAD"));
    PG_ASSIGN_OR_RETURN(CommitPtr c, LookupCommit(repo.get(), head));
    git_reference* ref = nullptr;
    if (git_branch_create(&ref, repo.get(), name.c_str(), c.get(), 0) != 0)
      return GitError("cannot create " + name);
    git_reference_free(ref);
  }
  if (git_repository_set_head(repo.get(), ("refs/heads/" + name).c_str()) != 0)
    return GitError("cannot switch to " + name);
  git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
  opts.checkout_strategy = GIT_CHECKOUT_FORCE;
  if (git_checkout_head(repo.get(), &opts) != 0) return GitError("cannot check out " + name);
  return Status();
}

StatusOr<bool> IsIgnored(const std::string& workdir, const std::string& path) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  int ignored = 0;
  if (git_ignore_path_is_ignored(&ignored, repo.get(), path.c_str()) != 0)
    return GitError("cannot check " + path);
  return ignored != 0;
}

StatusOr<std::vector<std::string>> TrackedFiles(const std::string& workdir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  git_index* raw = nullptr;
  if (git_repository_index(&raw, repo.get()) != 0) return GitError("cannot read the index");
  IndexPtr index(raw);
  std::vector<std::string> out;
  for (size_t i = 0; i < git_index_entrycount(index.get()); ++i)
    out.push_back(git_index_get_byindex(index.get(), i)->path);
  return out;
}

StatusOr<std::vector<std::string>> Dirty(const std::string& workdir) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  git_status_options opts = GIT_STATUS_OPTIONS_INIT;
  opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
  git_status_list* raw = nullptr;
  if (git_status_list_new(&raw, repo.get(), &opts) != 0) return GitError("cannot read the status");
  std::unique_ptr<git_status_list, Deleter<git_status_list, git_status_list_free>> list(raw);
  std::vector<std::string> out;
  for (size_t i = 0; i < git_status_list_entrycount(list.get()); ++i) {
    const git_status_entry* e = git_status_byindex(list.get(), i);
    const git_diff_delta* d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
    if (d) out.push_back(d->new_file.path ? d->new_file.path : d->old_file.path);
  }
  return out;
}

}  // namespace pg::git

namespace pg::git {

std::vector<Trailer> MessageTrailers(const std::string& message) {
  EnsureInit();  // without it libgit2 has no allocator and finds no trailers
  git_message_trailer_array trailers{};
  std::vector<Trailer> out;
  if (git_message_trailers(&trailers, message.c_str()) != 0)
    return out;  // none that git recognises
  for (size_t i = 0; i < trailers.count; ++i)
    out.push_back({trailers.trailers[i].key, trailers.trailers[i].value});
  git_message_trailer_array_free(&trailers);
  return out;
}

namespace {
int AddedLine(const git_diff_delta* delta, const git_diff_hunk*, const git_diff_line* line,
              void* payload) {
  auto* out = static_cast<std::map<std::string, std::set<int>>*>(payload);
  if (line->origin == GIT_DIFF_LINE_ADDITION) (*out)[delta->new_file.path].insert(line->new_lineno);
  return 0;
}
}  // namespace

StatusOr<std::map<std::string, std::set<int>>> LinesChangedSince(const std::string& workdir,
                                                                 const std::string& base) {
  PG_ASSIGN_OR_RETURN(RepoPtr repo, Open(workdir));
  PG_ASSIGN_OR_RETURN(TreePtr tree, MergeBaseTree(repo.get(), workdir, base));
  git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
  opts.context_lines = 0;
  opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
               GIT_DIFF_SHOW_UNTRACKED_CONTENT;
  git_diff* raw = nullptr;
  if (git_diff_tree_to_workdir_with_index(&raw, repo.get(), tree.get(), &opts) != 0)
    return GitError("cannot diff the working tree");
  DiffPtr diff(raw);
  std::map<std::string, std::set<int>> out;
  if (git_diff_foreach(diff.get(), nullptr, nullptr, nullptr, AddedLine, &out) != 0)
    return GitError("cannot read the diff");
  return out;
}

}  // namespace pg::git
