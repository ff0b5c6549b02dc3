// What each GoogleTest case's source is, so that a test that moved to a new name is recognised
// as renamed, and a test whose body changed as changed.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace pg {

// "Suite.Name" → sha256 of the case's body (whitespace-normalised, comments kept) for every
// TEST, TEST_F and TEST_P in `source`.
std::map<std::string, std::string> GtestBodies(const std::string& source);

// The same over every file under `tree` that matches one of `globs` (relative paths).
StatusOr<std::map<std::string, std::string>> TreeGtestBodies(const std::string& tree, const std::vector<std::string>& globs);

}  // namespace pg
