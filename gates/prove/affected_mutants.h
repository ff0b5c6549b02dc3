// Which declared mutants a change can affect (`proofgate mutate --changed-since REF`), so CI
// runs them on the change that could break them: a table that no longer holds fails that
// change, not a later one (a second mechanism disarming a first one's proof, lesson 3).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/mutate/worker.h"

namespace pg {

// Files changed by the commits of REF..HEAD plus what is uncommitted or untracked now.
StatusOr<std::set<std::string>> ChangedSince(const std::string& root, const std::string& ref);

// The jobs whose mutated file or catalog changed, or an expected gtest case whose body differs
// from the one at commit `base`, or that belong to a catalog whose `affected_by` globs match a
// changed file; a combo when any member is selected. `why` gets each selected id's first reason.
std::vector<MutantJob> AffectedJobs(const std::string& root, const std::string& base,
                                    const std::vector<MutantJob>& jobs,
                                    const std::set<std::string>& changed,
                                    std::map<std::string, std::string>* why);

}  // namespace pg
