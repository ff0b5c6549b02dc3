// What a suite's legs say they make (`outputs`): whether it is still there before a cached pass
// is reused, and which untracked files the tree hash leaves out.
#pragma once

#include <string>

#include "gates/config/suite_config.h"
#include "gates/git/git.h"

namespace pg {

// Whether what the leg makes is still there: each output path exists, each glob matches
// a file or a folder holding one. A pass whose build directory was removed since is nothing to
// reuse.
bool OutputsThere(const std::string& root, const Leg& leg);

// Whether `path` (relative to the root) is one of `output` or lies under it: a plain path
// covers itself and everything below it, a glob the paths it matches and whatever lies in a
// folder it matches.
bool OutputCovers(const std::string& output, const std::string& path);

// The tree hash's filter for every leg's outputs in `config`. `root_prefix` is the root's place
// in the working tree ("" or "app/", PrefixInTree): git names paths from the working tree,
// outputs from the root. Empty when no leg declares an output.
git::UntrackedSkip DeclaredOutputs(const SuiteConfig& config, const std::string& root_prefix);

}  // namespace pg
