// `proofgate prove --base REF`: the narrow facts a reviewer needs about a change — its new
// tests were red before it and are green after, nothing that passed broke, no test vanished.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gates/config/suite_config.h"
#include "gates/core/exit_code.h"
#include "gates/core/status.h"
#include "gates/prove/inventory.h"

namespace pg {

struct ProveOptions {
  std::string root;  // the user's repository (read, never written)
  std::string base;  // REF
  std::string head = "HEAD";
  std::string work_dir;  // trees and builds: base/, head/, mixed/ and src/
  ProveSettings settings;
  std::string only;          // --tests: a regex the fail-to-pass candidates must match
  bool allow_empty = false;  // --allow-empty: a change with no added or changed test may pass
  int cancel_fd = -1;
  std::function<void(const std::string&)> on_notice;
};

// One test's two runs: "fail", "pass", "not run", "unviable" (the tree did not build).
struct TestProof {
  std::string test, before, after;
  std::string verdict;  // proven, not proven, red after, unviable; broken (pass-to-pass)
  std::string detail;
  std::string why;  // its failure before, on one line, when it failed there
};

struct ProveReport {
  std::string base_id, head_id;
  size_t base_count = 0, head_count = 0;
  InventoryDiff diff;
  std::vector<std::string> lost;        // removed, not renamed, with no Test-Removed trailer
  std::vector<TestProof> fail_to_pass;  // the added and changed tests
  std::vector<TestProof> broken;        // passed on base, not on head
  size_t pass_to_pass_checked = 0;
  std::string unviable;                 // why the mixed tree did not build
  std::vector<std::string> test_globs;  // which files were taken as tests
  std::string nothing_proven;           // why no test was a candidate: globs, files, names found
  // Changed test files that define no listed case: the ctest tests standing for them (each a
  // candidate as a whole), and the files none stands for.
  std::map<std::string, std::vector<std::string>> whole_tests;
  std::vector<std::string> unaccounted;
  bool allow_empty = false;
  bool interrupted = false;
  ExitCode Verdict() const;  // specs/exit-codes.md: nothing proven is unproven
  bool ok() const;
};

// Test files are `prove.tests`, else kDefaultTestGlobs. A proof with no added or changed test
// proves nothing and is not ok() unless `allow_empty`; `nothing_proven` says why it found none.
// kInvalidInput: a revision git cannot resolve; a base or head tree that does not build is
// kInvalidInput too (nothing can be proven on it).
StatusOr<ProveReport> RunProve(const ProveOptions& options);

}  // namespace pg
