// Files proofgate itself is writing while it runs: its stdout and stderr when they are
// redirected to files, and the reports it was asked for. They are not the user's change, so
// a tree hash must not see them (`--json > report.json` inside the tree is not "the tree
// changed while the suite ran").
#pragma once

#include <string>
#include <vector>

namespace pg {

// Absolute, normalised paths: stdout/stderr when each is a regular file, then `reports`
// (made absolute against the current directory).
std::vector<std::string> OwnOutputFiles(const std::vector<std::string>& reports);

// Those of `files` inside `root`, relative to it (as git names them).
std::vector<std::string> InsideTree(const std::string& root, const std::vector<std::string>& files);

// Where `dir` lies in the working tree `top`, as a prefix of git's paths: "" when they are one
// (or `dir` is outside), "app/" for top/app. suites.json's root may lie below the top.
std::string PrefixInTree(const std::string& top, const std::string& dir);

}  // namespace pg
