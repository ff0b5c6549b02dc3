#include "gates/runner/tree_checkout.h"

#include <filesystem>

#include "gates/core/file_io.h"
#include "gates/git/git.h"

namespace fs = std::filesystem;

namespace pg {

Status WriteCheckout(const std::string& workdir, const std::string& rev, const std::string& dir,
                     bool commit) {
  std::string partial = dir + ".partial";
  std::error_code ec;
  fs::remove_all(partial, ec);
  PG_RETURN_IF_ERROR(MakeDirs(partial));
  PG_RETURN_IF_ERROR(git::Init(partial));
  PG_RETURN_IF_ERROR(git::CheckoutTreeTo(workdir, rev, partial));
  if (commit) PG_RETURN_IF_ERROR(git::CommitAll(partial, "proofgate: tree of " + rev).status());
  fs::remove_all(dir, ec);
  fs::rename(partial, dir, ec);
  if (ec) return Status::Io(dir + ": " + ec.message());
  return Status();
}

StatusOr<std::string> CheckoutTree(const std::string& workdir, const std::string& rev) {
  PG_ASSIGN_OR_RETURN(git::Repo repo, git::Discover(workdir));
  PG_ASSIGN_OR_RETURN(std::string tree_id, git::TreeIdOf(workdir, rev));
  std::string dir = repo.gitdir + "proofgate/trees/" + tree_id;
  if (fs::exists(dir + "/.git")) return dir;
  PG_RETURN_IF_ERROR(WriteCheckout(workdir, tree_id, dir, true));
  return dir;
}

}  // namespace pg
