// A commit's tree as a directory of its own: for running legs on it (tree-compiles,
// blame-base), for the merge gate's merged tree, and for prove's base and head trees. The one
// routine that writes such a checkout.
#pragma once

#include <string>

#include "gates/core/status.h"

namespace pg {

// Writes `rev`'s tree (a commit or a tree id of the repository at `workdir`) into `dir`,
// replacing whatever was there, and makes it a repository (git asks it what is ignored), with
// one commit of the tree when `commit` (so the preflight runner's tree hash and cache work
// there). Built aside in `dir.partial` and renamed: a half-made checkout is never taken for a
// whole one, even by a run killed halfway.
Status WriteCheckout(const std::string& workdir, const std::string& rev, const std::string& dir,
                     bool commit);

// `<git-dir>/proofgate/trees/<tree id>` holding `rev`'s tree, with one commit. Kept: the
// runner's cache inside it makes a second run on the same tree cost nothing.
StatusOr<std::string> CheckoutTree(const std::string& workdir, const std::string& rev);

}  // namespace pg
