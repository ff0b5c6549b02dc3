// proofgate's view of git. Only gates/git/*.cpp include <git2.h> (through git_handles.h).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gates/core/status.h"

namespace pg::git {

struct Repo {
  std::string workdir;  // with a trailing '/'
  std::string gitdir;   // with a trailing '/'
  std::string
      commondir;  // with a trailing '/': where info/ and hooks/ live (a worktree's main .git)
  std::string hooksdir;  // with a trailing '/': core.hooksPath (relative: to the working tree),
                         // else commondir/hooks/
};

// How many times libgit2 asked for its CA certificates and was given none: proofgate opens no
// remote, and parsing the bundle was a third of a one-leg run (git_no_transport.cpp).
int CertificateLoadsRefused();

// The repository containing `path`; kInvalidInput when there is none.
StatusOr<Repo> Discover(const std::string& path);

// The git tree id of what is in the working directory now: HEAD plus staged, unstaged and
// untracked (not ignored) changes. Objects are hashed into an in-memory store, so neither
// the index file nor the object database is written. Equals HEAD^{tree} on a clean tree.
// Paths in `skip` (relative to `workdir`) keep what the index has: files proofgate writes.
// `files`, when given, gets each path's blob id and mode: what tells two snapshots apart.
// `untracked`, when set, is asked about each path the index does not track: true leaves it
// out (what a leg declares it makes); a tracked path is always hashed.
using TreeFiles = std::map<std::string, std::string>;
using UntrackedSkip = std::function<bool(const std::string& path)>;
StatusOr<std::string> WorkingTreeHash(const std::string& workdir,
                                      const std::vector<std::string>& skip = {},
                                      TreeFiles* files = nullptr,
                                      const UntrackedSkip& untracked = {});

// The git blob id (hex) of `data`: a content hash that needs no repository.
std::string HashBytes(std::string_view data);

struct Commit {
  std::string id;
  std::string summary;  // the first line
  std::string message;  // the whole message
  std::string tree_id;
};

// Commits reachable from the right side of "BASE..HEAD" and not from the left, oldest first;
// a single revision ("HEAD") walks everything reachable from it.
StatusOr<std::vector<Commit>> WalkRange(const std::string& workdir, const std::string& range);

struct FileChange {
  std::string path;
  char status = 'M';     // A added, D deleted, M modified, R renamed
  std::string old_path;  // where a renamed file was
  size_t added = 0, removed = 0;
};
// What a commit changed against its first parent (everything, for a root commit).
StatusOr<std::vector<FileChange>> CommitChanges(const std::string& workdir,
                                                const std::string& commit_id);

// A file's content at a commit; kInvalidInput when it is not there.
StatusOr<std::string> FileAt(const std::string& workdir, const std::string& commit_id,
                             const std::string& path);

// Paths of the files directly in `dir` of a commit's tree (empty when there is no such dir).
StatusOr<std::vector<std::string>> FilesIn(const std::string& workdir, const std::string& commit_id,
                                           const std::string& dir);

// The id of the tree a revision names (a commit's tree, or a tree id itself).
StatusOr<std::string> TreeIdOf(const std::string& workdir, const std::string& rev);

// The id of the commit a revision names ("main", "HEAD~2", an id).
StatusOr<std::string> ResolveCommit(const std::string& workdir, const std::string& rev);

// Whether commit `ancestor` is `commit` or reachable from it (both full ids).
StatusOr<bool> IsAncestor(const std::string& workdir, const std::string& ancestor,
                          const std::string& commit);

struct Merge {
  std::string tree_id;                 // empty when there are conflicts
  std::vector<std::string> conflicts;  // conflicted paths
};
// Three-way merge of `theirs` into `ours` (commit ids) in memory; the merged tree's objects are
// written to the object database so it can be checked out.
StatusOr<Merge> MergeCommits(const std::string& workdir, const std::string& ours,
                             const std::string& theirs);

// Writes the files of a tree into `dir` (which must exist and be empty); `tree_id` may be a
// tree id or anything naming a commit ("HEAD", "main~2", a commit id).
Status CheckoutTreeTo(const std::string& workdir, const std::string& tree_id,
                      const std::string& dir);

// Git notes under `ref` on a commit.
StatusOr<std::string> ReadNote(const std::string& workdir, const std::string& ref,
                               const std::string& commit_id);
Status WriteNote(const std::string& workdir, const std::string& ref, const std::string& commit_id,
                 const std::string& note);

// Points HEAD at branch `name`, creating it at HEAD first when `create` is set, and checks it out.
Status SwitchBranch(const std::string& workdir, const std::string& name, bool create);

// Whether git would ignore `path` (relative to the working tree).
StatusOr<bool> IsIgnored(const std::string& workdir, const std::string& path);
// Paths of the files in the index (what `git ls-files` lists), ignored or not.
StatusOr<std::vector<std::string>> TrackedFiles(const std::string& workdir);
// Paths git status reports as changed or untracked (not ignored); empty for a clean tree.
StatusOr<std::vector<std::string>> Dirty(const std::string& workdir);

// Which files a run's legs are about (`preflight --staged`, `--base`, `--all-files`), as paths
// relative to the working tree, sorted. The index is the one git gives a hook (GIT_INDEX_FILE,
// as `git commit -a` and `git commit PATH` set it), else the repository's.
// Added, copied, modified, renamed or type-changed in the index against HEAD (the whole index
// before the first commit): what a commit would change.
StatusOr<std::vector<std::string>> StagedFiles(const std::string& workdir);
// Different between the merge base of `base` and HEAD and the working tree (committed, staged,
// unstaged and untracked); deleted files are not listed.
StatusOr<std::vector<std::string>> FilesChangedSince(const std::string& workdir,
                                                     const std::string& base);
// Every file of the working tree: tracked ones that exist and untracked ones git does not ignore.
StatusOr<std::vector<std::string>> WorkingFiles(const std::string& workdir);
// Tracked files whose working-tree state differs from the index (edited, deleted, mode
// changed): what `--staged` sets aside. kInvalidInput when the index has unmerged paths.
StatusOr<std::vector<std::string>> UnstagedFiles(const std::string& workdir);
// Writes the index's version of each of `paths` into the working tree.
Status CheckoutIndex(const std::string& workdir, const std::vector<std::string>& paths);
// The tree id of the index git would commit (GIT_INDEX_FILE's in a hook), computed in memory.
StatusOr<std::string> IndexTreeHash(const std::string& workdir);
// The index's bytes of `path` (kInvalidInput when the index has no such file).
StatusOr<std::string> IndexedBytes(const std::string& workdir, const std::string& path);

struct Trailer {
  std::string key, value;
};
// The trailers of a commit message ("Key: value" lines of its last paragraph), as git parses
// them; empty when there are none.
std::vector<Trailer> MessageTrailers(const std::string& message);

// The lines (1-based, new side) added or changed between the merge base of `base` and HEAD
// and the working tree, untracked files included, by path: what `mutate --in-diff` mutates.
StatusOr<std::map<std::string, std::set<int>>> LinesChangedSince(const std::string& workdir,
                                                                 const std::string& base);

// Creates a repository at `path` (tests and scratch trees).
Status Init(const std::string& path);
// Stages everything (respecting .gitignore) and commits it on HEAD; returns the commit id.
StatusOr<std::string> CommitAll(const std::string& workdir, const std::string& message);

}  // namespace pg::git
