// --blame-base: a failure the base revision has too belongs to the base, not to the change.
#pragma once

#include <string>

#include "gates/config/suite_config.h"
#include "gates/core/status.h"
#include "gates/runner/leg_result.h"
#include "gates/runner/preflight.h"

namespace pg {

// Runs each failed leg of `report` (with its needs, as this config defines them) on the tree of
// `options.blame_base`, and marks a leg `inherited` when it fails there the same way: the same
// failing test cases, or — when neither log names any — the same exit code and first error
// line (paths inside either tree compared relative to it).
Status BlameBase(const PreflightOptions& options, const SuiteConfig& config, RunReport* report);

// Whether two failed runs of a leg failed the same way (`root_a`/`root_b`: the trees they ran in).
bool SameFailure(const LegResult& a, const std::string& root_a, const LegResult& b,
                 const std::string& root_b);

}  // namespace pg
