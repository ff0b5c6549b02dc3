// Range gates about who owns what: the trailers a project requires on its commits, and every
// `## Owed` item and issue reference naming an issue that exists (in a snapshot of the tracker).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/core/status.h"

namespace pg {

// What is wrong with one commit message under the rules (empty: fine).
std::vector<std::string> TrailerProblems(const std::string& message,
                                         const std::vector<TrailerRule>& rules);

// Issue numbers in a tracker export: a JSON list of numbers or of objects with "number"
// (optionally under "issues"). Errors are kInvalidInput "path:line:col:".
StatusOr<std::set<long>> ParseIssueSnapshot(const std::string& path, const std::string& text);

// `## Owed` bullets without an owner, and `#N` in them that are not issues; each problem starts
// with "spec_path:LINE:".
std::vector<std::string> OwedProblems(const std::string& spec_path, const std::string& text,
                                      const std::set<long>& issues);

// `Refs #N`, `Fixes #N`, `Closes #N`, `Resolves #N` (and `Refs: #N` trailers) naming no issue.
std::vector<std::string> IssueRefProblems(const std::string& message, const std::set<long>& issues);

}  // namespace pg
