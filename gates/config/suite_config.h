// preflight/suites.json: legs (one command each) and suites (named lists of legs).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gates/contention/quiet_wait.h"
#include "gates/core/status.h"

namespace pg {

inline constexpr double kDefaultLegTimeoutS = 3600;
inline constexpr double kDefaultKillGraceS = 5;

struct Leg {
  std::string name;
  std::vector<std::string> argv;  // a string `run` becomes {"sh", "-c", run}
  std::string cwd;                // relative to the repo root; empty = the root
  std::vector<std::pair<std::string, std::string>> env;
  double timeout_s = kDefaultLegTimeoutS;
  std::vector<std::string> needs;
  std::vector<std::string> locks;
  std::vector<std::string> inputs;   // globs relative to the root, part of the cache key
  std::vector<std::string> outputs;  // paths or globs it makes: a cached pass needs each there
  std::vector<std::string>
      files;  // globs: it runs when the run's file set has one (gates/runner/leg_files.h)
  std::vector<std::string> exclude;  // globs: files it is never about, whatever `files` matches
  bool exclusive = false;
  bool timing = false;
  bool stage_fixed = false;  // a fixer: runs first, its fixes to its files are kept (and staged)
  std::string definition;    // canonical JSON of the leg as written: part of the cache key
};

struct Suite {
  std::string name;
  std::vector<std::string> legs;
};

// A trailer the project requires: `require` must be present (and match `pattern`) on every
// commit whose `when_key` trailer has a value `when_pattern` finds (no `when_key`: every commit).
struct TrailerRule {
  std::string require, pattern, when_key, when_pattern;
};

// `proofgate range` thresholds ("range" in suites.json); flags override them.
struct RangeThresholds {
  size_t subject_max = 72, body_max = 72;
  size_t max_lines = 2000, max_files = 60;
  std::vector<std::string> exclude;
  std::string build_leg = "build";
  std::vector<TrailerRule> trailers;
  std::string issues;  // the issue snapshot owed-owners checks against, relative to the root
};

// How a scratch copy of the tree is configured, built, listed and tested ("commands" in
// suites.json, for prove and mutate; a catalog's or prove's own fields override). Empty: the
// CMake + ctest defaults.
struct ScratchCommands {
  std::vector<std::string> build_targets, configure, build_command, test_command, list_command;
  // Takes each command this one leaves empty from `fallback`.
  void FillFrom(const ScratchCommands& fallback);
};

// Where tests live in most repositories, for a suites.json without "prove": {"tests": [...]}.
inline const std::vector<std::string> kDefaultTestGlobs = {"test/**", "tests/**", "**/*_test.*",
                                                           "**/*_unittest.*", "**/test_*.*"};

// `proofgate prove` ("prove" in suites.json): which files are tests, and its own commands.
struct ProveSettings : ScratchCommands {
  std::vector<std::string> tests;  // globs of test files, relative to the root
};

// `proofgate mutate --generate` ("generate" in suites.json): files never parsed for mutants.
struct GenerateSettings {
  std::vector<std::string> exclude;  // globs relative to the root
};

struct SuiteConfig {
  std::string path;                                 // as given, for messages
  std::vector<Leg> legs;                            // in file order
  std::vector<Suite> suites;                        // in file order
  std::vector<std::vector<std::string>> toolchain;  // commands whose output fingerprints tools
  double kill_grace_s = kDefaultKillGraceS;
  ContentionRules contention;  // thresholds for `timing` legs
  RangeThresholds range;
  ScratchCommands commands;
  ProveSettings prove;  // its empty commands filled from `commands`
  GenerateSettings generate;

  const Leg* FindLeg(const std::string& name) const;
  const Suite* FindSuite(const std::string& name) const;
};

// Parses and validates; every error is kInvalidInput and starts with "path:line:col:".
StatusOr<SuiteConfig> ParseSuiteConfig(const std::string& path, const std::string& text);
// `display_path` is how messages name the file (default: `path`).
StatusOr<SuiteConfig> LoadSuiteConfig(const std::string& path,
                                      const std::string& display_path = "");

// Shard `index` (1-based) of `count` of selected `legs` (needs first, as SelectLegs orders
// them): the legs no other selected leg needs are dealt round-robin in order, leg j to shard
// j % count + 1; the shard keeps its own and their transitive needs, in the same order.
// `assigned` gets the dealt legs' names.
std::vector<const Leg*> ShardLegs(const SuiteConfig& config, const std::vector<const Leg*>& legs,
                                  int index, int count, std::vector<std::string>* assigned);

// The legs of `suites` (a name no suite has may be a leg's: that leg) and of `legs` (leg names
// only: --leg) plus every leg they need, transitively, needs first, otherwise in the order
// named. An unknown name is kInvalidInput naming the known suites and legs.
StatusOr<std::vector<const Leg*>> SelectLegs(const SuiteConfig& config,
                                             const std::vector<std::string>& suites,
                                             const std::vector<std::string>& legs = {});

}  // namespace pg
