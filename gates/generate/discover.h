// From a built scratch tree to generated mutants: which compiled files the user asked for,
// their points (libclang), the markers and the diff that narrow them, and the tests that
// reach each file. The mutants run on the declared engine (gates/mutate/), as a catalog.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "gates/core/status.h"
#include "gates/generate/point.h"
#include "gates/mutate/catalog.h"
#include "gates/mutate/test_map.h"

namespace pg {

struct DiscoverOptions {
  std::string root;                // the user's tree: PATHS and --in-diff are read here
  std::vector<std::string> paths;  // files or directories relative to the root; empty: all
  std::string in_diff;             // BASE, or empty
  std::set<Operator> ops;
  std::vector<std::string> exclude;  // globs (suites.json "generate.exclude")
};

struct Discovered {
  std::vector<Mutation> mutations;   // generated: ids stable, tests filled, numbered from 1
  std::vector<Schema> schemata;      // one per file with mutants: how each is compiled in
  std::vector<std::string> notices;  // files no test reaches, libclang's errors, test sources
};

// `tree` is a worker's scratch tree synced with the root, `build_dir` its built build, `tests`
// its ctest listing.
StatusOr<Discovered> DiscoverMutants(const DiscoverOptions& o, const std::string& tree,
                                     const std::string& build_dir,
                                     const std::vector<CtestTest>& tests);

// Checks what can be checked before anything builds: each PATH exists inside the root, BASE
// names a commit. kInvalidInput naming the flag.
Status CheckDiscoverOptions(const DiscoverOptions& o);

}  // namespace pg
