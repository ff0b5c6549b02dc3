// A commit's tree as a directory of its own, for running legs on it (tree-compiles, blame-base).
#pragma once

#include <string>

#include "core/status.h"

namespace pg {

// `<git-dir>/proofgate/trees/<tree id>` holding `rev`'s tree, made a repository with one commit
// (so the preflight runner's tree hash and cache work there). Kept: the runner's cache inside
// it makes a second run on the same tree cost nothing.
StatusOr<std::string> CheckoutTree(const std::string& workdir, const std::string& rev);

}  // namespace pg
